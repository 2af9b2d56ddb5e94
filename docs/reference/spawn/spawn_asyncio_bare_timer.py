"""A task per bare sleep, no code of its own (docs/findings.md, "The
million-task table"): start TASKS tasks of asyncio.sleep(DELAY_MS) that each
return their index, await them all, print the sum.
spawn_asyncio_async_fn.py is spawn's shape: an async function per task.
Usage: python3 spawn_asyncio_bare_timer.py TASKS DELAY_MS"""

import asyncio
import sys


async def main(tasks: int, delay: float) -> int:
    async with asyncio.TaskGroup() as group:
        started = [group.create_task(asyncio.sleep(delay, i)) for i in range(tasks)]
    return sum(task.result() for task in started)


if __name__ == "__main__":
    print(asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]) / 1000)))
