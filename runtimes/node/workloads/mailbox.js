// Mailbox (workloads/mailbox.toml): a sender unit sends the payloads
// 1..`messages` in order to a receiver unit's mailbox of at most `capacity`
// messages (0: no bound); the receiver takes them all, counting, summing and
// adding k x payload of its k-th message to a checksum modulo 1,000,000,007.
"use strict";

const { Queue, EMPTY } = require("../lib/async.js");
const { SharedQueue } = require("../lib/shared.js");
const { startWorker } = require("../lib/workers.js");

const MODULUS = 1_000_000_007;
const BIG_MODULUS = BigInt(MODULUS);

/** The receiver's totals. The checksum's step adds k x payload, at most
 *  messages^2, to a value under the modulus: in plain numbers while that
 *  stays an exact integer (messages up to about 94.9 million, every
 *  profile's), in BigInt only beyond (the spec allows 100 million). The sum,
 *  at most 5.0e15, is exact in a number either way. */
function receiver(messages) {
  const exact = messages * messages + MODULUS <= Number.MAX_SAFE_INTEGER;
  const totals = { count: 0, sum: 0, ordered: exact ? 0 : 0n };
  const take = exact
    ? (payload) => {
        totals.count++;
        totals.sum += payload;
        totals.ordered = (totals.ordered + totals.count * payload) % MODULUS;
      }
    : (payload) => {
        totals.count++;
        totals.sum += payload;
        totals.ordered = (totals.ordered + BigInt(totals.count) * BigInt(payload)) % BIG_MODULUS;
      };
  return { totals, take };
}

/** Two async functions and a mailbox that is a bounded queue (lib/async.js). */
async function promise(run) {
  const { messages, capacity } = run.params;
  const units = run.units;
  const mailbox = new Queue(capacity);
  const sender = async () => {
    units.start();
    let blocked = 0;
    for (let payload = 1; payload <= messages; payload++) {
      if (!mailbox.tryPush(payload)) {
        blocked++;
        await mailbox.push(payload);
      }
    }
    units.finish();
    return blocked;
  };
  const receive = async () => {
    units.start();
    const { totals, take } = receiver(messages);
    let blocked = 0;
    for (let k = 0; k < messages; k++) {
      let payload = mailbox.tryPop();
      if (payload === EMPTY) {
        blocked++;
        payload = await mailbox.pop();
      }
      take(payload);
    }
    units.finish();
    return { totals, blocked };
  };
  const [sent, received] = await Promise.all([sender(), receive()]);
  run.evidence({ blocked: sent + received.blocked });
  const { count, sum, ordered } = received.totals;
  return { count, sum, ordered: Number(ordered) };
}

/** The sender worker: its sends that found the mailbox full. */
function send({ views, messages }) {
  const mailbox = new SharedQueue(0, views);
  let blocked = 0;
  for (let payload = 1; payload <= messages; payload++) {
    if (!mailbox.tryPush(payload)) {
      blocked++;
      mailbox.push(payload);
    }
  }
  return blocked;
}

/** The receiver worker: its totals, and its takes that found the mailbox empty. */
function receive({ views, messages }) {
  const mailbox = new SharedQueue(0, views);
  const { totals, take } = receiver(messages);
  let blocked = 0;
  for (let k = 0; k < messages; k++) {
    let payload = mailbox.tryPop();
    if (payload === undefined) {
      blocked++;
      payload = mailbox.pop();
    }
    take(payload);
  }
  return { totals, blocked };
}

/** Two Workers and a mailbox that is a SharedQueue (lib/shared.js): its slots
 *  are a SharedArrayBuffer's, so with capacity 0 (no bound) it has room for
 *  every message, and no send waits. A MessagePort has no bound at all, but
 *  nothing tells a take from it that waited from one that did not. */
async function worker(run) {
  const { messages, capacity } = run.params;
  const mailbox = new SharedQueue(capacity || messages);
  const start = (entry) => startWorker(run, __filename, entry, { views: mailbox.views, messages });
  const [sent, received] = await Promise.all([start("send"), start("receive")]);
  run.evidence({ blocked: sent + received.blocked });
  const { count, sum, ordered } = received.totals;
  return { count, sum, ordered: Number(ordered) };
}

module.exports = { promise, worker, send, receive, receiver };
