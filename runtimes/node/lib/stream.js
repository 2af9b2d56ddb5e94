// pipe and socketpair: per group a pair of connected ends (made before the
// timing), a writer unit writing `messages` blocks of `size` bytes and then
// ending its stream, and a reader unit reading until EOF and counting the
// bytes. Every end is a net.Socket handle on its unit's event loop (libuv,
// non-blocking): a write that finds the kernel's buffer full is queued, and
// the writer awaits 'drain' when write() says so, as Node's streams ask.
// The same two bodies run as async functions (promise), in workers and in
// child processes, on descriptors those inherit.
// On Bun a descriptor's ends are Bun's own, and on Deno a FIFO's in the
// promise row (lib/descriptors.js).
"use strict";

const net = require("node:net");
const { once } = require("node:events");
const { readEnd, writeEnd } = require("./descriptors.js");

async function writeAll(end, messages, size) {
  const block = Buffer.alloc(size, "x");
  if (!(end instanceof net.Socket)) return sinkAll(end, block, messages);
  for (let i = 0; i < messages; i++) if (!end.write(block)) await once(end, "drain");
  end.end();
  await once(end, "close");
}

async function sinkAll(sink, block, messages) {
  for (let i = 0; i < messages; i++) {
    const full = sink.write(block);
    if (full) await full;
  }
  await sink.end();
}

async function readAll(socket) {
  let bytes = 0;
  for await (const chunk of socket) bytes += chunk.length;
  return bytes;
}

/** The bodies of a worker or a child, on a descriptor it was given. */
const writer = ({ fd, messages, size }) => writeAll(writeEnd(fd), messages, size);
const reader = ({ fd }) => readAll(readEnd(fd));

/** The promise row: pairs of [reader, writer] sockets. */
async function streamPromises(run, pairs) {
  const { messages, size } = run.params;
  const units = run.units;
  const unit = async (body) => {
    units.start();
    const value = await body();
    units.finish();
    return value;
  };
  const read = await run.timed(() =>
    Promise.all(pairs.map(async ([r, w]) => (await Promise.all([unit(() => readAll(r)), unit(() => writeAll(w, messages, size))]))[0])),
  );
  return { bytes: read.reduce((a, b) => a + b, 0) };
}

/** The worker and process rows: start(entry, data, end) starts a unit on one
 *  end of a pair of [reader, writer] ends; settles with the bytes read. */
async function streamUnits(run, pairs, start) {
  const { messages, size } = run.params;
  const read = await run.timed(() =>
    Promise.all(
      pairs.map(async ([r, w]) => {
        const [bytes] = await Promise.all([start("reader", {}, r), start("writer", { messages, size }, w)]);
        return bytes;
      }),
    ),
  );
  return { bytes: read.reduce((a, b) => a + b, 0) };
}

module.exports = { streamPromises, streamUnits, writer, reader };
