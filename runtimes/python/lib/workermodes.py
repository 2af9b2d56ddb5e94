"""map-trivial, map-cpu, map-io and map-shrink: Pbt's worker modes (seed
001), done alike for every mechanism. One operation is one evaluation of the
cases; every mode but none makes its units for each evaluation: `workers` of
them (0: one per CPU the trial may use, kit.parallelism), no more than there
are cases (as Parallel.map, which Pbt calls, does), unit w of n evaluating
the cases w, w + n, ...; the results are gathered in case order, as many as
the units returned.

A workload module defines
  setup(run)                 the cases' inputs, made before the timing;
  evaluate(input)            one case;
  evaluate_async(input)      optionally, one case on an event loop (a
                             coroutine function), where the case does file
                             I/O: it awaits that on the loop's blocking
                             pool, as docs/extending.md's policy says;
  evaluate_gevent(input)     optionally, the same in a greenlet, its I/O
                             on the hub's thread pool;
  evaluation(inputs, total)  one operation: a generator that yields each
                             list of inputs it needs evaluated, is sent
                             their results in order, and adds its figures to
                             total (a Counter), so that one code serves the
                             plain and the asyncio mechanisms.

Under the GIL one thread runs Python code at a time: threads, tasks and
greenlets evaluate their stripes one after another where the work never lets
go of the GIL or never awaits (runtime.toml's notes); forked processes run
at once. The units are the threads, tasks, greenlets or processes made for
the stripes; the pool threads that make a task's or greenlet's file I/O are
not units of their own."""

import os
import pickle
from collections import Counter
from functools import partial

import kit
from lib import units


def mechanisms(workload) -> dict:
    return {
        "none": lambda run: in_place(run, workload),
        "thread": lambda run: threads(run, workload),
        "process": lambda run: processes(run, workload),
        "asyncio": lambda run: tasks(run, workload),
        "uvloop": lambda run: tasks(run, workload),
        "gevent": lambda run: greenlets(run, workload),
    }


def in_place(run, workload) -> dict:
    """Pbt's worker: :none, the baseline: the cases in place, in order."""
    evaluate = workload.evaluate
    return evaluations(run, workload, lambda inputs: [evaluate(x) for x in inputs])


def threads(run, workload) -> dict:
    """A threading.Thread per stripe (lib/units.py)."""
    return evaluations(run, workload, striped(run, workload.evaluate, units.threads))


def greenlets(run, workload) -> dict:
    """A greenlet per stripe (gevent.spawn, joinall: lib/units.py)."""
    evaluate = getattr(workload, "evaluate_gevent", workload.evaluate)
    return evaluations(run, workload, striped(run, evaluate, units.greenlets))


def striped(run, evaluate, run_all):
    """The map of the modes whose units share memory: run_all(run, bodies)
    runs a unit per stripe, each writing its results into a slot of its own."""
    workers = worker_count(run)

    def apply(inputs):
        n = min(workers, len(inputs))
        stripes = [None] * n

        def body(w):
            stripes[w] = stripe(evaluate, inputs, w, n)

        run_all(run, [partial(body, w) for w in range(n)])
        return interleaved(stripes, len(inputs))

    return apply


def tasks(run, workload) -> dict:
    """An asyncio task per stripe, in a TaskGroup (lib/units.py): striped's
    map, awaited; a case that does I/O awaits it (evaluate_async)."""
    evaluate, workers = workload.evaluate, worker_count(run)
    evaluate_async = getattr(workload, "evaluate_async", None)

    async def apply(inputs):
        n = min(workers, len(inputs))
        stripes = [None] * n

        async def body(w):
            if evaluate_async is None:
                stripes[w] = stripe(evaluate, inputs, w, n)
            else:
                stripes[w] = [await evaluate_async(x) for x in inputs[w::n]]

        await units.tasks(run, [partial(body, w) for w in range(n)])
        return interleaved(stripes, len(inputs))

    return evaluations_async(run, workload, apply)


def processes(run, workload) -> dict:
    """A forked process per stripe (the kit's fork, which stamps the child's
    span): its results come back pickled through a pipe of its own."""
    evaluate, workers = workload.evaluate, worker_count(run)

    def apply(inputs):
        n = min(workers, len(inputs))
        children = []
        for w in range(n):
            reader, writer = os.pipe()
            children.append((run.fork(send_stripe, reader, writer, evaluate, inputs, w, n), reader))
            os.close(writer)  # the child's is the only write end left: its exit ends the stream
        stripes = [receive(reader) for _, reader in children]
        run.wait([pid for pid, _ in children])
        return interleaved(stripes, len(inputs))

    return evaluations(run, workload, apply)


def send_stripe(reader, writer, evaluate, inputs, w, n):
    os.close(reader)
    with open(writer, "wb") as out:
        pickle.dump(stripe(evaluate, inputs, w, n), out)


def receive(reader):
    with open(reader, "rb") as stream:
        return pickle.load(stream)


def evaluations(run, workload, apply) -> dict:
    """Makes the inputs, then hands the kit one evaluation per operation,
    `apply` mapping a list of inputs to their results in order. Returns the
    figures summed over the run."""
    inputs, total = workload.setup(run), Counter()

    def evaluate_all():
        steps = workload.evaluation(inputs, total)
        try:
            wanted = next(steps)
            while True:
                wanted = steps.send(apply(wanted))
        except StopIteration:
            pass

    run.rate(evaluate_all)
    return dict(total)


def evaluations_async(run, workload, apply) -> dict:
    """evaluations with an async `apply`, the kit's loop inside the trial's
    event loop."""
    inputs, total = workload.setup(run), Counter()

    async def evaluate_all():
        steps = workload.evaluation(inputs, total)
        try:
            wanted = next(steps)
            while True:
                wanted = steps.send(await apply(wanted))
        except StopIteration:
            pass

    run.asyncio_run(run.rate_async(evaluate_all))
    return dict(total)


def worker_count(run) -> int:
    return run.params["workers"] or kit.parallelism()


def stripe(evaluate, inputs, w, n) -> list:
    """Unit w's share of n: the cases w, w + n, w + 2n, ..."""
    return [evaluate(x) for x in inputs[w::n]]


def interleaved(stripes, size) -> list:
    """The stripes' results in case order (a stripe short of results fails)."""
    results, n = [None] * size, len(stripes)
    for w, returned in enumerate(stripes):
        results[w::n] = returned
    return results
