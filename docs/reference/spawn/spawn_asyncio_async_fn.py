"""The smallest idiomatic asyncio program of spawn's task shape
(docs/findings.md, "The million-task table"): start TASKS tasks, each an
async function that sleeps DELAY_MS and returns its index, await them all,
print the sum. spawn_asyncio_bare_timer.py is the same without the async
function. Usage: python3 spawn_asyncio_async_fn.py TASKS DELAY_MS"""

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
