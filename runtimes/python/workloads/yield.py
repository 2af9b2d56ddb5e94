"""Mere waiting: wait 0 (workloads/yield.toml): one operation, the measured
unit yields to its scheduler and is resumed; it counts its resumptions.
`partners` more units yield in a loop beside it until the time box is over;
then they are stopped and awaited (timed, as the end of the run).

`turn` is the spec's turn counter: every unit adds one each time it runs (the
schedulers, the GIL's, asyncio's loop and gevent's hub, are no code of ours);
a yield after which it has moved is `switched`. `turn += 1` is one read and
one write of a closure cell with no call between them: CPython checks for a
thread switch only at calls and backward jumps, so under the GIL no other
thread runs in between, and an increment lost otherwise would only make
`switched` come out low, never high (a yield with no switch leaves `turn` as
it was). Only the measured unit touches its own counts."""

import asyncio
import os

from lib import units


def threads(run) -> dict:
    """The measured unit is the thread running the kit's loop; its yield is
    os.sched_yield(), which lets go of the GIL, yields the CPU and takes the
    GIL again, as Ruby's Thread.pass and c/pthread's sched_yield do. Not
    time.sleep(0): it sleeps in clock_nanosleep, whose timer slack made it
    cost about 80 us a call here (2,600 yields in 0.2 s against 400,700),
    a timer, not a yield.

    Under the GIL one thread runs Python code at a time, so the counter
    moves only when the GIL changed hands: `switched` cannot count
    parallelism. But a partner waiting for the GIL on the other CPU often
    wakes too late: the measured thread's sched_yield, alone on its CPU's
    run queue, returns at once and takes the GIL back (smoke runs of 10 ms,
    unpinned: 37 of 10,220 yields switched in one, 4,550 of 4,550 in the
    next). So with partners the run is pinned to one CPU, as c/pthread and
    go are (and as a build without a GIL would need anyway): the partner
    then waits on the same run queue, and a yield hands it the CPU and the
    GIL (pinned: 7,340 of 7,340, every run within a yield of all). Without
    partners there is nobody to switch to and the thread is left unpinned."""
    if not run.params["partners"]:
        return sync_yields(run, os.sched_yield, units.Threads(run), observable=True)
    was = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(was)})  # this thread, and the partners it starts
    try:
        return sync_yields(run, os.sched_yield, units.Threads(run), observable=True)
    finally:
        os.sched_setaffinity(0, was)


def greenlets(run) -> dict:
    """The measured unit is the greenlet running the kit's loop (the main
    one), its yield gevent.sleep(0): to the hub, which runs the partners
    waiting before it. A lone greenlet's switch to the hub and back runs
    nothing of ours that could see it: with no partner, `switched` is not
    observable (null)."""
    import gevent

    return sync_yields(run, gevent.sleep, units.Greenlets(run), observable=run.params["partners"] > 0)


def sync_yields(run, pause, starter, observable: bool) -> dict:
    """The loop, with `pause()` as the yield, the partners started and
    awaited by starter (lib/units.py's Threads or Greenlets)."""
    turn, resumed, switched, stop = 0, 0, 0, False

    def partner():
        nonlocal turn
        while not stop:
            turn += 1
            pause()

    def measured():
        nonlocal turn, resumed, switched
        turn += 1
        seen = turn
        pause()
        if turn != seen:
            switched += 1
        resumed += 1

    partners = [starter.start(partner) for _ in range(run.params["partners"])]
    with run.units.unit():
        run.rate(measured)
    stop = True
    starter.join(partners)
    run.evidence(switched=switched if observable else None)
    return {"count": resumed}


def tasks(run) -> dict:
    """The measured unit is the task running the kit's loop, its yield
    `await asyncio.sleep(0)`: back to the loop's queue of ready callbacks,
    behind the partners. As with gevent, with no partner `switched` is not
    observable (null): the loop runs nothing of ours."""
    turn, resumed, switched, stop = 0, 0, 0, False

    async def partner():
        nonlocal turn
        with run.units.unit():
            while not stop:
                turn += 1
                await asyncio.sleep(0)

    async def measured():
        nonlocal turn, resumed, switched
        turn += 1
        seen = turn
        await asyncio.sleep(0)
        if turn != seen:
            switched += 1
        resumed += 1

    async def main():
        nonlocal stop
        partners = [asyncio.create_task(partner()) for _ in range(run.params["partners"])]
        with run.units.unit():
            await run.rate_async(measured)
        stop = True
        await asyncio.gather(*partners)

    run.asyncio_run(main())
    run.evidence(switched=switched if run.params["partners"] else None)
    return {"count": resumed}


MECHANISMS = {"thread": threads, "asyncio": tasks, "uvloop": tasks, "gevent": greenlets}
