// Ring (workloads/ring.toml): `nodes` units form a ring, each knowing the
// next; the first starts a token whose count is 0, every pass adds one, and
// when the token reaches the first unit for the `laps`-th time it stops it
// and reports its count; then every unit is stopped and awaited.
"use strict";

const { MessageChannel } = require("node:worker_threads");
const { Queue } = require("../lib/async.js");
const fs = require("node:fs");
const { readEnd, writeEnd } = require("../lib/descriptors.js");
const { startWorker } = require("../lib/workers.js");
const { forkChild } = require("../lib/processes.js");
const { fifoEnds, sendCount, counts } = require("../lib/fifo.js");

/** Each node an async function with an inbox (an unbounded queue, lib/async.js);
 *  null stops a node, which passes it on. */
async function promise(run) {
  const { nodes, laps } = run.params;
  const units = run.units;
  const inboxes = Array.from({ length: nodes }, () => new Queue(0));
  const next = (i) => inboxes[(i + 1) % nodes];
  const node = async (i) => {
    units.start();
    for (let token = await inboxes[i].pop(); token !== null; token = await inboxes[i].pop()) next(i).push(token + 1);
    next(i).push(null);
    units.finish();
  };
  const first = async () => {
    units.start();
    next(0).push(1); // the token starts at 0, and this is its first pass
    let token;
    for (let lap = 1; lap <= laps; lap++) {
      token = await inboxes[0].pop();
      if (lap < laps) next(0).push(token + 1);
    }
    next(0).push(null); // goes round, stopping every node
    await inboxes[0].pop();
    units.finish();
    return token;
  };
  const others = Array.from({ length: nodes - 1 }, (_, i) => node(i + 1));
  const hops = await first();
  await Promise.all(others);
  return { hops };
}

/** A node's worker: it passes the token on from its inbox to the next node's
 *  until the stop (null), which it passes on too; the first node starts the
 *  token, counts its laps and, at the last, sends the stop round, and
 *  resolves with the count once the stop has come back. Closing its inbox
 *  when the stop has come lets the worker's event loop end. */
function pass({ first, laps, inbox, next }) {
  return new Promise((resolve) => {
    let lap = 0;
    let count;
    inbox.on("message", (token) => {
      if (token === null) {
        if (!first) next.postMessage(null);
        inbox.close();
        return resolve(count);
      }
      if (first && ++lap === laps) {
        count = token;
        return next.postMessage(null);
      }
      next.postMessage(token + 1);
    });
    if (first) next.postMessage(1); // the token starts at 0, and this is its first pass
  });
}

/** A Worker per node, each link a MessageChannel: a node holds its inbox and
 *  the next node's, whose messages its postMessage queues for it. */
async function worker(run) {
  const { nodes, laps } = run.params;
  const links = Array.from({ length: nodes }, () => new MessageChannel());
  const started = links.map((link, i) => {
    const next = links[(i + 1) % nodes].port2;
    return startWorker(run, __filename, "pass", { first: i === 0, laps, inbox: link.port1, next }, [link.port1, next]);
  });
  const [hops] = await Promise.all(started);
  return { hops };
}

/** The process row's stop token: a count the ring never reaches. */
const STOP = 0xffffffff;

/** A node's child: its inbox is descriptor 3, the next node's pipe 4; the
 *  token and the stop go round as in the worker row (pass). */
async function passOn({ first, laps }) {
  const inbox = readEnd(3);
  const next = writeEnd(4);
  const send = (count) => sendCount(next, count);
  if (first) send(1); // the token starts at 0, and this is its first pass
  let lap = 0;
  let count;
  for await (const token of counts(inbox)) {
    if (token === STOP) {
      if (!first) send(STOP);
      break;
    }
    if (first && ++lap === laps) {
      count = token;
      send(STOP);
    } else send(token + 1);
  }
  next.end();
  return count;
}

/** A child process per node, each link a pipe (lib/fifo.js): a node reads its
 *  own and writes the next node's; the caller closes its copies once the
 *  children have them. */
async function processes(run) {
  const { nodes, laps } = run.params;
  const pipes = fifoEnds(run.scratch, "ring", nodes);
  const started = pipes.map(([inbox], i) => {
    const next = pipes[(i + 1) % nodes][1];
    return forkChild(run, __filename, "passOn", { first: i === 0, laps }, [inbox, next]);
  });
  for (const ends of pipes) ends.forEach((fd) => fs.closeSync(fd));
  const [hops] = await Promise.all(started);
  return { hops };
}

module.exports = { promise, worker, process: processes, pass, passOn };
