"""Worker modes: I/O-bound work (workloads/map-io.toml): each case reads the
whole of one file of `file_size` bytes and appends as many characters as its
LCG draw in [0, 10] says; `length` adds up the lengths. lib/workermodes.py
runs it in every worker mode. On an event loop the read is the loop's
blocking pool's (docs/extending.md, "File I/O on an event loop"): a regular
file is not pollable, and neither asyncio nor gevent has a file read of its
own that does not hand it to a thread."""

import asyncio
import os
import sys

from lib import lcg, workermodes


def setup(run) -> list[tuple[str, int]]:
    """The file is written before the timing; each case gets its path and its draw."""
    path = os.path.join(run.scratch, "map-io")
    with open(path, "wb") as file:
        file.write(b"x" * run.params["file_size"])
    return [(path, n) for n in lcg.draws(run.params["cases"], 0, 10)]


def read(path: str) -> bytes:
    with open(path, "rb") as file:
        return file.read()


def evaluate(case, read=read) -> int:
    path, n = case
    return len(read(path) + b"x" * n)


async def evaluate_async(case) -> int:
    """asyncio and uvloop: the read on the loop's default executor
    (asyncio.to_thread), the task awaiting it."""
    path, n = case
    return len(await asyncio.to_thread(read, path) + b"x" * n)


def evaluate_gevent(case) -> int:
    """gevent: the read on the hub's thread pool, the greenlet waiting for it."""
    import gevent

    threadpool = gevent.get_hub().threadpool
    return evaluate(case, read=lambda path: threadpool.apply(read, (path,)))


def evaluation(inputs, total):
    total["length"] += sum((yield inputs))


MECHANISMS = workermodes.mechanisms(sys.modules[__name__])
