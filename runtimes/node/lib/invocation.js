// invoke and invoke-waiting: one operation starts a unit whose body
// increments a counter (after yielding once, where the workload waits), and
// gets its result in the way `mode` says:
//   - await: start it, await it, next;
//   - batch: start a batch, then await them all;
//   - forget: start a batch, then yield once so that they can run; what is
//     still outstanding when the time box ends is awaited then (timed).
"use strict";

const { scheduler } = require("node:timers/promises");
const { Refusal } = require("../kit.js");

/** A yield through the event loop: scheduler.yield() is a setImmediate, so
 *  the caller resumes in the loop's next check phase, after the immediates
 *  queued before it and after a poll for I/O, as asyncio.sleep(0) resumes
 *  after the loop's ready callbacks and its select. */
const loopYield = () => scheduler.yield();

/** Not a yield to the event loop: awaiting null queues the caller's rest on
 *  V8's microtask queue, which runs every continuation queued before it and
 *  nothing of the loop (no I/O, timer or immediate until it is empty). */
const microtaskHop = () => null;

/** The kit's batch for a mode, given start(), which starts one unit and
 *  returns its promise, and pause(), awaited as the caller's yield.
 *  Forgotten units are awaited after the time box: every batch's where they
 *  run on threads of their own (keepAll), the last batch's where they run on
 *  the caller's event loop, since the yield that ends a batch returns only
 *  after every continuation queued before it has run (the units' own yields
 *  are the same kind as the caller's, queued before it). */
function batches(run, start, pause, keepAll) {
  const { batch, mode } = run.params;
  let outstanding = [];
  const loops = {
    await: async () => {
      for (let i = 0; i < batch; i++) await start();
    },
    batch: () => {
      const started = new Array(batch);
      for (let i = 0; i < batch; i++) started[i] = start();
      return Promise.all(started);
    },
    forget: async () => {
      if (!keepAll) outstanding = [];
      for (let i = 0; i < batch; i++) outstanding.push(start());
      await pause();
    },
  };
  if (!loops[mode]) throw new Refusal(`unknown mode ${JSON.stringify(mode)}`);
  return { loop: loops[mode], outstanding: () => Promise.all(outstanding) };
}

/** The promise and microtask rows: the unit is an async function called on
 *  the event loop. An async function runs in place up to its first await,
 *  so a body that does not wait ends before the call returns (one unit alive
 *  at a time); one that waits awaits pause() (loopYield or microtaskHop),
 *  as the caller does in forget mode. */
async function invokePromises(run, waits, pause) {
  const units = run.units;
  let count = 0;
  const body = waits
    ? async () => {
        units.start();
        await pause();
        count++;
        units.finish();
      }
    : async () => {
        units.start();
        count++;
        units.finish();
      };
  const { loop, outstanding } = batches(run, body, pause, false);
  await run.rate(loop);
  await outstanding();
  return { count };
}

module.exports = { batches, invokePromises, loopYield, microtaskHop };
