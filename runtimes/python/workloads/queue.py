"""Queue (workloads/queue.toml): per group one queue of at most `capacity`
items (0: no bound); `producers` units push 1..items each; once all of them
are done, the caller pushes one stop token per consumer; `consumers` units
pop until a stop token, counting and summing what they popped. `blocked`
counts the pushes that found the queue full and the pops that found it
empty (lib/queues.py), each unit in a slot of its own, the caller's stop
tokens in its own count."""

import asyncio
from functools import partial

from lib import units
from lib.queues import new_queue, pop, pop_async, push, push_async

STOP = 0  # the values pushed are 1..items


def blocking(run, unit_kind) -> dict:
    """thread (queue.Queue), gevent (gevent.queue.Queue) and process
    (multiprocessing.Queue, whose items cross a pipe)."""
    groups, producers, consumers = run.params["groups"], run.params["producers"], run.params["consumers"]
    items = run.params["items"]
    started = unit_kind(run)
    blocked = started.shared(groups * (producers + consumers))
    counts, sums = started.shared(groups * consumers), started.shared(groups * consumers)

    def producer(slot, queue, flush):
        blocked[slot] = sum(push(queue, value) for value in range(1, items + 1))
        flush(queue)

    def consumer(slot, queue):
        count = total = waits = 0
        while True:
            value, waited = pop(queue)
            waits += waited
            if value == STOP:
                break
            count, total = count + 1, total + value
        counts[slot], sums[slot], blocked[groups * producers + slot] = count, total, waits

    all_groups = []
    for group in range(groups):
        queue, flush = new_queue(run.mechanism, run.params["capacity"])
        pushing = [started.start(partial(producer, group * producers + i, queue, flush)) for i in range(producers)]
        popping = [started.start(partial(consumer, group * consumers + i, queue)) for i in range(consumers)]
        all_groups.append((queue, flush, pushing, popping))
    stops_blocked = 0
    for queue, flush, pushing, _ in all_groups:
        started.join(pushing)
        stops_blocked += sum(push(queue, STOP) for _ in range(consumers))
        flush(queue)
    started.join([unit for *_, popping in all_groups for unit in popping])
    run.evidence(blocked=sum(blocked) + stops_blocked)
    return {"count": sum(counts), "sum": sum(sums)}


def threads(run) -> dict:
    return blocking(run, units.Threads)


def greenlets(run) -> dict:
    return blocking(run, units.Greenlets)


def processes(run) -> dict:
    return blocking(run, units.Processes)


def tasks(run) -> dict:
    groups, producers, consumers = run.params["groups"], run.params["producers"], run.params["consumers"]
    items = run.params["items"]

    async def producer(queue):
        blocked = 0
        for value in range(1, items + 1):
            blocked += await push_async(queue, value)
        return blocked

    async def consumer(queue):
        count = total = waits = 0
        while True:
            value, waited = await pop_async(queue)
            waits += waited
            if value == STOP:
                return count, total, waits
            count, total = count + 1, total + value

    async def main():
        blocked = count = total = 0
        async with asyncio.TaskGroup() as group:
            all_groups = []
            for _ in range(groups):
                queue = asyncio.Queue(run.params["capacity"])  # 0: no bound
                pushing = [group.create_task(units.task(run, partial(producer, queue))) for _ in range(producers)]
                popping = [group.create_task(units.task(run, partial(consumer, queue))) for _ in range(consumers)]
                all_groups.append((queue, pushing, popping))
            for queue, pushing, _ in all_groups:
                blocked += sum(await asyncio.gather(*pushing))
                for _ in range(consumers):
                    blocked += await push_async(queue, STOP)
        for *_, popping in all_groups:
            for task in popping:
                popped, popped_sum, waits = task.result()
                count, total, blocked = count + popped, total + popped_sum, blocked + waits
        run.evidence(blocked=blocked)
        return {"count": count, "sum": total}

    return run.asyncio_run(main())


MECHANISMS = {"thread": threads, "asyncio": tasks, "uvloop": tasks, "gevent": greenlets, "process": processes}
