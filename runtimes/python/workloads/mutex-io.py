"""Mutex - I/O-bound (workloads/mutex-io.toml): per group, one lock, one
file (made before the timing) and the file's end; each of its `workers`
units, `iterations` times, locks, reads the end, writes `size` bytes there
with one os.pwrite, stores the end plus `size` and unlocks. The result is the
sum of the files' sizes, read after the clock stops, when they are removed."""

import asyncio
import multiprocessing
import os
import threading
from functools import partial

from lib import units
from lib.locks import contend, contend_async


def open_files(run) -> list[int]:
    paths = [os.path.join(run.scratch, f"mutex-io-{group}") for group in range(run.params["groups"])]
    return [os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600) for path in paths]


def close_files(run, files: list[int]) -> int:
    """The files' total size, once they are closed and removed."""
    total = sum(os.fstat(fd).st_size for fd in files)
    for group, fd in enumerate(files):
        os.close(fd)
        os.remove(os.path.join(run.scratch, f"mutex-io-{group}"))
    return total


def blocking(run, new_lock, shared, start_units, pwrite=os.pwrite) -> dict:
    """The lock-taking rows: `shared(n)` makes n slots every unit sees (a list,
    or shared memory for processes): the files' ends, and each unit's
    contended count."""
    groups, workers, iterations = run.params["groups"], run.params["workers"], run.params["iterations"]
    block = b"x" * run.params["size"]
    files = open_files(run)
    locks = [new_lock() for _ in range(groups)]
    ends, contended = shared(groups), shared(groups * workers)

    def worker(slot, group):
        def section(_iteration):
            end = ends[group]
            pwrite(files[group], block, end)
            ends[group] = end + len(block)

        contended[slot] = contend(locks[group], range(iterations), section)

    with run.clock():
        start_units(run, [partial(worker, slot, slot // workers) for slot in range(groups * workers)])
    run.evidence(contended=sum(contended))
    return {"bytes": close_files(run, files)}


def threads(run) -> dict:
    return blocking(run, threading.Lock, lambda n: [0] * n, units.threads)


def greenlets(run) -> dict:
    """gevent has no cooperative file write: the hub's thread pool makes it
    (a greenlet waits for it, holding the lock)."""
    import gevent
    import gevent.lock

    threadpool = gevent.get_hub().threadpool

    def pwrite(fd, data, offset):
        return threadpool.apply(os.pwrite, (fd, data, offset))

    return blocking(run, gevent.lock.Semaphore, lambda n: [0] * n, units.greenlets, pwrite)


def processes(run) -> dict:
    fork = multiprocessing.get_context("fork")
    return blocking(run, fork.Lock, lambda n: fork.RawArray("q", n), units.processes)


def tasks(run) -> dict:
    """asyncio has no asynchronous file write: asyncio.to_thread makes it on
    the loop's default executor (a task awaits it, holding the lock)."""
    groups, workers, iterations = run.params["groups"], run.params["workers"], run.params["iterations"]
    block = b"x" * run.params["size"]

    async def main():
        files = open_files(run)
        locks, holds = [asyncio.Lock() for _ in range(groups)], [[0] for _ in range(groups)]
        ends, contended = [0] * groups, [0] * (groups * workers)

        async def worker(slot, group):
            async def section(_iteration):
                end = ends[group]
                await asyncio.to_thread(os.pwrite, files[group], block, end)
                ends[group] = end + len(block)

            contended[slot] = await contend_async(locks[group], holds[group], range(iterations), section)

        with run.clock():
            await units.tasks(run, [partial(worker, slot, slot // workers) for slot in range(groups * workers)])
        run.evidence(contended=sum(contended))
        return {"bytes": close_files(run, files)}

    return run.asyncio_run(main())


MECHANISMS = {"thread": threads, "asyncio": tasks, "uvloop": tasks, "gevent": greenlets, "process": processes}
