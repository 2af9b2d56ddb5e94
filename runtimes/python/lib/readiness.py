"""await-readable and await-writable: `batch` pipes are made before the
timing; operation i of a batch awaits the readiness of pipe i, which is
already ready (a byte waits in it, or it is empty): the cost of asking, not
of waiting. Awaits are sequential, as in the seed. An await counts only when
it reports readiness. The unit is the one thread, task or greenlet running
the kit's loop.

none and process are n/a (runtime.toml): a plain call has no unit to
suspend, and a process awaits with the thread's call."""

import asyncio
import os
import select
from contextlib import contextmanager


def mechanisms(readable: bool) -> dict:
    """The workload's MECHANISMS: readable (a byte in each pipe, awaited at
    its read end) or writable (empty pipes, awaited at their write end)."""
    return {
        "thread": lambda run: polls(run, readable),
        "asyncio": lambda run: loop_waits(run, readable),
        "uvloop": lambda run: loop_waits(run, readable),
        "gevent": lambda run: hub_waits(run, readable),
    }


@contextmanager
def pipes(count: int, readable: bool):
    """The descriptors awaited: each pipe's read end holding a byte, or its
    empty pipe's write end. All are closed afterwards."""
    made = []
    try:
        for _ in range(count):
            made.append(os.pipe())
            if readable:
                os.write(made[-1][1], b"0")
        yield [reader if readable else writer for reader, writer in made]
    finally:
        for pair in made:
            for fd in pair:
                os.close(fd)


def polls(run, readable: bool) -> dict:
    """A thread waits in place, in poll(2) on the one descriptor: a
    select.poll object each, registered before the timing."""
    event = select.POLLIN if readable else select.POLLOUT
    with pipes(run.params["batch"], readable) as fds:
        pollers = []
        for fd in fds:
            pollers.append(select.poll())
            pollers[-1].register(fd, event)
        ready = i = 0

        def await_one():
            nonlocal ready, i
            ((_, events),) = pollers[i].poll()
            ready += events & event == event
            i += 1

        def end_batch():
            nonlocal i
            i = 0

        with run.units.unit():
            run.rate(await_one, end_batch)
    return {"count": ready}


def loop_waits(run, readable: bool) -> dict:
    """A task awaits a future that the loop's reader (or writer) callback
    resolves, removed once it has: how asyncio's own sock_recv waits."""
    ready = i = 0

    async def main(fds):
        loop = asyncio.get_running_loop()
        watch, unwatch = (loop.add_reader, loop.remove_reader) if readable else (loop.add_writer, loop.remove_writer)

        async def await_one():
            nonlocal ready, i
            fd, woken = fds[i], loop.create_future()
            watch(fd, resolve, woken)
            try:
                ready += await woken
            finally:
                unwatch(fd)
            i += 1

        async def end_batch():
            nonlocal i
            i = 0

        with run.units.unit():
            await run.rate_async(await_one, end_batch)

    with pipes(run.params["batch"], readable) as fds:
        run.asyncio_run(main(fds))
    return {"count": ready}


def resolve(future):
    if not future.done():  # the callback may run again before it is removed
        future.set_result(True)


def hub_waits(run, readable: bool) -> dict:
    """A greenlet waits with gevent.socket.wait_read (or wait_write): an I/O
    watcher on gevent's hub, which switches back once the descriptor is
    ready (they return only then)."""
    from gevent.socket import wait_read, wait_write

    wait = wait_read if readable else wait_write
    ready = i = 0
    with pipes(run.params["batch"], readable) as fds:

        def await_one():
            nonlocal ready, i
            wait(fds[i])
            ready += 1
            i += 1

        def end_batch():
            nonlocal i
            i = 0

        with run.units.unit():
            run.rate(await_one, end_batch)
    return {"count": ready}
