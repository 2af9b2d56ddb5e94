// I/O - Pipe (workloads/pipe.toml): per group one pipe, a writer unit and a
// reader unit; the writer writes `messages` blocks of `size` bytes and
// closes its end, the reader reads until EOF and counts the bytes.
"use strict";

const fs = require("node:fs");
const net = require("node:net");
const path = require("node:path");
const { execFileSync } = require("node:child_process");
const { streamPromises, streamUnits, writer, reader } = require("../lib/stream.js");
const { startWorker } = require("../lib/workers.js");
const { forkChild } = require("../lib/processes.js");

/** Node's standard library has no pipe(2): each group's pipe is a FIFO, made
 *  with mkfifo(1) and opened at both ends before the timing (its name then
 *  removed): [reader, writer] descriptors, non-blocking. */
function fifoEnds(run) {
  return Array.from({ length: run.params.groups }, (_, g) => {
    const fifo = path.join(run.scratch, `pipe-${g}`);
    execFileSync("mkfifo", [fifo]);
    const ends = [fs.constants.O_RDONLY, fs.constants.O_WRONLY].map((mode) => fs.openSync(fifo, mode | fs.constants.O_NONBLOCK));
    fs.unlinkSync(fifo);
    return ends;
  });
}

/** Each end a net.Socket handle (libuv's pipe handle) on the one event loop. */
function promise(run) {
  const pairs = fifoEnds(run).map(([r, w]) => [
    new net.Socket({ fd: r, readable: true, writable: false }),
    new net.Socket({ fd: w, readable: false, writable: true }),
  ]);
  return streamPromises(run, pairs);
}

/** A Worker per end: it shares the process's descriptors, and takes its end
 *  over as a net.Socket on its own event loop, which closes it. */
function worker(run) {
  return streamUnits(run, fifoEnds(run), (entry, data, fd) =>
    startWorker(run, require.resolve("../lib/stream.js"), entry, { ...data, fd }),
  );
}

/** A child process per end, which gets it as its descriptor 3; the caller
 *  closes its own copy once the child has it, so that the reader sees EOF. */
function processes(run) {
  return streamUnits(run, fifoEnds(run), (entry, data, fd) => {
    const child = forkChild(run, require.resolve("../lib/stream.js"), entry, { ...data, fd: 3 }, [fd]);
    fs.closeSync(fd);
    return child;
  });
}

module.exports = { promise, worker, process: processes };
