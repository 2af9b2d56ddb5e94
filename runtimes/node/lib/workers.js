// Worker threads as units: startWorker runs exports[entry](data) of a
// workload file on a new worker thread (worker-entry.js), which counts
// itself on the run's shared counters as it starts and finishes its body.
// The promise it returns settles once the thread has exited, with the value
// the body returned: a mechanism that awaits its workers leaves none behind.
"use strict";

const path = require("node:path");
const { Worker } = require("node:worker_threads");

const ENTRY = path.join(__dirname, "worker-entry.js");

/** transfer: what data holds that moves to the worker (MessagePorts). */
function startWorker(run, file, entry, data, transfer = []) {
  const worker = new Worker(ENTRY, { workerData: { file, entry, data, units: run.units.shared }, transferList: transfer });
  return new Promise((resolve, reject) => {
    let value;
    worker.once("message", (message) => (value = message));
    worker.once("error", reject);
    worker.once("exit", (code) => (code === 0 ? resolve(value) : reject(new Error(`worker exited with ${code}`))));
  });
}

module.exports = { startWorker };
