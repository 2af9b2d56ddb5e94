// I/O - Socketpair (workloads/socketpair.toml): per group one AF_UNIX
// SOCK_STREAM pair, a writer unit and a reader unit; the writer writes
// `messages` blocks of `size` bytes and shuts its side down for writing, the
// reader reads until EOF and counts the bytes.
"use strict";

const net = require("node:net");
const path = require("node:path");
const { once } = require("node:events");
const { streamPromises } = require("../lib/stream.js");

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

module.exports = { promise };
