// pipe and socketpair on the event loop: per group a pair of connected ends
// (made before the timing), a writer unit writing `messages` blocks of `size`
// bytes and then ending its stream, and a reader unit reading until EOF and
// counting the bytes. Both ends are net.Socket handles on libuv's loop: a
// write that finds the kernel's buffer full is queued, and the writer awaits
// 'drain' when write() says so, as Node's streams ask.
"use strict";

const { once } = require("node:events");

async function streamPromises(run, pairs) {
  const { messages, size } = run.params;
  const units = run.units;
  const block = Buffer.alloc(size, "x");
  const write = async (socket) => {
    units.start();
    for (let i = 0; i < messages; i++) if (!socket.write(block)) await once(socket, "drain");
    socket.end();
    await once(socket, "close");
    units.finish();
  };
  const read = async (socket) => {
    units.start();
    let bytes = 0;
    for await (const chunk of socket) bytes += chunk.length;
    units.finish();
    return bytes;
  };
  const read_ = await run.timed(() =>
    Promise.all(pairs.map(async ([reader, writer]) => (await Promise.all([read(reader), write(writer)]))[0])),
  );
  return { bytes: read_.reduce((a, b) => a + b, 0) };
}

module.exports = { streamPromises };
