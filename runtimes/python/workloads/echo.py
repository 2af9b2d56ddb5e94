"""Echo (workloads/echo.toml): the run's server. Before the clock it listens
on 127.0.0.1 (a port the kernel picks) or <scratch>/echo.sock and says so
(run.listening); in the clock it accepts `connections` connections and, on
each, writes back all it reads until end of file, then closes it. Each unit
counts the bytes it wrote back in a slot of its own; Held counts the
connections open at once."""

import asyncio
import multiprocessing
import os
import socket
import threading
from contextlib import contextmanager, nullcontext, suppress

from lib import units

BUFFER = 65_536  # a read takes what is there, up to this: every request's size fits
OPEN, MOST = range(2)  # Held's slots


class Held:
    """The connections open in the server, and the most at once, in slots
    every unit sees (a list, or shared memory across processes): opened() as
    one is accepted, closed() as it is closed, each under the lock."""

    def __init__(self, slots, lock):
        self.slots, self.lock = slots, lock

    def opened(self):
        with self.lock:
            self.slots[OPEN] += 1
            self.slots[MOST] = max(self.slots[MOST], self.slots[OPEN])

    def closed(self):
        with self.lock:
            self.slots[OPEN] -= 1

    @property
    def most(self) -> int:
        return self.slots[MOST]


@contextmanager
def listener(run):
    """The run's listening socket, made before the clock; closed, and its path
    removed, after it. Its backlog is `connections` (the kernel caps it at
    somaxconn)."""
    backlog = run.params["connections"]
    if run.params["transport"] == "tcp":
        path = None
        sock = socket.create_server(("127.0.0.1", 0), backlog=backlog)
    else:
        path = os.path.join(run.scratch, "echo.sock")
        with suppress(FileNotFoundError):
            os.unlink(path)  # a previous run's
        sock = socket.create_server(path, family=socket.AF_UNIX, backlog=backlog)
    try:
        yield sock
    finally:
        sock.close()
        if path:
            os.unlink(path)


def no_delay(run, conn):
    """TCP_NODELAY on an accepted TCP connection, as every echo server sets it:
    a reply is sent at once, not held back until the last one is acknowledged."""
    if run.params["transport"] == "tcp":
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def echo(conn, held: Held) -> int:
    """Writes back all that conn reads until end of file, closes it, returns the bytes."""
    buffer, total = bytearray(BUFFER), 0
    view = memoryview(buffer)
    with conn:
        while count := conn.recv_into(buffer):
            conn.sendall(view[:count])
            total += count
    held.closed()
    return total


def blocking(run, unit_kind, new_lock) -> dict:
    """thread, gevent and process: the caller accepts, a unit per connection
    serves it. In gevent trials the socket module is gevent's (monkey-patched):
    the same calls wait on the hub. A forked child has the connection's only
    copy once the caller closes its own, as socketserver's ForkingMixIn does."""
    connections = run.params["connections"]
    started = unit_kind(run)
    echoed, held = started.shared(connections), Held(started.shared(2), new_lock())
    with listener(run) as sock:
        run.listening(sock)
        with run.clock():
            served = []
            for i in range(connections):
                conn, _ = sock.accept()
                held.opened()
                no_delay(run, conn)

                def serve(i=i, conn=conn):
                    echoed[i] = echo(conn, held)

                served.append(started.start(serve))
                if unit_kind is units.Processes:
                    conn.close()  # the child's copy is the only one left
            started.join(served)
    run.evidence(held=held.most)
    return {"connections": len(served), "bytes": sum(echoed)}


def threads(run) -> dict:
    return blocking(run, units.Threads, threading.Lock)


def greenlets(run) -> dict:
    import gevent.lock

    return blocking(run, units.Greenlets, gevent.lock.Semaphore)


def processes(run) -> dict:
    return blocking(run, units.Processes, multiprocessing.get_context("fork").Lock)


def tasks(run) -> dict:
    """asyncio.start_server on the listening socket: it makes a task of the
    callback for each connection it accepts, with the connection's streams.
    uvloop's transports set TCP_NODELAY themselves; asyncio's only where the
    socket's protocol number is IPPROTO_TCP, and one accepted from
    socket.create_server's has 0: the callback sets it on both."""
    connections = run.params["connections"]
    held, echoed = Held([0, 0], nullcontext()), []  # one thread: nothing to lock

    async def main(sock):
        finished = asyncio.get_running_loop().create_future()  # when the last connection is served
        accepted = 0

        async def serve(reader, writer):
            nonlocal accepted
            accepted += 1
            if accepted == connections:
                server.close()  # accepts no more
            held.opened()
            no_delay(run, writer.get_extra_info("socket"))
            try:
                with run.units.unit():
                    echoed.append(await echo_stream(reader, writer, held))
            except BaseException as e:  # a callback's exception would only be logged
                if not finished.done():
                    finished.set_exception(e)
                raise
            if len(echoed) == connections:
                finished.set_result(None)

        server = await asyncio.start_server(serve, sock=sock, backlog=connections)
        run.listening(sock)
        with run.clock():
            await finished
        await server.wait_closed()
        return accepted

    with listener(run) as sock:
        accepted = run.asyncio_run(main(sock))
    run.evidence(held=held.most)
    return {"connections": accepted, "bytes": sum(echoed)}


async def echo_stream(reader, writer, held: Held) -> int:
    """Writes back all that the reader reads until end of file, closes the
    connection, returns the bytes."""
    total = 0
    try:
        while data := await reader.read(BUFFER):
            writer.write(data)
            await writer.drain()
            total += len(data)
    finally:
        writer.close()
        await writer.wait_closed()
    held.closed()
    return total


MECHANISMS = {"thread": threads, "asyncio": tasks, "uvloop": tasks, "gevent": greenlets, "process": processes}
