// Queue (workloads/queue.toml): each group's `producers` push 1..`items`
// into its queue of at most `capacity` items (0: no bound); once every
// producer is done, one stop token per consumer is pushed; its `consumers`
// pop until they get one, counting and summing what they popped.
"use strict";

const { Queue, EMPTY } = require("../lib/async.js");
const { SharedQueue } = require("../lib/shared.js");
const { startWorker } = require("../lib/workers.js");

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
  return totals(run, done);
}

/** The groups' counts and sums, and the blocked pushes and pops as evidence. */
function totals(run, done) {
  const sums = { count: 0, sum: 0, blocked: 0 };
  for (const { pushers, popped } of done) {
    for (const blocked of pushers) sums.blocked += blocked;
    for (const { count, sum, blocked } of popped) {
      sums.count += count;
      sums.sum += sum;
      sums.blocked += blocked;
    }
  }
  run.evidence({ blocked: sums.blocked });
  return { count: sums.count, sum: sums.sum };
}

/** What a consumer takes as its stop token: the items are 1..items. */
const STOP = 0;

/** A producer worker: its pushes that found the queue full. */
function produce({ views, items }) {
  const queue = new SharedQueue(0, views);
  let blocked = 0;
  for (let item = 1; item <= items; item++) {
    if (!queue.tryPush(item)) {
      blocked++;
      queue.push(item);
    }
  }
  return blocked;
}

/** A consumer worker: what it popped, and its pops that found the queue empty. */
function consume({ views }) {
  const queue = new SharedQueue(0, views);
  let count = 0;
  let sum = 0;
  let blocked = 0;
  for (;;) {
    let item = queue.tryPop();
    if (item === undefined) {
      blocked++;
      item = queue.pop();
    }
    if (item === STOP) break;
    count++;
    sum += item;
  }
  return { count, sum, blocked };
}

/** A Worker per unit around a SharedQueue (lib/shared.js: Atomics.wait while
 *  it is full or empty). Its slots are a SharedArrayBuffer's, so it always
 *  has a bound: with capacity 0 (no bound) it has room for every item and
 *  stop token of its group, so that no push waits. The caller pushes the
 *  stop tokens once the producers have exited. */
async function worker(run) {
  const { groups, producers, consumers, items, capacity } = run.params;
  const group = async () => {
    const queue = new SharedQueue(capacity || producers * items + consumers);
    const start = (entry) => startWorker(run, __filename, entry, { views: queue.views, items });
    const consuming = Array.from({ length: consumers }, () => start("consume"));
    const pushers = await Promise.all(Array.from({ length: producers }, () => start("produce")));
    for (let i = 0; i < consumers; i++) queue.push(STOP);
    return { pushers, popped: await Promise.all(consuming) };
  };
  const done = await Promise.all(Array.from({ length: groups }, group));
  return totals(run, done);
}

module.exports = { promise, worker, produce, consume };
