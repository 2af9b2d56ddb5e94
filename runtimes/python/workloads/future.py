"""Futures (workloads/future.toml): create `futures` futures, all before
awaiting any; future i computes (i * i) mod 1000; then await each and sum
the values. Python's futures: concurrent.futures' (a ThreadPoolExecutor's or
ProcessPoolExecutor's, at their default sizes, of the CPUs the trial may use:
kit.parallelism), asyncio's tasks and gevent's greenlets. The units are the
tasks and greenlets, and the pools' threads or processes that ran the
futures."""

import asyncio
import multiprocessing
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import kit
from lib import units


def value(i: int) -> int:
    return i * i % 1000


def calls(run) -> dict:
    """The floor: the values computed in place by the caller."""
    return {"sum": sum(value(i) for i in range(run.params["futures"]))}


def threads(run) -> dict:
    def counted(i):
        with run.units.task():
            return value(i)

    with ThreadPoolExecutor(kit.thread_pool_size()) as pool:
        futures = [pool.submit(counted, i) for i in range(run.params["futures"])]
        return {"sum": sum(future.result() for future in futures)}


def processes(run) -> dict:
    fork = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(kit.parallelism(), mp_context=fork, initializer=run.pool_initializer()) as pool:
        futures = [pool.submit(value, i) for i in range(run.params["futures"])]
        return {"sum": sum(future.result() for future in futures)}


def tasks(run) -> dict:
    async def computed(i):
        return value(i)

    async def main():
        futures = [asyncio.create_task(units.task(run, lambda i=i: computed(i))) for i in range(run.params["futures"])]
        return sum([await future for future in futures])

    return {"sum": run.asyncio_run(main())}


def greenlets(run) -> dict:
    import gevent

    def counted(i):
        with run.units.unit():
            return value(i)

    futures = [gevent.spawn(counted, i) for i in range(run.params["futures"])]
    return {"sum": sum(future.get() for future in futures)}


MECHANISMS = {
    "none": calls,
    "thread": threads,
    "asyncio": tasks,
    "uvloop": tasks,
    "gevent": greenlets,
    "process": processes,
}
