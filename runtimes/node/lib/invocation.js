// invoke and invoke-waiting: one operation starts a unit whose body
// increments a counter (after yielding once, where the workload waits), and
// gets its result in the way `mode` says:
//   - await: start it, await it, next;
//   - batch: start a batch, then await them all;
//   - forget: start a batch, then yield once so that they can run; what is
//     still outstanding when the time box ends is awaited then (timed).
"use strict";

const { Refusal } = require("../kit.js");

/** The kit's batch for a mode, given start(), which starts one unit and returns its promise.
 *  Forgotten units are awaited after the time box: every batch's where they
 *  run on threads of their own (keepAll), the last batch's where they run on
 *  the caller's event loop, since the yield that ends a batch returns only
 *  after every continuation queued before it has run. */
function batches(run, start, keepAll) {
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
      await null; // one yield, to the microtask queue
    },
  };
  if (!loops[mode]) throw new Refusal(`unknown mode ${JSON.stringify(mode)}`);
  return { loop: loops[mode], outstanding: () => Promise.all(outstanding) };
}

/** The promise row: the unit is an async function called on the event loop.
 *  An async function runs in place up to its first await, so a body that
 *  does not wait ends before the call returns (one unit alive at a time);
 *  `await null` queues its rest on V8's microtask queue, which runs every
 *  queued continuation before the event loop turns again. */
async function invokePromises(run, waits) {
  const units = run.units;
  let count = 0;
  const body = waits
    ? async () => {
        units.start();
        await null;
        count++;
        units.finish();
      }
    : async () => {
        units.start();
        count++;
        units.finish();
      };
  const { loop, outstanding } = batches(run, body, false);
  await run.rate(loop);
  await outstanding();
  return { count };
}

module.exports = { batches, invokePromises };
