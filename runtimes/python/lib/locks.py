"""mutex-cpu and mutex-io: each unit enters its group's critical section
once for each of its inputs, `section(input)`, the next input taken before
each acquisition (mutex-cpu's subject is made outside the lock); an
acquisition that finds the lock held (a failed non-blocking acquire, then
the blocking one) counts as contended, in the unit's own count."""


def contend(lock, inputs, section) -> int:
    """For threading.Lock, gevent.lock.Semaphore and multiprocessing.Lock,
    whose acquire(False) tries without waiting. Returns the contended count."""
    contended = 0
    for item in inputs:
        if not lock.acquire(False):
            contended += 1
            lock.acquire()
        try:
            section(item)
        finally:
            lock.release()
    return contended


async def contend_async(lock, holds: list, inputs, section) -> int:
    """For asyncio.Lock, which its release hands to the first waiter: a task
    that then finds it free (locked() false) still waits behind that waiter.
    So an acquisition is contended where another task took the lock between
    the try and the hold, seen on `holds`, the group's count of holds (a
    one-item list, written under the lock only); `section` is a coroutine
    function."""
    contended = 0
    for item in inputs:
        before = holds[0]
        async with lock:
            if holds[0] != before:
                contended += 1
            holds[0] += 1
            await section(item)
    return contended
