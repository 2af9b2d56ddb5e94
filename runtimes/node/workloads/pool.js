// Pool (workloads/pool.toml): a pool of `pool_size` workers serves `jobs`
// jobs; job j looks up key j mod `keys` in a table made before the timing
// (key k holds 2k + 1; prepare, once a trial) and returns its value. All jobs are submitted, then
// all are awaited, and the values summed.
"use strict";

const { Queue } = require("../lib/async.js");
const { SharedQueue } = require("../lib/shared.js");
const { startWorker } = require("../lib/workers.js");
const { forkServer } = require("../lib/processes.js");

/** The table the jobs look up, made once a trial, before the first run (run.prepared):
 *  made before every run, its 10,000 keys cost more than a short run's work, in every
 *  repetition of a calibrated trial. */
function prepare({ keys }) {
  const table = new Map();
  for (let k = 0; k < keys; k++) table.set(k, 2 * k + 1);
  return table;
}

const sum = (values) => values.reduce((a, b) => a + b, 0); // an Array or a Float64Array

/** The jobs called in place, one after another. */
async function none(run) {
  const { jobs, keys } = run.params;
  const table = run.prepared;
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
  const table = run.prepared;
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

/** What a worker takes as its stop token: the jobs are 0..jobs - 1. */
const STOP = -1;

/** A pool worker: takes jobs until the stop token, each value into its job's slot. */
function serve({ views, table, values }) {
  const queue = new SharedQueue(0, views);
  for (let job = queue.pop(); job !== STOP; job = queue.pop()) values[job] = table[job % table.length];
}

/** `pool_size` Workers taking jobs from a SharedQueue (lib/shared.js) with
 *  room for every job and stop token, so that submitting never waits; the
 *  table is a SharedArrayBuffer's (a Map cannot be shared between isolates),
 *  made before the timing, and so are the values' slots. */
async function worker(run) {
  const { pool_size: poolSize, jobs, keys } = run.params;
  const table = new Int32Array(new SharedArrayBuffer(keys * 4));
  for (let k = 0; k < keys; k++) table[k] = 2 * k + 1;
  const values = new Float64Array(new SharedArrayBuffer(jobs * 8));
  await run.timed(async () => {
    const queue = new SharedQueue(jobs + poolSize);
    const workers = Array.from({ length: poolSize }, () => startWorker(run, __filename, "serve", { views: queue.views, table, values }));
    for (let job = 0; job < jobs; job++) queue.push(job);
    for (let i = 0; i < poolSize; i++) queue.push(STOP);
    await Promise.all(workers);
  });
  return { sum: sum(values) };
}

/** A pool child's handler (forkServer): each request is a job, its reply the job's value. */
const lookUp = (table) => (job) => table[job % table.length];

/** `pool_size` children forked as servers (lib/processes.js), each answering
 *  one job at a time over its IPC channel, one message each way. A child
 *  shares nothing with its parent (fork starts a new Node process), so the
 *  table, made before the timing as the worker row's is, goes to each child
 *  in the message that starts it. The pool hands each job to a child that is
 *  free: a driver per child pops jobs from an unbounded queue (lib/async.js),
 *  as the promise row's workers do, sends each to its child and awaits the
 *  value into the job's slot; at the stop token it closes its child and
 *  awaits its exit. */
async function processes(run) {
  const { pool_size: poolSize, jobs, keys } = run.params;
  const table = new Int32Array(keys);
  for (let k = 0; k < keys; k++) table[k] = 2 * k + 1;
  const values = await run.timed(async () => {
    const values = new Array(jobs);
    const queue = new Queue(0);
    const drive = async (child) => {
      for (let job = await queue.pop(); job !== null; job = await queue.pop()) values[job] = await child.request(job);
      await child.close();
    };
    const children = Array.from({ length: poolSize }, () => forkServer(run, __filename, "lookUp", table));
    const drivers = children.map(drive);
    for (let job = 0; job < jobs; job++) queue.push(job);
    for (let i = 0; i < poolSize; i++) queue.push(null);
    await Promise.all(drivers);
    return values;
  });
  return { sum: sum(values) };
}

module.exports = { prepare, none, promise, worker, process: processes, serve, lookUp };
