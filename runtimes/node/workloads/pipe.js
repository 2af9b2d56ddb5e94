// I/O - Pipe (workloads/pipe.toml): per group one pipe, a writer unit and a
// reader unit; the writer writes `messages` blocks of `size` bytes and
// closes its end, the reader reads until EOF and counts the bytes.
"use strict";

const fs = require("node:fs");
const net = require("node:net");
const path = require("node:path");
const { execFileSync } = require("node:child_process");
const { streamPromises } = require("../lib/stream.js");

/** Node's standard library has no pipe(2): each group's pipe is a FIFO, made
 *  with mkfifo(1) and opened at both ends before the timing. Its descriptors
 *  become net.Socket handles (libuv's pipe handles, non-blocking). */
function fifoEnds(run) {
  return Array.from({ length: run.params.groups }, (_, g) => {
    const fifo = path.join(run.scratch, `pipe-${g}`);
    execFileSync("mkfifo", [fifo]);
    const reader = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    const writer = fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
    fs.unlinkSync(fifo);
    return [reader, writer];
  });
}

function promise(run) {
  const pairs = fifoEnds(run).map(([reader, writer]) => [
    new net.Socket({ fd: reader, readable: true, writable: false }),
    new net.Socket({ fd: writer, readable: false, writable: true }),
  ]);
  return streamPromises(run, pairs);
}

module.exports = { promise, fifoEnds };
