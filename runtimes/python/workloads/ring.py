"""Ring (workloads/ring.toml): `nodes` units in a ring, each with an inbox
and knowing the next one's. The first starts a token of count 0; each pass
to the next adds one. When the token reaches the first unit for the
`laps`-th time, the first stops it, keeps its count and sends a stop token
round, which every other unit passes on (but the last) as it ends."""

import asyncio
import multiprocessing

from lib import units

STOP = -1


def head(inbox, outbox, laps: int) -> int:
    """The first unit: starts the token, takes it back `laps` times, returns its count."""
    outbox.put(1)
    for _ in range(laps - 1):
        outbox.put(inbox.get() + 1)
    hops = inbox.get()
    outbox.put(STOP)
    return hops


def node(inbox, outbox, last: bool):
    while (token := inbox.get()) != STOP:
        outbox.put(token + 1)
    if not last:
        outbox.put(STOP)


def blocking(run, unit_kind, new_inbox) -> dict:
    """thread (queue.Queue), gevent (gevent.queue.Queue) and process
    (multiprocessing.SimpleQueue: a pipe, written and read directly)."""
    nodes, laps = run.params["nodes"], run.params["laps"]
    started = unit_kind(run)
    hops = started.shared(1)
    inboxes = [new_inbox() for _ in range(nodes)]

    def first():
        hops[0] = head(inboxes[0], inboxes[1], laps)

    ring = [started.start(first)]
    for i in range(1, nodes):
        ring.append(started.start(lambda i=i: node(inboxes[i], inboxes[(i + 1) % nodes], i == nodes - 1)))
    started.join(ring)
    return {"hops": hops[0]}


def threads(run) -> dict:
    import queue

    return blocking(run, units.Threads, queue.SimpleQueue)


def greenlets(run) -> dict:
    import gevent.queue

    return blocking(run, units.Greenlets, gevent.queue.SimpleQueue)


def processes(run) -> dict:
    return blocking(run, units.Processes, multiprocessing.get_context("fork").SimpleQueue)


def tasks(run) -> dict:
    nodes, laps = run.params["nodes"], run.params["laps"]

    async def first(inbox, outbox):
        outbox.put_nowait(1)  # an unbounded queue's put never waits
        for _ in range(laps - 1):
            outbox.put_nowait(await inbox.get() + 1)
        hops = await inbox.get()
        outbox.put_nowait(STOP)
        return hops

    async def other(inbox, outbox, last):
        while (token := await inbox.get()) != STOP:
            outbox.put_nowait(token + 1)
        if not last:
            outbox.put_nowait(STOP)

    async def main():
        inboxes = [asyncio.Queue() for _ in range(nodes)]
        async with asyncio.TaskGroup() as group:
            hops = group.create_task(units.task(run, lambda: first(inboxes[0], inboxes[1])))
            for i in range(1, nodes):
                body = lambda i=i: other(inboxes[i], inboxes[(i + 1) % nodes], i == nodes - 1)  # noqa: E731
                group.create_task(units.task(run, body))
        return {"hops": hops.result()}

    return run.asyncio_run(main())


MECHANISMS = {"thread": threads, "asyncio": tasks, "uvloop": tasks, "gevent": greenlets, "process": processes}
