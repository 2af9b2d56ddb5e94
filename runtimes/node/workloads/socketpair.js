// I/O - Socketpair (workloads/socketpair.toml): per group one AF_UNIX
// SOCK_STREAM pair, a writer unit and a reader unit; the writer writes
// `messages` blocks of `size` bytes and shuts its side down for writing, the
// reader reads until EOF and counts the bytes.
"use strict";

const net = require("node:net");
const path = require("node:path");
const { once } = require("node:events");
const { streamPromises, streamUnits } = require("../lib/stream.js");
const { forkChild } = require("../lib/processes.js");

/** Node's standard library has no socketpair(2): each pair is an AF_UNIX
 *  stream connection made before the timing, through a listening socket in
 *  the scratch directory (connect and accept), which then stops listening. */
async function connectedPairs(run) {
  const server = net.createServer();
  const listening = path.join(run.scratch, "socketpair.sock");
  server.listen(listening);
  await once(server, "listening");
  const pairs = [];
  for (let g = 0; g < run.params.groups; g++) {
    const accepted = once(server, "connection");
    const client = net.connect(listening);
    const [[server_]] = await Promise.all([accepted, once(client, "connect")]);
    pairs.push([server_, client]);
  }
  server.close(); // stops listening; its 'close' waits for the connections, which the run ends
  return pairs;
}

async function promise(run) {
  return streamPromises(run, await connectedPairs(run));
}

/** A child process per end, which gets the socket as its descriptor 3 (a
 *  stream in fork's stdio is duplicated into the child); the caller then
 *  closes its own handle, so that the end's only owner is the child. */
async function processes(run) {
  return streamUnits(run, await connectedPairs(run), (entry, data, socket) => {
    const child = forkChild(run, require.resolve("../lib/stream.js"), entry, { ...data, fd: 3 }, [socket]);
    socket.destroy();
    return child;
  });
}

module.exports = { promise, process: processes };
