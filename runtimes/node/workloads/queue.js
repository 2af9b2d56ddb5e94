// Queue (workloads/queue.toml): each group's `producers` push 1..`items`
// into its queue of at most `capacity` items (0: no bound); once every
// producer is done, one stop token per consumer is pushed; its `consumers`
// pop until they get one, counting and summing what they popped.
"use strict";

const { Queue, EMPTY } = require("../lib/async.js");

/** Async functions around a bounded queue (lib/async.js); a push that found
 *  it full or a pop that found it empty is blocked, and awaits. */
async function promise(run) {
  const { groups, producers, consumers, items, capacity } = run.params;
  const units = run.units;
  const produce = async (queue) => {
    units.start();
    let blocked = 0;
    for (let item = 1; item <= items; item++) {
      if (!queue.tryPush(item)) {
        blocked++;
        await queue.push(item);
      }
    }
    units.finish();
    return blocked;
  };
  const consume = async (queue) => {
    units.start();
    let count = 0;
    let sum = 0;
    let blocked = 0;
    for (;;) {
      let item = queue.tryPop();
      if (item === EMPTY) {
        blocked++;
        item = await queue.pop();
      }
      if (item === null) break;
      count++;
      sum += item;
    }
    units.finish();
    return { count, sum, blocked };
  };
  const group = async () => {
    const queue = new Queue(capacity);
    const consuming = Array.from({ length: consumers }, () => consume(queue));
    const pushers = await Promise.all(Array.from({ length: producers }, () => produce(queue)));
    for (let i = 0; i < consumers; i++) await queue.push(null);
    const popped = await Promise.all(consuming);
    return { pushers, popped };
  };
  const done = await Promise.all(Array.from({ length: groups }, group));
  const totals = { count: 0, sum: 0, blocked: 0 };
  for (const { pushers, popped } of done) {
    for (const blocked of pushers) totals.blocked += blocked;
    for (const { count, sum, blocked } of popped) {
      totals.count += count;
      totals.sum += sum;
      totals.blocked += blocked;
    }
  }
  run.evidence({ blocked: totals.blocked });
  return { count: totals.count, sum: totals.sum };
}

module.exports = { promise };
