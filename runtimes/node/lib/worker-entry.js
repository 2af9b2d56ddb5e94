// A worker thread's body (workers.js): the workload's entry, counted as a
// unit from its first act to its last; its value goes back to the caller.
"use strict";

const { workerData, parentPort } = require("node:worker_threads");
const { sharedUnits } = require("../kit.js");

async function main() {
  const units = sharedUnits(workerData.units);
  const body = require(workerData.file)[workerData.entry];
  units.start();
  const value = await body(workerData.data);
  units.finish();
  parentPort.postMessage(value);
}

main();
