// Node's standard library has no pipe(2): a pipe is a FIFO, made with
// mkfifo(1) and opened at both ends before the timing (its name then
// removed), non-blocking, for net.Socket handles (libuv's pipe handles).
// Counts cross one as 4 bytes each (ring's token, ping-pong's count).
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const { childProcess } = require("./processes.js"); // the trial's own process's: a child or worker makes no FIFO

/** The path of a new FIFO, the `i`th named after `name` in the scratch directory. */
function makeFifo(scratch, name, i) {
  const fifo = path.join(scratch, `${name}-${i}`);
  childProcess.execFileSync("mkfifo", [fifo]);
  return fifo;
}

/** `count` pipes named after `name` in the scratch directory: [reader, writer] descriptors each. */
function fifoEnds(scratch, name, count) {
  return Array.from({ length: count }, (_, i) => {
    const fifo = makeFifo(scratch, name, i);
    const ends = [fs.constants.O_RDONLY, fs.constants.O_WRONLY].map((mode) => fs.openSync(fifo, mode | fs.constants.O_NONBLOCK));
    fs.unlinkSync(fifo);
    return ends;
  });
}

/** Writes a count (an unsigned 32-bit integer) to a stream. */
function sendCount(stream, count) {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32LE(count);
  stream.write(bytes);
}

/** The counts a stream carries, 4 bytes each, whatever its chunks. */
async function* counts(stream) {
  let pending = Buffer.alloc(0);
  for await (const chunk of stream) {
    pending = Buffer.concat([pending, chunk]);
    for (; pending.length >= 4; pending = pending.subarray(4)) yield pending.readUInt32LE(0);
  }
}

module.exports = { makeFifo, fifoEnds, sendCount, counts };
