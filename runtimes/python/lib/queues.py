"""queue and mailbox: pushes and pops that count how often they had to wait.
A push first tries put_nowait, a pop get_nowait; only one that finds the
queue full (empty) counts as blocked and then waits in put (get). The
blocking forms serve queue.Queue, gevent.queue.Queue and
multiprocessing.Queue alike (all raise queue.Full and queue.Empty); the
async forms asyncio.Queue."""

import asyncio
from multiprocessing.queues import Queue as ProcessQueue
from queue import Empty, Full


def push(queue, value) -> int:
    """1 if the push had to wait, else 0."""
    try:
        queue.put_nowait(value)
        return 0
    except Full:
        queue.put(value)
        return 1


def pop(queue) -> tuple[object, int]:
    """The value, and 1 if the pop found the queue empty and waited."""
    try:
        return queue.get_nowait(), 0
    except Empty:
        found_empty = was_empty(queue)  # looked at before the get takes what comes
        return queue.get(), int(found_empty)


def was_empty(queue) -> bool:
    """Whether a get_nowait that raised Empty found the queue empty.
    multiprocessing.Queue's raises it too when another consumer holds its
    read lock: its empty() (a poll of its pipe, without the lock) tells that
    contention from an empty pipe. The other queues take their lock before
    they look, so their Empty is always an empty queue. (A put_nowait's Full
    is always a full queue: multiprocessing.Queue's is its bound's
    semaphore.)"""
    return queue.empty() if isinstance(queue, ProcessQueue) else True


async def push_async(queue: asyncio.Queue, value) -> int:
    try:
        queue.put_nowait(value)
        return 0
    except asyncio.QueueFull:
        await queue.put(value)
        return 1


async def pop_async(queue: asyncio.Queue) -> tuple[object, int]:
    try:
        return queue.get_nowait(), 0
    except asyncio.QueueEmpty:
        return await queue.get(), 1


def new_queue(mechanism: str, capacity: int):
    """A blocking row's queue of `capacity` items (0: no bound), and what
    makes sure a process's pushes have left it before the process ends."""
    if mechanism == "gevent":
        from gevent.queue import Queue

        return Queue(capacity or None), flush_nothing  # gevent's Queue(0) is unbounded only as None
    if mechanism == "process":
        import multiprocessing

        return multiprocessing.get_context("fork").Queue(capacity), flush_feeder
    import queue

    return queue.Queue(capacity), flush_nothing


def flush_nothing(queue):
    pass


def flush_feeder(queue):
    """multiprocessing.Queue's feeder thread writes the pushes to its pipe:
    close it and wait for it to finish before the process exits."""
    queue.close()
    queue.join_thread()
