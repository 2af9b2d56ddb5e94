// A forked child's body (processes.js): it takes its work from the IPC
// channel, stamps it, and answers with the value, the stamps and its private
// memory, then leaves.
"use strict";

const fs = require("node:fs");
const { stamp } = require("../kit.js");

const PRIVATE = /^Private_(?:Clean|Dirty):\s+(\d+)/gm;

function privateKb() {
  return [...fs.readFileSync("/proc/self/smaps_rollup", "utf8").matchAll(PRIVATE)].reduce((sum, m) => sum + Number(m[1]), 0);
}

process.once("message", async ({ file, entry, data, accountMemory }) => {
  const body = require(file)[entry];
  const start = stamp();
  const value = await body(data);
  const stop = stamp();
  process.send({ value, start, stop, privateKb: accountMemory ? privateKb() : 0 }, () => process.disconnect());
});
