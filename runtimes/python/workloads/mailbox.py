"""Mailbox (workloads/mailbox.toml): a sender unit sends the payloads
1..messages in order to a receiver unit's mailbox, a queue of at most
`capacity` messages (0: no bound); the receiver takes exactly `messages`,
counting and summing them and folding k x payload of its k-th message into a
checksum modulo 1,000,000,007, and hands its totals back. `blocked` counts
the sends that found the mailbox full and the takes that found it empty
(lib/queues.py), each unit in a slot of its own."""

import asyncio

from lib import units
from lib.queues import new_queue, pop, pop_async, push, push_async

MODULUS = 1_000_000_007
COUNT, SUM, ORDERED, RECEIVER_BLOCKED, SENDER_BLOCKED = range(5)  # the slots the units fill


def blocking(run, unit_kind) -> dict:
    """thread (queue.Queue), gevent (gevent.queue.Queue) and process
    (multiprocessing.Queue, whose messages cross a pipe)."""
    messages = run.params["messages"]
    started = unit_kind(run)
    slots = started.shared(5)
    mailbox, flush = new_queue(run.mechanism, run.params["capacity"])

    def sender():
        slots[SENDER_BLOCKED] = sum(push(mailbox, payload) for payload in range(1, messages + 1))
        flush(mailbox)

    def receiver():
        total = ordered = waits = 0
        for k in range(1, messages + 1):
            payload, waited = pop(mailbox)
            total, ordered, waits = total + payload, (ordered + k * payload) % MODULUS, waits + waited
        slots[COUNT], slots[SUM], slots[ORDERED], slots[RECEIVER_BLOCKED] = messages, total, ordered, waits

    started.join([started.start(receiver), started.start(sender)])
    run.evidence(blocked=slots[SENDER_BLOCKED] + slots[RECEIVER_BLOCKED])
    return {"count": slots[COUNT], "sum": slots[SUM], "ordered": slots[ORDERED]}


def threads(run) -> dict:
    return blocking(run, units.Threads)


def greenlets(run) -> dict:
    return blocking(run, units.Greenlets)


def processes(run) -> dict:
    return blocking(run, units.Processes)


def tasks(run) -> dict:
    messages = run.params["messages"]

    async def sender(mailbox):
        blocked = 0
        for payload in range(1, messages + 1):
            blocked += await push_async(mailbox, payload)
        return blocked

    async def receiver(mailbox):
        count = total = ordered = waits = 0
        for k in range(1, messages + 1):
            payload, waited = await pop_async(mailbox)
            count, total, ordered, waits = count + 1, total + payload, (ordered + k * payload) % MODULUS, waits + waited
        return count, total, ordered, waits

    async def main():
        mailbox = asyncio.Queue(run.params["capacity"])  # 0: no bound
        async with asyncio.TaskGroup() as group:
            receiving = group.create_task(units.task(run, lambda: receiver(mailbox)))
            sending = group.create_task(units.task(run, lambda: sender(mailbox)))
        count, total, ordered, waits = receiving.result()
        run.evidence(blocked=waits + sending.result())
        return {"count": count, "sum": total, "ordered": ordered}

    return run.asyncio_run(main())


MECHANISMS = {"thread": threads, "asyncio": tasks, "uvloop": tasks, "gevent": greenlets, "process": processes}
