// 10,000 tasks (workloads/spawn.toml): start `tasks` units at once; unit i
// sleeps `delay_ms` (if more than 0) and returns i; await them all and sum
// what they returned. Every mechanism starts every unit before it awaits the
// first, so the sleeps overlap.
"use strict";

const { setTimeout: sleep } = require("node:timers/promises");
const { startWorker } = require("../lib/workers.js");
const { forkChild } = require("../lib/processes.js");

/** A unit's body, on any thread or process. */
async function work({ i, delayMs }) {
  if (delayMs > 0) await sleep(delayMs);
  return i;
}

/** An async function per unit; a sleep is a timer on the event loop. The
 *  body sleeps itself rather than awaiting work(): a second async frame per
 *  unit cost 450 MB more at a million units (1,394 MB against 941). */
async function promise({ params, units }) {
  const { tasks, delay_ms: delayMs } = params;
  const unit = async (i) => {
    units.start();
    if (delayMs > 0) await sleep(delayMs);
    units.finish();
    return i;
  };
  const values = await Promise.all(Array.from({ length: tasks }, (_, i) => unit(i)));
  return { sum: values.reduce((a, b) => a + b, 0) };
}

async function worker(run) {
  const { tasks, delay_ms: delayMs } = run.params;
  const values = await Promise.all(Array.from({ length: tasks }, (_, i) => startWorker(run, __filename, "work", { i, delayMs })));
  return { sum: values.reduce((a, b) => a + b, 0) };
}

async function processes(run) {
  const { tasks, delay_ms: delayMs } = run.params;
  const values = await Promise.all(Array.from({ length: tasks }, (_, i) => forkChild(run, __filename, "work", { i, delayMs })));
  return { sum: values.reduce((a, b) => a + b, 0) };
}

module.exports = { work, promise, worker, process: processes };
