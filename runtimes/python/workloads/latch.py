"""Countdown latch (workloads/latch.toml): `count` units, made at the start
of a run, serve all its rounds. In each round the caller makes a latch of
`count`, hands it to every unit through the unit's inbox, and waits until
it reaches zero. Unit k adds (k + 1) x (r + 1) for its count-down in round r
to a tally of its own, reduced modulo MODULUS; the caller sums the tallies.
Python has no latch class (threading.Barrier makes every party wait): the
latch is a count and an Event, which its last count-down sets. Processes
share no latch object (multiprocessing's locks and events pass to a child
only as it is forked, not through its inbox): as in erlang/process, a
count-down is a unit's reply to the caller, who waits until it has counted
`count` of them."""

import asyncio
import multiprocessing
import threading
from functools import partial

from lib import units

MODULUS = 1_000_000_007


class Latch:
    """For greenlets and asyncio tasks, which switch only where they wait:
    the count needs no lock. wait() is the event's (a coroutine for asyncio)."""

    def __init__(self, count: int, event):
        self.count, self.event = count, event

    def count_down(self):
        self.count -= 1
        if not self.count:
            self.event.set()

    def wait(self):
        return self.event.wait()


class ThreadLatch(Latch):
    """For threads: the count-down takes a lock."""

    def __init__(self, count: int):
        super().__init__(count, threading.Event())
        self.lock = threading.Lock()

    def count_down(self):
        with self.lock:
            super().count_down()


def blocking(run, unit_kind, new_inbox, new_latch) -> dict:
    """thread (queue.SimpleQueue inboxes) and gevent (gevent's)."""
    count, rounds = run.params["count"], run.params["rounds"]
    started = unit_kind(run)
    inboxes = [new_inbox() for _ in range(count)]
    countdowns, tallies = started.shared(count), started.shared(count)

    def unit(k):
        made = tally = 0
        while (request := inboxes[k].get()) is not None:
            latch, r = request
            made, tally = made + 1, (tally + (k + 1) * (r + 1)) % MODULUS
            latch.count_down()
        countdowns[k], tallies[k] = made, tally

    workers = [started.start(lambda k=k: unit(k)) for k in range(count)]
    woke = 0
    for r in range(rounds):
        latch = new_latch(count)
        for inbox in inboxes:
            inbox.put((latch, r))
        latch.wait()
        woke += 1
    for inbox in inboxes:
        inbox.put(None)
    started.join(workers)
    return {"rounds": woke, "countdowns": sum(countdowns), "checksum": sum(tallies) % MODULUS}


def threads(run) -> dict:
    import queue

    return blocking(run, units.Threads, queue.SimpleQueue, ThreadLatch)


def greenlets(run) -> dict:
    import gevent.event
    import gevent.queue

    return blocking(run, units.Greenlets, gevent.queue.SimpleQueue, lambda n: Latch(n, gevent.event.Event()))


def processes(run) -> dict:
    """A forked process per unit; each inbox is a multiprocessing.SimpleQueue
    (a pipe) bringing the round, and every count-down crosses one more, the
    caller's, to it."""
    count, rounds = run.params["count"], run.params["rounds"]
    fork = multiprocessing.get_context("fork")
    started = units.Processes(run)
    inboxes, count_downs = [fork.SimpleQueue() for _ in range(count)], fork.SimpleQueue()
    countdowns, tallies = started.shared(count), started.shared(count)

    def unit(k):
        made = tally = 0
        while (r := inboxes[k].get()) is not None:
            made, tally = made + 1, (tally + (k + 1) * (r + 1)) % MODULUS
            count_downs.put(r)
        countdowns[k], tallies[k] = made, tally

    workers = [started.start(partial(unit, k)) for k in range(count)]
    woke = 0
    for r in range(rounds):
        for inbox in inboxes:
            inbox.put(r)
        for _ in range(count):
            count_downs.get()
        woke += 1
    for inbox in inboxes:
        inbox.put(None)
    started.join(workers)
    for queue in [*inboxes, count_downs]:
        queue.close()
    return {"rounds": woke, "countdowns": sum(countdowns), "checksum": sum(tallies) % MODULUS}


def tasks(run) -> dict:
    count, rounds = run.params["count"], run.params["rounds"]

    async def unit(k, inbox):
        made = tally = 0
        while (request := await inbox.get()) is not None:
            latch, r = request
            made, tally = made + 1, (tally + (k + 1) * (r + 1)) % MODULUS
            latch.count_down()
        return made, tally

    async def main():
        inboxes = [asyncio.Queue() for _ in range(count)]
        async with asyncio.TaskGroup() as group:
            workers = [group.create_task(units.task(run, lambda k=k: unit(k, inboxes[k]))) for k in range(count)]
            woke = 0
            for r in range(rounds):
                latch = Latch(count, asyncio.Event())
                for inbox in inboxes:
                    inbox.put_nowait((latch, r))  # an unbounded queue's put never waits
                await latch.wait()
                woke += 1
            for inbox in inboxes:
                inbox.put_nowait(None)
        totals = [worker.result() for worker in workers]
        return {
            "rounds": woke,
            "countdowns": sum(made for made, _ in totals),
            "checksum": sum(tally for _, tally in totals) % MODULUS,
        }

    return run.asyncio_run(main())


MECHANISMS = {"thread": threads, "asyncio": tasks, "uvloop": tasks, "gevent": greenlets, "process": processes}
