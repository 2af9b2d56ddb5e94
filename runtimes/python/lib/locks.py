"""mutex-cpu and mutex-io: each unit enters its group's critical section
`iterations` times; an acquisition that finds the lock held (a failed
non-blocking acquire, then the blocking one) counts as contended, in the
unit's own count."""


def contend(lock, iterations: int, section) -> int:
    """For threading.Lock, gevent.lock.Semaphore and multiprocessing.Lock,
    whose acquire(False) tries without waiting. Returns the contended count."""
    contended = 0
    for _ in range(iterations):
        if not lock.acquire(False):
            contended += 1
            lock.acquire()
        try:
            section()
        finally:
            lock.release()
    return contended


async def contend_async(lock, holds: list, iterations: int, section) -> int:
    """For asyncio.Lock, which its release hands to the first waiter: a task
    that then finds it free (locked() false) still waits behind that waiter.
    So an acquisition is contended where another task took the lock between
    the try and the hold, seen on `holds`, the group's count of holds (a
    one-item list, written under the lock only); `section` is a coroutine
    function."""
    contended = 0
    for _ in range(iterations):
        before = holds[0]
        async with lock:
            if holds[0] != before:
                contended += 1
            holds[0] += 1
            await section()
    return contended
