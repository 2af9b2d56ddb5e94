// Child processes as units: forkChild runs exports[entry](data) of a
// workload file in a forked Node process (child-entry.js, child_process.fork
// with an IPC channel), which stamps its body and, in the runs that account
// for memory, reads its private memory (Private_Clean + Private_Dirty of
// /proc/self/smaps_rollup) just before it answers, as the Ruby kit's
// Kit.fork does. The promise settles once the child has exited and been
// reaped, with the value the body returned; the stamps go to the run's units
// and the memory to the trial's tree_rss_kb (kit.js, Trial).
//
// forkServer forks the same child as a server (a pool's worker): its body
// returns a handler, which answers each request sent over the channel, one
// message each way, until close() tells it to stop; its stamps span the
// whole service, and it answers and is reaped as forkChild's child is.
//
// FORK_ACCOUNTING_COST: reading smaps_rollup costs the child the kernel's
// walk of its page tables (about 0.3 ms for a Node process here), next to
// the tens of milliseconds of starting one: it is read only in the runs
// whose times are discarded, and in the timed run of a trial without
// warm-up (spawn).
"use strict";

const path = require("node:path");
const { isMainThread } = require("node:worker_threads");
const { Fifo } = require("./async.js");

// node:child_process, in the trial's own process only: a worker or a forked
// child (the one with an IPC channel) loads this module with its workload's
// file for its body, and forks nothing. Loading it cost each worker about 6
// ms of CPU as it started: pool's worker row, 100 workers a run, took 4.87 s
// of CPU a trial with it and 4.24 without (Node 20, medians of 5).
const childProcess = isMainThread && process.send === undefined ? require("node:child_process") : null;

const ENTRY = path.join(__dirname, "child-entry.js");

/** Forks the child and hands it its work; `done` settles once it has exited
 *  and been reaped, with its body's value. onReply: a server's, called with
 *  each reply in order. */
function start(run, file, entry, data, fds, onReply) {
  const child = childProcess.fork(ENTRY, [], { stdio: ["ignore", 2, 2, ...fds, "ipc"], serialization: "advanced" });
  run.trial.forked();
  child.send({ file, entry, data, accountMemory: run.trial.accountMemory, serves: onReply !== undefined });
  const answered = new Promise((resolve) =>
    child.on("message", (message) => ("reply" in message ? onReply(message.reply) : resolve(message))),
  );
  const exited = new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) => resolve(code === 0 ? null : `child ${child.pid} failed: ${signal ?? code}`));
  });
  const done = exited.then(async (failure) => {
    if (failure) throw new Error(failure);
    const answer = await answered; // sent before the child exited: the channel delivers it
    run.trial.reaped(answer.privateKb);
    run.units.spans([[answer.start, answer.stop]]);
    return answer.value;
  });
  return { child, done };
}

/** fds: descriptors the child gets as 3, 4, ... (pipes, sockets). */
function forkChild(run, file, entry, data, fds = []) {
  return start(run, file, entry, data, fds).done;
}

/** A child serving requests: exports[entry](data) returns, without awaiting,
 *  the handler child-entry.js calls with each request, in order, its value
 *  the reply. request(message) resolves with the reply; close() tells the
 *  child to stop and settles as forkChild's promise does. */
function forkServer(run, file, entry, data) {
  const waiting = new Fifo(); // the requests' settlers, in the order sent
  const { child, done } = start(run, file, entry, data, [], (reply) => waiting.shift().resolve(reply));
  done.catch((error) => {
    while (waiting.length) waiting.shift().reject(error);
  });
  return {
    request(message) {
      return new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        child.send(message);
      });
    },
    close() {
      child.send(null); // the stop: a request is never null
      return done;
    },
  };
}

module.exports = { childProcess, forkChild, forkServer };
