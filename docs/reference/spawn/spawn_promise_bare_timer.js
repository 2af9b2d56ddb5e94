// The anchors' Node program (a promisified setTimeout per task, no code of
// its own; docs/findings.md, "The million-task table"): start TASKS timers of
// DELAY_MS that each resolve to their index, await them all, print the sum.
// spawn_promise_async_fn.js is spawn's shape: an async function per task.
// Usage: node spawn_promise_bare_timer.js TASKS DELAY_MS
"use strict";

const { setTimeout: sleep } = require("node:timers/promises");

async function main(tasks, delayMs) {
  const values = await Promise.all(Array.from({ length: tasks }, (_, i) => sleep(delayMs, i)));
  console.log(values.reduce((a, b) => a + b, 0));
}

main(Number(process.argv[2]), Number(process.argv[3]));
