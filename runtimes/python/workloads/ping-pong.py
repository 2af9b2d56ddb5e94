"""Ping-pong (workloads/ping-pong.toml): `pairs` pairs of units, each unit
with an inbox. A pinger sends a count of 0 to its ponger, which sends back
the count plus one; the pinger sends that plus one again, until it has had
`rounds` replies. It then stops its ponger and reports the last count it
received; the caller sums them."""

import asyncio
import multiprocessing

from lib import units

STOP = -1


def pinger(inbox, partner, rounds: int) -> int:
    """Plays `rounds` round trips, stops the ponger, returns the last reply."""
    partner.put(0)
    for _ in range(rounds - 1):
        partner.put(inbox.get() + 1)
    count = inbox.get()
    partner.put(STOP)
    return count


def ponger(inbox, partner):
    while (count := inbox.get()) != STOP:
        partner.put(count + 1)


def blocking(run, unit_kind, new_inbox) -> dict:
    """thread (queue.SimpleQueue), gevent (gevent.queue.SimpleQueue) and
    process (multiprocessing.SimpleQueue: a pipe, written and read directly)."""
    pairs, rounds = run.params["pairs"], run.params["rounds"]
    started = unit_kind(run)
    counts = started.shared(pairs)
    players = []
    for pair in range(pairs):
        pings, pongs = new_inbox(), new_inbox()  # the ponger's inbox and the pinger's

        def ping(pair=pair, pings=pings, pongs=pongs):
            counts[pair] = pinger(pongs, pings, rounds)

        players += [started.start(ping), started.start(lambda pings=pings, pongs=pongs: ponger(pings, pongs))]
    started.join(players)
    return {"count": sum(counts)}


def threads(run) -> dict:
    import queue

    return blocking(run, units.Threads, queue.SimpleQueue)


def greenlets(run) -> dict:
    import gevent.queue

    return blocking(run, units.Greenlets, gevent.queue.SimpleQueue)


def processes(run) -> dict:
    return blocking(run, units.Processes, multiprocessing.get_context("fork").SimpleQueue)


def tasks(run) -> dict:
    pairs, rounds = run.params["pairs"], run.params["rounds"]

    async def ping(inbox, partner):
        partner.put_nowait(0)  # an unbounded queue's put never waits
        for _ in range(rounds - 1):
            partner.put_nowait(await inbox.get() + 1)
        count = await inbox.get()
        partner.put_nowait(STOP)
        return count

    async def pong(inbox, partner):
        while (count := await inbox.get()) != STOP:
            partner.put_nowait(count + 1)

    async def main():
        async with asyncio.TaskGroup() as group:
            pingers = []
            for _ in range(pairs):
                pings, pongs = asyncio.Queue(), asyncio.Queue()  # the ponger's inbox and the pinger's
                pingers.append(group.create_task(units.task(run, lambda pings=pings, pongs=pongs: ping(pongs, pings))))
                group.create_task(units.task(run, lambda pings=pings, pongs=pongs: pong(pings, pongs)))
        return {"count": sum(task.result() for task in pingers)}

    return run.asyncio_run(main())


MECHANISMS = {"thread": threads, "asyncio": tasks, "uvloop": tasks, "gevent": greenlets, "process": processes}
