// Mutex - CPU-bound (workloads/mutex-cpu.toml): each group has a mutex and a
// counter; each of its `workers` units, in its iteration i of `iterations`:
// make the subject, "foobar" x 100 followed by i (a new string each time:
// JavaScriptCore answered a constant subject's match from a cache), lock,
// read the counter, match /foo(.+)$/ against the subject, write back the
// counter read plus the capture's length (597 plus i's digits), unlock. The
// pattern is compiled before the timing.
"use strict";

const { Mutex } = require("../lib/async.js");
const { SharedLock } = require("../lib/shared.js");
const { startWorker } = require("../lib/workers.js");

const PATTERN = /foo(.+)$/;
const PREFIX = "foobar".repeat(100);

const captured = (subject) => PATTERN.exec(subject)[1].length;

/** Async functions and an async mutex (lib/async.js). The critical section
 *  has no await: a worker that holds the lock runs to its unlock, and on to
 *  its next lock, without letting another run (see the manifest's note). */
async function promise(run) {
  const { groups, workers, iterations } = run.params;
  const units = run.units;
  const work = async (group) => {
    units.start();
    let contended = 0;
    for (let i = 0; i < iterations; i++) {
      const subject = `${PREFIX}${i}`;
      if (!group.mutex.tryLock()) {
        contended++;
        await group.mutex.lock();
      }
      const counter = group.counter;
      group.counter = counter + captured(subject);
      group.mutex.unlock();
    }
    units.finish();
    return contended;
  };
  const all = Array.from({ length: groups }, () => ({ mutex: new Mutex(), counter: 0 }));
  const contended = await Promise.all(all.flatMap((group) => Array.from({ length: workers }, () => work(group))));
  run.evidence({ contended: contended.reduce((a, b) => a + b, 0) });
  return { sum: all.reduce((total, group) => total + group.counter, 0) };
}

/** A worker's loop: the group's lock and counter are in SharedArrayBuffers. */
function lockedWork({ lock, counter, iterations }) {
  const mutex = new SharedLock(lock);
  let contended = 0;
  for (let i = 0; i < iterations; i++) {
    const subject = `${PREFIX}${i}`;
    if (!mutex.tryLock()) {
      contended++;
      mutex.lock();
    }
    const value = counter[0];
    counter[0] = value + captured(subject);
    mutex.unlock();
  }
  return contended;
}

/** A Worker per unit, each with its own copy of the compiled pattern (a
 *  RegExp cannot be shared between isolates): Atomics lock, and the counter
 *  read and written under it. */
async function worker(run) {
  const { groups, workers, iterations } = run.params;
  const all = Array.from({ length: groups }, () => ({
    lock: new SharedLock().cells,
    counter: new Float64Array(new SharedArrayBuffer(8)),
  }));
  const contended = await run.timed(() =>
    Promise.all(
      all.flatMap((group) => Array.from({ length: workers }, () => startWorker(run, __filename, "lockedWork", { ...group, iterations }))),
    ),
  );
  run.evidence({ contended: contended.reduce((a, b) => a + b, 0) });
  return { sum: all.reduce((total, group) => total + group.counter[0], 0) };
}

module.exports = { promise, worker, lockedWork };
