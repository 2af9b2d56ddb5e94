// The smallest idiomatic Node program of spawn's task shape (docs/findings.md,
// "The million-task table"): start TASKS async functions that each sleep
// DELAY_MS and return their index, await them all, print the sum.
// spawn_promise_bare_timer.js is the same without the async function.
// Usage: node spawn_promise_async_fn.js TASKS DELAY_MS
"use strict";

const { setTimeout: sleep } = require("node:timers/promises");

async function unit(i, delayMs) {
  await sleep(delayMs);
  return i;
}

async function main(tasks, delayMs) {
  const values = await Promise.all(Array.from({ length: tasks }, (_, i) => unit(i, delayMs)));
  console.log(values.reduce((a, b) => a + b, 0));
}

main(Number(process.argv[2]), Number(process.argv[3]));
