// Pool (workloads/pool.toml): a pool of `pool_size` workers serves `jobs`
// jobs; job j looks up key j mod `keys` in a table made before the timing
// (key k holds 2k + 1) and returns its value. All jobs are submitted, then
// all are awaited, and the values summed.
"use strict";

const { Queue } = require("../lib/async.js");

/** The table the jobs look up, made before the timing. */
function poolTable(keys) {
  const table = new Map();
  for (let k = 0; k < keys; k++) table.set(k, 2 * k + 1);
  return table;
}

const sum = (values) => values.reduce((a, b) => a + b, 0);

/** The jobs called in place, one after another. */
async function none(run) {
  const { jobs, keys } = run.params;
  const table = poolTable(keys);
  const values = await run.timed(() => {
    const values = new Array(jobs);
    for (let job = 0; job < jobs; job++) values[job] = table.get(job % keys);
    return values;
  });
  return { sum: sum(values) };
}

/** `pool_size` async functions taking jobs from an unbounded queue (lib/async.js)
 *  until each takes the stop token pushed after the jobs; each job's value
 *  goes into its own slot. A pop from a queue that holds jobs settles at once
 *  but still yields to the microtask queue, so the workers take turns. */
async function promise(run) {
  const { pool_size: poolSize, jobs, keys } = run.params;
  const table = poolTable(keys);
  const units = run.units;
  const values = await run.timed(async () => {
    const values = new Array(jobs);
    const queue = new Queue(0);
    const worker = async () => {
      units.start();
      for (let job = await queue.pop(); job !== null; job = await queue.pop()) values[job] = table.get(job % keys);
      units.finish();
    };
    const workers = Array.from({ length: poolSize }, worker);
    for (let job = 0; job < jobs; job++) queue.push(job);
    for (let i = 0; i < poolSize; i++) queue.push(null);
    await Promise.all(workers);
    return values;
  });
  return { sum: sum(values) };
}

module.exports = { none, promise };
