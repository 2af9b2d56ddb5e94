// Echo (workloads/echo.toml): the run's server. Before the timing it listens
// on 127.0.0.1 (a port the kernel picks) or <scratch>/echo.sock and says so
// (run.listening); timed, it accepts `connections` connections and, on each,
// writes back all it reads until end of file, then closes it.
"use strict";

const fs = require("node:fs");
const net = require("node:net");
const path = require("node:path");
const { once } = require("node:events");

/** Listens, before the timing, with a backlog of `connections` (the kernel caps it at somaxconn). */
async function listen(run, server) {
  const { connections: backlog, transport } = run.params;
  if (transport === "tcp") server.listen({ host: "127.0.0.1", port: 0, backlog });
  else {
    const file = path.join(run.scratch, "echo.sock");
    fs.rmSync(file, { force: true }); // a previous run's
    server.listen({ path: file, backlog });
  }
  await once(server, "listening");
}

/** An async function per connection, on the one event loop (net.createServer,
 *  TCP_NODELAY on each connection): the socket piped into itself writes back
 *  each chunk it reads, pausing while the kernel's buffer is full, and ends at
 *  end of file. The server stops listening at the last connection it is to
 *  accept (libuv removes a Unix socket's path as it closes). */
async function promise(run) {
  const { connections } = run.params;
  const units = run.units;
  let open = 0;
  let held = 0;
  const serve = async (socket) => {
    units.start();
    held = Math.max(held, ++open);
    socket.pipe(socket);
    await once(socket, "close");
    open--;
    units.finish();
    return socket.bytesWritten;
  };
  const served = [];
  const server = net.createServer({ noDelay: true });
  const closed = once(server, "close"); // once it has stopped listening and its last connection is closed
  const everyone = new Promise((resolve) =>
    server.on("connection", (socket) => {
      served.push(serve(socket));
      if (served.length === connections) {
        server.close();
        resolve();
      }
    }),
  );
  await listen(run, server);
  run.listening(server);
  const bytes = await run.timed(async () => {
    await everyone;
    return (await Promise.all(served)).reduce((a, b) => a + b, 0);
  });
  await closed;
  run.evidence({ held });
  return { connections: served.length, bytes };
}

module.exports = { promise };
