// Futures (workloads/future.toml): create `futures` futures, all before
// awaiting any; future i computes (i x i) mod 1,000; then await each one and
// sum the values.
"use strict";

const futureValue = (i) => (i * i) % 1000;

/** The values computed in place, one after another. */
function none(run) {
  let sum = 0;
  for (let i = 0; i < run.params.futures; i++) sum += futureValue(i);
  return { sum };
}

/** JavaScript's future is a promise: an async function's, which runs in
 *  place up to its first await (here, to its end) and settles its promise,
 *  so one unit is alive at a time; the caller then awaits each promise. */
async function promise(run) {
  const units = run.units;
  const future = async (i) => {
    units.start();
    const value = futureValue(i);
    units.finish();
    return value;
  };
  const futures = Array.from({ length: run.params.futures }, (_, i) => future(i));
  let sum = 0;
  for (const value of futures) sum += await value;
  return { sum };
}

module.exports = { none, promise };
