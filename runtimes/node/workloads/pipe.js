// I/O - Pipe (workloads/pipe.toml): per group one pipe, a writer unit and a
// reader unit; the writer writes `messages` blocks of `size` bytes and
// closes its end, the reader reads until EOF and counts the bytes.
"use strict";

const fs = require("node:fs");
const { streamPromises, streamUnits } = require("../lib/stream.js");
const { fifoFileEnds, readEnd, writeEnd } = require("../lib/descriptors.js");
const { startWorker } = require("../lib/workers.js");
const { forkChild } = require("../lib/processes.js");
const { makeFifo, fifoEnds } = require("../lib/fifo.js");
const { ENGINE } = require("../kit.js");

/** Each group's pipe: [reader, writer] descriptors of a FIFO (lib/fifo.js). */
const groupPipes = (run) => fifoEnds(run.scratch, "pipe", run.params.groups);

/** Each end a net.Socket handle (libuv's pipe handle) on the one event loop;
 *  on Bun its own ends, on Deno its own files (lib/descriptors.js). */
async function promise(run) {
  const { groups } = run.params;
  const pairs =
    ENGINE === "deno"
      ? await Promise.all(Array.from({ length: groups }, (_, i) => fifoFileEnds(makeFifo(run.scratch, "pipe", i))))
      : groupPipes(run).map(([r, w]) => [readEnd(r), writeEnd(w)]);
  return streamPromises(run, pairs);
}

/** A Worker per end: it shares the process's descriptors, and takes its end
 *  over as a net.Socket on its own event loop, which closes it. */
function worker(run) {
  return streamUnits(run, groupPipes(run), (entry, data, fd) =>
    startWorker(run, require.resolve("../lib/stream.js"), entry, { ...data, fd }),
  );
}

/** A child process per end, which gets it as its descriptor 3; the caller
 *  closes its own copy once the child has it, so that the reader sees EOF. */
function processes(run) {
  return streamUnits(run, groupPipes(run), (entry, data, fd) => {
    const child = forkChild(run, require.resolve("../lib/stream.js"), entry, { ...data, fd: 3 }, [fd]);
    fs.closeSync(fd);
    return child;
  });
}

module.exports = { promise, worker, process: processes };
