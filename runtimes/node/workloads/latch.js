// Countdown latch (workloads/latch.toml): `count` units serve every round;
// in each of `rounds` rounds the caller makes a latch of `count`, asks every
// unit to count it down once, and waits until it reaches zero. Unit k adds
// (k + 1) x (r + 1) for its count-down in round r to a tally of its own.
"use strict";

const { Queue } = require("../lib/async.js");
const { startWorker } = require("../lib/workers.js");
const { forkServer } = require("../lib/processes.js");

const MODULUS = 1_000_000_007;

/** A count-down latch for async functions: `reached` settles at zero. */
class Latch {
  constructor(count) {
    this.count = count;
    this.reached = new Promise((resolve) => (this.open = resolve));
  }

  countDown() {
    if (--this.count === 0) this.open();
  }
}

/** Each unit an async function taking the round's latch from an inbox of its
 *  own (a queue, lib/async.js); null stops it. */
async function promise(run) {
  const { count, rounds } = run.params;
  const units = run.units;
  const inboxes = Array.from({ length: count }, () => new Queue(0));
  const tallies = new Array(count).fill(0);
  const countdowns = new Array(count).fill(0);
  const unit = async (k) => {
    units.start();
    for (let latch = await inboxes[k].pop(), r = 0; latch !== null; latch = await inboxes[k].pop(), r++) {
      tallies[k] = (tallies[k] + (k + 1) * (r + 1)) % MODULUS;
      countdowns[k]++;
      latch.countDown();
    }
    units.finish();
  };
  const running = Array.from({ length: count }, (_, k) => unit(k));
  let woken = 0;
  for (let r = 0; r < rounds; r++) {
    const latch = new Latch(count);
    for (const inbox of inboxes) inbox.push(latch);
    await latch.reached;
    woken++;
  }
  for (const inbox of inboxes) inbox.push(null);
  await Promise.all(running);
  const total = (values) => values.reduce((a, b) => a + b, 0);
  return { rounds: woken, countdowns: total(countdowns), checksum: total(tallies) % MODULUS };
}

// The worker row's Int32 cells: the latch's count, and the round the caller
// has opened (STOPPED ends the units).
const COUNT = 0;
const ROUND = 1;
const STOPPED = -1;

/** A unit's worker: it sleeps in Atomics.wait until the caller opens the
 *  next round, counts the latch down, and wakes the caller at zero. */
function countDowns({ cells, k }) {
  let tally = 0;
  let countdowns = 0;
  for (let r = 0; ; r++) {
    Atomics.wait(cells, ROUND, r); // round r is open once ROUND has moved past r
    if (Atomics.load(cells, ROUND) === STOPPED) break;
    tally = (tally + (k + 1) * (r + 1)) % MODULUS;
    countdowns++;
    if (Atomics.sub(cells, COUNT, 1) === 1) Atomics.notify(cells, COUNT);
  }
  return { tally, countdowns };
}

/** A Worker per unit, the latch a count in a SharedArrayBuffer: the caller
 *  opens a round for all of them with one notify, and awaits zero with
 *  Atomics.waitAsync (its event loop keeps serving the workers). */
async function worker(run) {
  const { count, rounds } = run.params;
  const cells = new Int32Array(new SharedArrayBuffer(2 * 4));
  const running = Array.from({ length: count }, (_, k) => startWorker(run, __filename, "countDowns", { cells, k }));
  let woken = 0;
  for (let r = 0; r < rounds; r++) {
    Atomics.store(cells, COUNT, count);
    Atomics.store(cells, ROUND, r + 1);
    Atomics.notify(cells, ROUND);
    for (let left = Atomics.load(cells, COUNT); left !== 0; left = Atomics.load(cells, COUNT)) {
      await Atomics.waitAsync(cells, COUNT, left).value;
    }
    woken++;
  }
  Atomics.store(cells, ROUND, STOPPED);
  Atomics.notify(cells, ROUND);
  const units = await Promise.all(running);
  const total = (values) => values.reduce((a, b) => a + b, 0);
  return {
    rounds: woken,
    countdowns: total(units.map((unit) => unit.countdowns)),
    checksum: total(units.map((unit) => unit.tally)) % MODULUS,
  };
}

/** A child's count-downs, as a server (lib/processes.js): each request is a
 *  round, each reply the count-down with the unit's totals so far. */
function countDownOnRequest(k) {
  const totals = { tally: 0, countdowns: 0 };
  return (r) => {
    totals.tally = (totals.tally + (k + 1) * (r + 1)) % MODULUS;
    totals.countdowns++;
    return totals;
  };
}

/** A child process per unit. Processes share no latch object: as in
 *  erlang/process, a count-down is a unit's reply over its IPC channel to
 *  the round the caller sent it, and the caller waits until it has all
 *  `count` replies; each unit's last reply carries its totals. */
async function processes(run) {
  const { count, rounds } = run.params;
  const children = Array.from({ length: count }, (_, k) => forkServer(run, __filename, "countDownOnRequest", k));
  let woken = 0;
  let units = [];
  for (let r = 0; r < rounds; r++) {
    units = await Promise.all(children.map((child) => child.request(r)));
    woken++;
  }
  await Promise.all(children.map((child) => child.close()));
  const total = (values) => values.reduce((a, b) => a + b, 0);
  return {
    rounds: woken,
    countdowns: total(units.map((unit) => unit.countdowns)),
    checksum: total(units.map((unit) => unit.tally)) % MODULUS,
  };
}

module.exports = { promise, worker, process: processes, countDowns, countDownOnRequest };
