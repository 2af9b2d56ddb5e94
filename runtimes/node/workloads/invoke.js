// Mere invocation (workloads/invoke.toml): one operation starts a unit whose
// body increments a counter and gets its result, in the way `mode` says;
// the plain call (none) is the baseline.
"use strict";

const { batches, invokePromises, loopYield } = require("../lib/invocation.js");
const { startWorker } = require("../lib/workers.js");

const increment = (state) => state.count++;

/** The body called in place, the same call in every mode (V8 may inline it, as a compiler would). */
async function none(run) {
  const { batch } = run.params;
  const state = { count: 0 };
  await run.rate(() => {
    for (let i = 0; i < batch; i++) increment(state);
  });
  return { count: state.count };
}

const promise = (run) => invokePromises(run, false, loopYield);

/** A worker's body: the counter is a SharedArrayBuffer's, added to atomically. */
function incrementShared(counter) {
  Atomics.add(counter, 0, 1);
}

/** A Worker per operation; in forget mode the caller yields through its
 *  event loop, where the workers' messages and exits are handled. */
async function worker(run) {
  const counter = new Int32Array(new SharedArrayBuffer(4));
  const { loop, outstanding } = batches(run, () => startWorker(run, __filename, "incrementShared", counter), loopYield, true);
  await run.rate(loop);
  await outstanding();
  return { count: Atomics.load(counter, 0) };
}

module.exports = { none, promise, worker, incrementShared };
