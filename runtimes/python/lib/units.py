"""Starting a run's units, one per body, counting each as it starts and
finishes, and awaiting them all: a body is a callable without arguments (a
coroutine function for tasks). A body that raises fails the run."""

import asyncio
import threading


def threads(run, bodies):
    """A threading.Thread per body, all started, then joined."""
    failures = []

    def unit(body):
        with run.units.unit():
            try:
                body()
            except BaseException as e:  # a thread's exception would only be printed
                failures.append(e)

    started = [threading.Thread(target=unit, args=(body,)) for body in bodies]
    for thread in started:
        thread.start()
    for thread in started:
        thread.join()
    if failures:
        raise failures[0]


def greenlets(run, bodies):
    """A greenlet per body (gevent.spawn), all awaited with joinall."""
    import gevent

    def unit(body):
        with run.units.unit():
            body()

    gevent.joinall([gevent.spawn(unit, body) for body in bodies], raise_error=True)


async def tasks(run, bodies):
    """An asyncio task per body, in one TaskGroup."""

    async def unit(body):
        with run.units.unit():
            await body()

    async with asyncio.TaskGroup() as group:
        for body in bodies:
            group.create_task(unit(body))


def processes(run, bodies):
    """A forked process per body (run.fork stamps it), all reaped."""
    run.wait([run.fork(body) for body in bodies])
