// A forked child's body (processes.js): it takes its work from the IPC
// channel, stamps it, and answers with the value, the stamps and its private
// memory, then leaves. A server (forkServer) first answers each request with
// its handler's value, until the stop (null).
"use strict";

const fs = require("node:fs");
const { stamp } = require("../kit.js");

const PRIVATE = /^Private_(?:Clean|Dirty):\s+(\d+)/gm;

function privateKb() {
  return [...fs.readFileSync("/proc/self/smaps_rollup", "utf8").matchAll(PRIVATE)].reduce((sum, m) => sum + Number(m[1]), 0);
}

/** Replies to each request with handler(request) until the stop. Its
 *  listener is on before the work's message handler returns: the channel
 *  emits the requests that came with the work right after it, and a message
 *  that finds no listener is lost. */
function serve(handler) {
  return new Promise((resolve) => {
    process.on("message", function answer(request) {
      if (request !== null) process.send({ reply: handler(request) });
      else {
        process.off("message", answer);
        resolve();
      }
    });
  });
}

process.once("message", async ({ file, entry, data, accountMemory, serves }) => {
  const body = require(file)[entry];
  const start = stamp();
  const value = await (serves ? serve(body(data)) : body(data));
  const stop = stamp();
  process.send({ value, start, stop, privateKb: accountMemory ? privateKb() : 0 }, () => process.disconnect());
});
