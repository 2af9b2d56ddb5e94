// Ping-pong (workloads/ping-pong.toml): `pairs` pairs of units, each unit with
// an inbox. A pinger sends a count of 0 to its ponger, which sends back the
// count plus one; the pinger sends that plus one again until it has had
// `rounds` replies, then stops its ponger and reports the last count it
// received; the caller sums them.
"use strict";

const { MessageChannel } = require("node:worker_threads");
const { Queue } = require("../lib/async.js");
const fs = require("node:fs");
const { readEnd, writeEnd } = require("../lib/descriptors.js");
const { startWorker } = require("../lib/workers.js");
const { forkChild } = require("../lib/processes.js");
const { fifoEnds, sendCount, counts } = require("../lib/fifo.js");

const sum = (values) => values.reduce((a, b) => a + b, 0);

/** Each unit an async function with an inbox (an unbounded queue, lib/async.js);
 *  null stops the ponger. */
async function promise(run) {
  const { pairs, rounds } = run.params;
  const units = run.units;
  const pinger = async (inbox, partner) => {
    units.start();
    partner.push(0);
    let count;
    for (let reply = 1; reply <= rounds; reply++) {
      count = await inbox.pop();
      if (reply < rounds) partner.push(count + 1);
    }
    partner.push(null);
    units.finish();
    return count;
  };
  const ponger = async (inbox, partner) => {
    units.start();
    for (let count = await inbox.pop(); count !== null; count = await inbox.pop()) partner.push(count + 1);
    units.finish();
  };
  const games = Array.from({ length: pairs }, async () => {
    const [pings, pongs] = [new Queue(0), new Queue(0)]; // the ponger's inbox and the pinger's
    const [count] = await Promise.all([pinger(pongs, pings), ponger(pings, pongs)]);
    return count;
  });
  return { count: sum(await Promise.all(games)) };
}

/** A player's worker: the pinger sends the first count and answers each reply
 *  until it has had `rounds`, then sends the stop (null) and resolves with the
 *  last reply; the ponger answers each count until the stop (and resolves
 *  with it). Closing its inbox lets the worker's event loop end. */
function play({ pinger, rounds, inbox, partner }) {
  return new Promise((resolve) => {
    let replies = 0;
    inbox.on("message", (count) => {
      if (count === null || (pinger && ++replies === rounds)) {
        if (pinger) partner.postMessage(null);
        inbox.close();
        return resolve(count);
      }
      partner.postMessage(count + 1);
    });
    if (pinger) partner.postMessage(0);
  });
}

/** A Worker per player, each inbox a MessageChannel: a player holds its inbox
 *  and its partner's, whose messages its postMessage queues for it. */
async function worker(run) {
  const { pairs, rounds } = run.params;
  const games = Array.from({ length: pairs }, async () => {
    const [pings, pongs] = [new MessageChannel(), new MessageChannel()]; // the ponger's inbox and the pinger's
    const player = (pinger, inbox, partner) => startWorker(run, __filename, "play", { pinger, rounds, inbox, partner }, [inbox, partner]);
    const [count] = await Promise.all([player(true, pongs.port1, pings.port2), player(false, pings.port1, pongs.port2)]);
    return count;
  });
  return { count: sum(await Promise.all(games)) };
}

/** The process row's stop: a count the game never reaches. */
const STOP = 0xffffffff;

/** A player's child: its inbox is descriptor 3, its partner's pipe 4; the
 *  counts and the stop go as in the worker row (play). */
async function playOver({ pinger, rounds }) {
  const inbox = readEnd(3);
  const partner = writeEnd(4);
  if (pinger) sendCount(partner, 0);
  let replies = 0;
  let last;
  for await (const count of counts(inbox)) {
    if (count === STOP) break;
    if (pinger && ++replies === rounds) {
      last = count;
      sendCount(partner, STOP);
      break;
    }
    sendCount(partner, count + 1);
  }
  partner.end();
  return last;
}

/** A child process per player, each inbox a pipe (lib/fifo.js): a player reads
 *  its own and writes its partner's; the caller closes its copies once the
 *  children have them. */
async function processes(run) {
  const { pairs, rounds } = run.params;
  const games = Array.from({ length: pairs }, () => {
    const [pings, pongs] = fifoEnds(run.scratch, "ping-pong", 2); // the ponger's inbox and the pinger's
    const player = (pinger, inbox, partner) => forkChild(run, __filename, "playOver", { pinger, rounds }, [inbox, partner]);
    const game = Promise.all([player(true, pongs[0], pings[1]), player(false, pings[0], pongs[1])]);
    for (const fd of [...pings, ...pongs]) fs.closeSync(fd);
    return game.then(([count]) => count);
  });
  return { count: sum(await Promise.all(games)) };
}

module.exports = { promise, worker, process: processes, play, playOver };
