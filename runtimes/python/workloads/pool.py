"""Pool (workloads/pool.toml): a pool of `pool_size` workers serves `jobs`
jobs; job j looks up key j mod `keys` in a table made before the timing
(prepare), key k holding 2k + 1. All jobs are submitted, then all are
awaited, and the values summed. The units are the pool's workers.

ThreadPoolExecutor starts a thread only when no idle one is waiting (since
Python 3.8): with 100 workers and 2,000 trivial jobs it started 62, so the
thread, gevent and asyncio pools are `pool_size` units taking jobs from one
queue and putting values on another, as its own workers take work items.
The process pool is ProcessPoolExecutor, which with the fork start method
starts all its workers at once."""

import asyncio
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

from lib import units

TABLE = {}  # made by prepare, before the timing (and before a process pool forks)


def prepare(params):
    TABLE.update((k, 2 * k + 1) for k in range(params["keys"]))
    return TABLE


def job(j: int) -> int:
    return TABLE[j % len(TABLE)]


def calls(run) -> dict:
    """The floor: the jobs looked up in place by the caller."""
    return {"sum": sum(job(j) for j in range(run.params["jobs"]))}


def queued(run, unit_kind, new_queue) -> dict:
    """thread (queue.SimpleQueue) and gevent (gevent.queue.SimpleQueue): a
    None job stops a worker."""
    todo, done = new_queue(), new_queue()

    def worker():
        while (j := todo.get()) is not None:
            done.put(job(j))

    started = unit_kind(run)
    workers = [started.start(worker) for _ in range(run.params["pool_size"])]
    for j in range(run.params["jobs"]):
        todo.put(j)
    for _ in workers:
        todo.put(None)
    total = sum(done.get() for _ in range(run.params["jobs"]))
    started.join(workers)
    return {"sum": total}


def threads(run) -> dict:
    import queue

    return queued(run, units.Threads, queue.SimpleQueue)


def greenlets(run) -> dict:
    import gevent.queue

    return queued(run, units.Greenlets, gevent.queue.SimpleQueue)


def tasks(run) -> dict:
    async def worker(todo, done):
        while (j := await todo.get()) is not None:
            done.put_nowait(job(j))  # an unbounded queue's put never waits

    async def main():
        todo, done = asyncio.Queue(), asyncio.Queue()
        async with asyncio.TaskGroup() as group:
            for _ in range(run.params["pool_size"]):
                group.create_task(units.task(run, lambda: worker(todo, done)))
            for j in range(run.params["jobs"]):
                todo.put_nowait(j)
            for _ in range(run.params["pool_size"]):
                todo.put_nowait(None)
            total = 0
            for _ in range(run.params["jobs"]):
                total += await done.get()
        return {"sum": total}

    return run.asyncio_run(main())


def processes(run) -> dict:
    """Each job a future of the executor's (submit), its value pickled back."""
    fork = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(run.params["pool_size"], mp_context=fork, initializer=run.pool_initializer()) as pool:
        futures = [pool.submit(job, j) for j in range(run.params["jobs"])]
        total = sum(future.result() for future in futures)
    return {"sum": total}


MECHANISMS = {
    "none": calls,
    "thread": threads,
    "asyncio": tasks,
    "uvloop": tasks,
    "gevent": greenlets,
    "process": processes,
}
