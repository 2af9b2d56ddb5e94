"""The smallest idiomatic asyncio program for spawn's million-task cell
(docs/findings.md, "The million-task table"): start TASKS tasks
that each sleep DELAY_MS and return their index, await them all, print the
sum. Usage: python3 spawn_asyncio.py TASKS DELAY_MS"""

import asyncio
import sys


async def unit(i: int, delay: float) -> int:
    await asyncio.sleep(delay)
    return i


async def main(tasks: int, delay: float) -> int:
    async with asyncio.TaskGroup() as group:
        started = [group.create_task(unit(i, delay)) for i in range(tasks)]
    return sum(task.result() for task in started)


if __name__ == "__main__":
    print(asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]) / 1000)))
