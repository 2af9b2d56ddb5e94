"""invoke and invoke-waiting: one operation starts a unit whose body
increments a counter, and gets its result, as `mode` says:
  await:  start a unit, await it, then the next;
  batch:  start a whole batch, then await them all;
  forget: start a whole batch, then yield once so that they run (the seed's
          call_and_forget + `wait 0`); the run awaits the rest at its end.
A waiting unit yields to its scheduler once before it increments (the seed's
`wait 0` inside the proc). Each mechanism hands the kit its operation and
what ends a batch; the count is kept by the bodies.

Processes are n/a (runtime.toml): a forked body cannot increment the
caller's counter."""

import asyncio
import os
import threading

import kit


def mechanisms(waits: bool) -> dict:
    """The workload's MECHANISMS: waits says whether a body yields once."""
    return {
        "thread": lambda run: threads(run, waits),
        "asyncio": lambda run: tasks(run, waits),
        "uvloop": lambda run: tasks(run, waits),
        "gevent": lambda run: greenlets(run, waits),
    }


def mode_of(run) -> str:
    mode = run.params.get("mode")
    if mode not in ("await", "batch", "forget"):
        raise kit.Refusal(f"unknown mode {mode!r}")
    return mode


def threads(run, waits: bool) -> dict:
    """A threading.Thread per unit; its yield is os.sched_yield(), which lets
    go of the GIL and the CPU, as Ruby's Thread.pass does (yield.py says why
    not time.sleep(0)). Every body appends to one list: list.append is one C
    call, which the GIL makes whole, so no count is lost. Finished threads
    need no join (CPython detaches them): the forgotten ones still running
    after a batch are kept to be joined at the run's end, the others dropped."""
    units, counted, waiting = run.units, [], []

    def body():
        units.start()
        if waits:
            os.sched_yield()
        counted.append(1)
        units.finish()

    def start():
        thread = threading.Thread(target=body)
        thread.start()
        return thread

    def start_and_join():
        start().join()

    def join_batch():
        for thread in waiting:
            thread.join()
        waiting.clear()

    def yield_and_drop_finished():
        os.sched_yield()
        waiting[:] = [thread for thread in waiting if thread.is_alive()]

    mode = mode_of(run)
    if mode == "await":
        run.rate(start_and_join)
    else:
        run.rate(lambda: waiting.append(start()), join_batch if mode == "batch" else yield_and_drop_finished)
        join_batch()  # the forgotten ones
    return {"count": len(counted)}


def tasks(run, waits: bool) -> dict:
    """An asyncio task per unit, in one TaskGroup for the run, which awaits
    the forgotten ones at its end; the yield is `await asyncio.sleep(0)`.
    One thread runs the tasks, and a task switches only where it awaits:
    the counter is a plain variable."""
    units, count, mode = run.units, 0, mode_of(run)

    async def body():
        nonlocal count
        units.start()
        if waits:
            await asyncio.sleep(0)
        count += 1
        units.finish()

    async def main():
        waiting = []
        async with asyncio.TaskGroup() as group:

            async def start_and_await():
                await group.create_task(body())

            async def start():
                waiting.append(group.create_task(body()))

            async def await_batch():
                await asyncio.gather(*waiting)
                waiting.clear()

            async def forget():
                group.create_task(body())

            async def yield_once():
                await asyncio.sleep(0)

            if mode == "await":
                await run.rate_async(start_and_await)
            elif mode == "batch":
                await run.rate_async(start, await_batch)
            else:
                await run.rate_async(forget, yield_once)

    run.asyncio_run(main())
    return {"count": count}


def greenlets(run, waits: bool) -> dict:
    """A greenlet per unit (gevent.spawn), in one gevent.pool.Group for the
    run, which joins the forgotten ones at its end; the yield is
    gevent.sleep(0). Greenlets switch only where they wait: the counter is a
    plain variable."""
    import gevent
    from gevent.pool import Group

    units, group, count, waiting = run.units, Group(), 0, []

    def body():
        nonlocal count
        units.start()
        if waits:
            gevent.sleep(0)
        count += 1
        units.finish()

    def join_batch():
        gevent.joinall(waiting, raise_error=True)
        waiting.clear()

    mode = mode_of(run)
    if mode == "await":
        run.rate(lambda: group.spawn(body).join())
    elif mode == "batch":
        run.rate(lambda: waiting.append(group.spawn(body)), join_batch)
    else:
        run.rate(lambda: group.spawn(body), lambda: gevent.sleep(0))
    group.join(raise_error=True)  # the forgotten ones
    return {"count": count}
