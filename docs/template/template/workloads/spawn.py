"""10,000 tasks (workloads/spawn.toml): start `tasks` units at once; unit i
sleeps `delay_ms` if that is more than 0, then returns i; await them all and
sum what they returned."""

import threading
import time


def thread(params: dict, units) -> dict:
    delay = params["delay_ms"] / 1000
    returned = [0] * params["tasks"]

    def body(i):
        units.started(i)
        if delay:
            time.sleep(delay)
        returned[i] = i
        units.finished(i)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(params["tasks"])]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"sum": sum(returned)}
