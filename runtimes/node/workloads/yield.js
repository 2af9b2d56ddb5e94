// Mere waiting: wait 0 (workloads/yield.toml): one operation, the measured
// unit yields to its scheduler and is resumed; `partners` more units yield
// in a loop beside it. Every unit adds one to a shared turn counter each
// time it runs; a yield after which the counter has moved is switched.
"use strict";

/** The measured unit is the async function running the kit's loop, and a
 *  yield is `await null`: its rest goes to the back of V8's microtask queue,
 *  which runs every continuation queued before it (the partners') and no
 *  I/O, timer or setImmediate callback, which wait for the event loop to
 *  turn once the queue is empty. V8's queue is no code of ours, so only the
 *  units move the counter: a lone unit's yield switches to nothing. */
async function promise(run) {
  const { batch, partners } = run.params;
  const units = run.units;
  let turn = 0;
  let stop = false;
  const partner = async () => {
    units.start();
    while (!stop) {
      turn++;
      await null;
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
      await null;
      yields++;
      if (turn !== seen) switched++;
    }
  });
  units.finish();
  stop = true;
  await Promise.all(running);
  run.evidence({ switched });
  return { count: yields };
}

module.exports = { promise };
