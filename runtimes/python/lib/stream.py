"""pipe and socketpair: per group, a writer unit writes `messages` blocks of
`size` bytes into one end of a pair and ends its stream; a reader unit reads
the other end until EOF, looping on short reads, and counts the bytes. The
two workloads differ only in their ends (Pipe and Socket below), which
mechanisms() turns into the workload's MECHANISMS."""

import asyncio
import os
import socket
import struct
import threading
from typing import NamedTuple

BYTES = struct.Struct("<Q")


class End(NamedTuple):
    """One end of a pair, as the units use it: the bound calls they make."""

    read_into: object  # fills a buffer, returns the bytes read (0 at EOF)
    send_all: object  # writes a whole block
    finish: object  # ends the writer's stream and closes the end
    close: object


def write_all(write):
    """A block written whole through a write that may be short (a pipe
    written without blocking returns what fitted)."""

    def send_all(block):
        view = memoryview(block)
        while view:
            view = view[write(view) :]

    return send_all


class Pipe:
    """os.pipe(); the writer ends its stream by closing its end."""

    @staticmethod
    def blocking() -> tuple[End, End]:
        reader, writer = os.pipe()
        return Pipe.end(open(reader, "rb", buffering=0)), Pipe.end(open(writer, "wb", buffering=0))

    @staticmethod
    def green() -> tuple[End, End]:
        """gevent's cooperative file objects: a read or write that would block
        waits on the hub."""
        from gevent.fileobject import FileObjectPosix

        reader, writer = os.pipe()
        return Pipe.end(FileObjectPosix(reader, "rb", bufsize=0)), Pipe.end(FileObjectPosix(writer, "wb", bufsize=0))

    @staticmethod
    def end(file) -> End:
        return End(file.readinto, write_all(file.write), file.close, file.close)

    @staticmethod
    async def streams():
        """asyncio's streams over the pipe's ends: (reader, its transport, writer)."""
        loop = asyncio.get_running_loop()
        reader_fd, writer_fd = os.pipe()
        reader = asyncio.StreamReader()
        read_transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), open(reader_fd, "rb", buffering=0)
        )
        transport, protocol = await loop.connect_write_pipe(
            lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()), open(writer_fd, "wb", buffering=0)
        )
        return reader, read_transport, asyncio.StreamWriter(transport, protocol, None, loop)

    @staticmethod
    async def end_stream(writer):
        writer.close()
        await writer.wait_closed()


class Socket:
    """socket.socketpair() (AF_UNIX, SOCK_STREAM); the writer ends its stream
    with shutdown(SHUT_WR). In gevent trials the socket module is gevent's
    (monkey-patched): the same calls wait on the hub."""

    @staticmethod
    def blocking() -> tuple[End, End]:
        reader, writer = socket.socketpair()
        return Socket.end(reader), Socket.end(writer)

    green = blocking

    @staticmethod
    def end(sock) -> End:
        def finish():
            sock.shutdown(socket.SHUT_WR)
            sock.close()

        return End(sock.recv_into, sock.sendall, finish, sock.close)

    @staticmethod
    async def streams():
        reader_sock, writer_sock = socket.socketpair()
        reader, reader_side = await asyncio.open_unix_connection(sock=reader_sock)
        _, writer = await asyncio.open_unix_connection(sock=writer_sock)
        return reader, reader_side, writer

    @staticmethod
    async def end_stream(writer):
        writer.write_eof()
        writer.close()
        await writer.wait_closed()


def write(end: End, messages: int, size: int):
    block = b"x" * size
    try:
        for _ in range(messages):
            end.send_all(block)
    finally:
        end.finish()


def read(end: End, size: int) -> int:
    buffer, total = bytearray(size), 0
    try:
        while count := end.read_into(buffer):
            total += count
    finally:
        end.close()
    return total


def mechanisms(ends) -> dict:
    """The MECHANISMS of a workload whose pairs are `ends` (Pipe or Socket)."""

    def threads(run) -> dict:
        reads = [0] * run.params["groups"]
        p = run.params

        def writer(end):
            with run.units.unit():
                write(end, p["messages"], p["size"])

        def reader(group, end):
            with run.units.unit():
                reads[group] = read(end, p["size"])

        started = []
        for group in range(p["groups"]):
            reader_end, writer_end = ends.blocking()
            started += [
                threading.Thread(target=writer, args=(writer_end,)),
                threading.Thread(target=reader, args=(group, reader_end)),
            ]
        for thread in started:
            thread.start()
        for thread in started:
            thread.join()
        return {"bytes": sum(reads)}

    def greenlets(run) -> dict:
        import gevent

        p = run.params

        def writer(end):
            with run.units.unit():
                write(end, p["messages"], p["size"])

        def reader(end):
            with run.units.unit():
                return read(end, p["size"])

        readers, writers = [], []
        for _ in range(p["groups"]):
            reader_end, writer_end = ends.green()
            writers.append(gevent.spawn(writer, writer_end))
            readers.append(gevent.spawn(reader, reader_end))
        gevent.joinall(writers + readers, raise_error=True)
        return {"bytes": sum(greenlet.value for greenlet in readers)}

    def tasks(run) -> dict:
        p = run.params

        async def writer(stream):
            with run.units.unit():
                block = b"x" * p["size"]
                try:
                    for _ in range(p["messages"]):
                        stream.write(block)
                        await stream.drain()
                finally:
                    await ends.end_stream(stream)

        async def reader(stream, transport):
            with run.units.unit():
                total = 0
                try:
                    while chunk := await stream.read(p["size"]):
                        total += len(chunk)
                finally:
                    transport.close()
                return total

        async def main():
            pairs = [await ends.streams() for _ in range(p["groups"])]
            async with asyncio.TaskGroup() as group:
                for _, _, stream in pairs:
                    group.create_task(writer(stream))
                readers = [group.create_task(reader(stream, transport)) for stream, transport, _ in pairs]
            return sum(task.result() for task in readers)

        return {"bytes": run.asyncio_run(main())}

    def processes(run) -> dict:
        """Each reader child writes its count to a shared pipe (8 bytes: one atomic write)."""
        p = run.params
        results, report = os.pipe()

        def writer(reader_end, writer_end):
            reader_end.close()
            write(writer_end, p["messages"], p["size"])

        def reader(reader_end, writer_end):
            writer_end.close()
            os.write(report, BYTES.pack(read(reader_end, p["size"])))

        pids = []
        for _ in range(p["groups"]):
            pair = ends.blocking()
            pids += [run.fork(writer, *pair), run.fork(reader, *pair)]
            for end in pair:  # only the children may hold the ends: the reader's EOF needs every writer end closed
                end.close()
        os.close(report)
        with open(results, "rb") as reports:
            total = sum(count for (count,) in BYTES.iter_unpack(reports.read()))  # EOF once every child has exited
        run.wait(pids)
        return {"bytes": total}

    return {"thread": threads, "asyncio": tasks, "uvloop": tasks, "gevent": greenlets, "process": processes}
