"""10,000 tasks (workloads/spawn.toml): start `tasks` units at once; unit i
sleeps `delay_ms` if that is more than 0, then returns i; await them all and
sum what they returned. Every mechanism starts every unit before it awaits
the first, so that the sleeps overlap. Memory is this workload's figure."""

import asyncio
import os
import struct
import threading
import time

VALUE = struct.Struct("<Q")


def threads(run) -> dict:
    delay, returned = run.params["delay_ms"] / 1000, [0] * run.params["tasks"]

    def body(i):
        with run.units.unit():
            if delay:
                time.sleep(delay)
            returned[i] = i

    started = [threading.Thread(target=body, args=(i,)) for i in range(run.params["tasks"])]
    for thread in started:
        thread.start()
    for thread in started:
        thread.join()
    return {"sum": sum(returned)}


def tasks(run) -> dict:
    delay = run.params["delay_ms"] / 1000

    async def body(i):
        with run.units.unit():
            if delay:
                await asyncio.sleep(delay)
            return i

    async def main():
        async with asyncio.TaskGroup() as group:
            started = [group.create_task(body(i)) for i in range(run.params["tasks"])]
        return sum(task.result() for task in started)

    return {"sum": run.asyncio_run(main())}


def greenlets(run) -> dict:
    import gevent

    delay = run.params["delay_ms"] / 1000

    def body(i):
        with run.units.unit():
            if delay:
                gevent.sleep(delay)
            return i

    started = [gevent.spawn(body, i) for i in range(run.params["tasks"])]
    gevent.joinall(started, raise_error=True)
    return {"sum": sum(greenlet.value for greenlet in started)}


def processes(run) -> dict:
    """Each child writes its value to a shared pipe (8 bytes: one atomic write)."""
    delay = run.params["delay_ms"] / 1000
    results, report = os.pipe()

    def body(i):
        if delay:
            time.sleep(delay)
        os.write(report, VALUE.pack(i))

    pids = [run.fork(body, i) for i in range(run.params["tasks"])]
    os.close(report)
    with open(results, "rb") as reader:
        total = sum(value for (value,) in VALUE.iter_unpack(reader.read()))  # EOF once every child has exited
    run.wait(pids)
    return {"sum": total}


MECHANISMS = {"thread": threads, "asyncio": tasks, "uvloop": tasks, "gevent": greenlets, "process": processes}
