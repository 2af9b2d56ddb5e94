// Node's standard library has no pipe(2): a pipe is a FIFO, made with
// mkfifo(1) and opened at both ends before the timing (its name then
// removed), non-blocking, for net.Socket handles (libuv's pipe handles).
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const { execFileSync } = require("node:child_process");

/** `count` pipes named after `name` in the scratch directory: [reader, writer] descriptors each. */
function fifoEnds(scratch, name, count) {
  return Array.from({ length: count }, (_, i) => {
    const fifo = path.join(scratch, `${name}-${i}`);
    execFileSync("mkfifo", [fifo]);
    const ends = [fs.constants.O_RDONLY, fs.constants.O_WRONLY].map((mode) => fs.openSync(fifo, mode | fs.constants.O_NONBLOCK));
    fs.unlinkSync(fifo);
    return ends;
  });
}

module.exports = { fifoEnds };
