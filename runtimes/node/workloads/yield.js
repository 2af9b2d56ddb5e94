// Mere waiting: wait 0 (workloads/yield.toml): one operation, the measured
// unit yields to its scheduler and is resumed; `partners` more units yield
// in a loop beside it. Every unit adds one to a shared turn counter each
// time it runs; a yield after which the counter has moved is switched.
"use strict";

const { loopYield, microtaskHop } = require("../lib/invocation.js");

/** The measured unit is the async function running the kit's loop, and a
 *  yield is scheduler.yield() (timers/promises): a setImmediate, so the
 *  unit resumes in the event loop's next check phase, after the partners'
 *  immediates queued before it and after a poll for I/O. As with asyncio,
 *  with no partner `switched` is not observable (null): the loop runs
 *  nothing of ours that could see it. */
const promise = (run) => yields(run, loopYield, run.params.partners > 0);

/** The same units, but a yield is `await null`: the unit's rest goes to the
 *  back of V8's microtask queue, which runs every continuation queued
 *  before it (the partners') and nothing of the event loop: no I/O, timer
 *  or setImmediate callback runs until the queue is empty. V8's queue is no
 *  code of ours, so only the units move the counter: a lone unit's yield
 *  switches to nothing (0). */
const microtask = (run) => yields(run, microtaskHop, true);

/** The rate loop with `pause()` awaited as the yield, beside the partners. */
async function yields(run, pause, observable) {
  const { batch, partners } = run.params;
  const units = run.units;
  let turn = 0;
  let stop = false;
  const partner = async () => {
    units.start();
    while (!stop) {
      turn++;
      await pause();
    }
    units.finish();
  };
  const running = Array.from({ length: partners }, partner);
  units.start();
  let yields = 0;
  let switched = 0;
  await run.rate(async () => {
    for (let i = 0; i < batch; i++) {
      const seen = ++turn;
      await pause();
      yields++;
      if (turn !== seen) switched++;
    }
  });
  units.finish();
  stop = true;
  await Promise.all(running);
  run.evidence({ switched: observable ? switched : null });
  return { count: yields };
}

module.exports = { promise, microtask };
