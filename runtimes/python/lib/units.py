"""Starting a run's units, one per body, counting each as it starts and
finishes, and awaiting them. A body is a callable without arguments (a
coroutine function for tasks); a body that raises fails the run.

Threads, Greenlets and Processes share one interface, so that a workload
writes its blocking rows once: start(body) returns a handle, join(handles)
awaits them, shared(n) makes n integer slots every unit sees (a list, or
shared memory across processes) for what the units hand back."""

import asyncio
import multiprocessing
import threading


class Threads:
    """A threading.Thread per body."""

    def __init__(self, run):
        self.run, self.failures = run, []

    def start(self, body):
        thread = threading.Thread(target=self._unit, args=(body,))
        thread.start()
        return thread

    def _unit(self, body):
        with self.run.units.unit():
            try:
                body()
            except BaseException as e:  # a thread's exception would only be printed
                self.failures.append(e)

    def join(self, handles):
        for thread in handles:
            thread.join()
        if self.failures:
            raise self.failures[0]

    @staticmethod
    def shared(n: int):
        return [0] * n


class Greenlets:
    """A greenlet per body (gevent.spawn), awaited with joinall."""

    def __init__(self, run):
        import gevent

        self.run, self.gevent = run, gevent

    def start(self, body):
        return self.gevent.spawn(self._unit, body)

    def _unit(self, body):
        with self.run.units.unit():
            body()

    def join(self, handles):
        self.gevent.joinall(handles, raise_error=True)

    shared = staticmethod(Threads.shared)


class Processes:
    """A forked process per body (run.fork stamps it), reaped by join."""

    def __init__(self, run):
        self.run = run

    def start(self, body):
        return self.run.fork(body)

    def join(self, handles):
        self.run.wait(handles)

    @staticmethod
    def shared(n: int):
        return multiprocessing.get_context("fork").RawArray("q", n)


def run_all(units, bodies):
    """Starts a unit per body, then awaits them all."""
    units.join([units.start(body) for body in bodies])


def threads(run, bodies):
    run_all(Threads(run), bodies)


def greenlets(run, bodies):
    run_all(Greenlets(run), bodies)


def processes(run, bodies):
    run_all(Processes(run), bodies)


async def task(run, body):
    """A task's coroutine: the body (a coroutine function), counted."""
    with run.units.unit():
        return await body()


async def tasks(run, bodies):
    """An asyncio task per body, in one TaskGroup."""
    async with asyncio.TaskGroup() as group:
        for body in bodies:
            group.create_task(task(run, body))
