// Child processes as units: forkChild runs exports[entry](data) of a
// workload file in a forked Node process (child-entry.js, child_process.fork
// with an IPC channel), which stamps its body and, in the runs that account
// for memory, reads its private memory (Private_Clean + Private_Dirty of
// /proc/self/smaps_rollup) just before it answers, as the Ruby kit's
// Kit.fork does. The promise settles once the child has exited and been
// reaped, with the value the body returned; the stamps go to the run's units
// and the memory to the trial's tree_rss_kb (kit.js, Trial).
//
// FORK_ACCOUNTING_COST: reading smaps_rollup costs the child the kernel's
// walk of its page tables (about 0.3 ms for a Node process here), next to
// the tens of milliseconds of starting one: it is read only in the runs
// whose times are discarded, and in the timed run of a trial without
// warm-up (spawn).
"use strict";

const path = require("node:path");
const { fork } = require("node:child_process");

const ENTRY = path.join(__dirname, "child-entry.js");

/** fds: descriptors the child gets as 3, 4, ... (pipes, sockets). */
function forkChild(run, file, entry, data, fds = []) {
  const child = fork(ENTRY, [], { stdio: ["ignore", 2, 2, ...fds, "ipc"], serialization: "advanced" });
  run.trial.forked();
  child.send({ file, entry, data, accountMemory: run.trial.accountMemory });
  const answered = new Promise((resolve) => child.once("message", resolve));
  const exited = new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) => resolve(code === 0 ? null : `child ${child.pid} failed: ${signal ?? code}`));
  });
  return exited.then(async (failure) => {
    if (failure) throw new Error(failure);
    const answer = await answered; // sent before the child exited: the channel delivers it
    run.trial.reaped(answer.privateKb);
    run.units.spans([[answer.start, answer.stop]]);
    return answer.value;
  });
}

module.exports = { forkChild };
