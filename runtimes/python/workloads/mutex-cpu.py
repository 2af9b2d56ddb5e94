"""Mutex - CPU-bound (workloads/mutex-cpu.toml): per group, one lock and one
counter; each of its `workers` units, `iterations` times, its iteration i
counting from 0, makes the subject "foobar" * 100 followed by i in decimal
(a new str, before taking the lock), locks, reads the counter, matches
/foo(.+)$/ against the subject with Python's re, writes back the counter
read plus the capture's length (597 plus i's digits) and unlocks."""

import asyncio
import multiprocessing
import re
import threading
from functools import partial

from lib import units
from lib.locks import contend, contend_async

PATTERN = re.compile(r"foo(.+)$")  # compiled before the timing
PREFIX = "foobar" * 100


def subjects(iterations: int):
    """Each iteration's subject, made as the unit comes to it."""
    return (PREFIX + str(i) for i in range(iterations))


def capture(subject: str) -> int:
    return len(PATTERN.search(subject).group(1))


def blocking(run, new_lock, shared, start_units) -> dict:
    """The lock-taking rows: `shared(n)` makes n counters every unit sees (a
    list, or shared memory for processes), each unit's contended count in a
    slot of its own."""
    groups, workers, iterations = run.params["groups"], run.params["workers"], run.params["iterations"]
    locks = [new_lock() for _ in range(groups)]
    counters, contended = shared(groups), shared(groups * workers)

    def worker(slot, group):
        def section(subject):
            value = counters[group]
            counters[group] = value + capture(subject)

        contended[slot] = contend(locks[group], subjects(iterations), section)

    start_units(run, [partial(worker, slot, slot // workers) for slot in range(groups * workers)])
    run.evidence(contended=sum(contended))
    return {"sum": sum(counters)}


def threads(run) -> dict:
    return blocking(run, threading.Lock, lambda n: [0] * n, units.threads)


def greenlets(run) -> dict:
    import gevent.lock

    return blocking(run, gevent.lock.Semaphore, lambda n: [0] * n, units.greenlets)


def processes(run) -> dict:
    fork = multiprocessing.get_context("fork")
    return blocking(run, fork.Lock, lambda n: fork.RawArray("q", n), units.processes)


def tasks(run) -> dict:
    groups, workers, iterations = run.params["groups"], run.params["workers"], run.params["iterations"]

    async def main():
        locks, holds = [asyncio.Lock() for _ in range(groups)], [[0] for _ in range(groups)]
        counters, contended = [0] * groups, [0] * (groups * workers)

        async def worker(slot, group):
            async def section(subject):
                value = counters[group]
                counters[group] = value + capture(subject)

            contended[slot] = await contend_async(locks[group], holds[group], subjects(iterations), section)

        await units.tasks(run, [partial(worker, slot, slot // workers) for slot in range(groups * workers)])
        run.evidence(contended=sum(contended))
        return {"sum": sum(counters)}

    return run.asyncio_run(main())


MECHANISMS = {"thread": threads, "asyncio": tasks, "uvloop": tasks, "gevent": greenlets, "process": processes}
