"""The Python kit: one trial per process, as docs/protocol.md says. It reads
the request on stdin, runs the mechanism warmup + runs times and prints the
response as the only line of stdout (anything else written there goes to
stderr).

The workload API
================
workloads/<id>.py ends with MECHANISMS = {"thread": threads, "asyncio":
tasks, "uvloop": tasks, ...}: the manifest's mechanism names mapped to
functions, each `def f(run) -> dict` returning the run's result (the spec's
[expect] names, as ints). It may define prepare(params), called once before
the first run, untimed; its value is run.prepared. Code several workloads
share is in lib/ (`import lib.<module>`); this kit is `import kit`.

run.params        the request's parameters (a dict)
run.mechanism     the request's mechanism (a name of the manifest's)
run.scratch       the trial's scratch directory
run.clock()       `with run.clock():` marks the timed region (plain or async
                  code: it reads the clocks on enter and exit); without it
                  the whole call is timed. At most one a run.
run.asyncio_run(coro)  runs a coroutine on the trial's loop: asyncio's own
                  for asyncio, uvloop's for uvloop (one loop a trial, made
                  before the first run), so that one function serves both.
run.units         the run's units (Units below): start()/finish() as the
                  first and last act of a unit's body, or `with
                  run.units.unit():`; spans([(start, end), ...]) of stamps a
                  unit took itself (stamp()); counted(started=, peak=) for
                  figures counted elsewhere; `with run.units.task():` around a
                  task on a pool's thread (the units are the threads that ran
                  the run's tasks, each alive while it runs one). A mechanism
                  that starts no unit
                  touches nothing (units = peak_live = 0).
run.evidence(contended=n, ...)  the counts the spec's [evidence] declares;
                  None where the mechanism cannot observe it.
run.rate(operation, end_batch=None)  rate workloads: starts the clocks and
                  runs batches of `batch` calls of operation(), then
                  end_batch(), until `seconds` have passed; the clocks stop
                  when the mechanism returns (what it awaits after the loop
                  is timed), unless a clock region says otherwise.
await run.rate_async(operation, end_batch=None)  the same, with coroutine
                  functions, inside a coroutine.
run.fork(body, *args)  runs body(*args) in a forked child, which stamps its
                  own span and, in runs that account for memory, its private
                  memory (for tree_rss_kb); returns the pid. run.wait(pids)
                  reaps them (a child that failed fails the run).
run.listening(sock)  a server's (echo): says that the run listens on sock, a
                  listening socket made before the clock (tcp:127.0.0.1:PORT
                  or unix:PATH), in one line on stdout ahead of the answer,
                  which the harness hands to its load generator; the clock
                  region follows it at once.
run.pool_initializer()  the initializer of a pool's forked workers
                  (ProcessPoolExecutor(initializer=...)): each worker stamps
                  its span, and its private memory, as it exits.

In gevent trials the kit monkey-patches the standard library (gevent's
monkey.patch_all) before it imports anything else; other trials never load
gevent, nor uvloop: a workload file imports them inside its gevent functions.

Counting units takes no lock: start() and finish() append +1 or -1 to an
array, one C call, which the GIL makes whole (no other thread runs inside
it; greenlets and asyncio tasks switch only where they wait). The events
are swept after the clocks stop: `units` counts the +1s, `peak_live` is the
largest running sum. An interpreter without a GIL (free-threaded builds)
takes a lock of the kit's own around the append instead (LockedUnits).

COUNTING COST, where it weighs most (a unit started and awaited per
operation): an asyncio task created and awaited 20,000 times, its body bare
or inside `with units.unit():`, 21 alternating rounds in one process, three
runs: 4,592-4,906 ns an operation without, 4,969-5,328 ns with, +380 to
+420 ns (+8 to 9%), two method calls and two array appends. A thread started
and joined per operation (about 95 us) shows no difference above the noise.
"""

import gc
import importlib.util
import json
import os
import platform
import resource
import struct
import sys
import time
import traceback
from _thread import get_ident
from array import array
from itertools import accumulate, repeat
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORKLOADS = HERE / "workloads"
GIL = getattr(sys, "_is_gil_enabled", lambda: True)()
CHILD_RECORD = struct.Struct("<3Q")  # private kB, start stamp, end stamp


class Refusal(Exception):
    """A request the kit cannot serve: a clean refusal, not a failure."""


def stamp() -> int:
    """The monotonic clock in ns, comparable across forked processes."""
    return time.monotonic_ns()


class Units:
    """A run's units: how many started, and the most alive at once."""

    def __init__(self):
        self._events = array("b")  # +1 a start, -1 a finish, in the order they happened
        self._spans = []
        self._counted = None
        self._threads = {}  # the pool's threads that ran the run's tasks
        self._busy = array("b")  # +1 a task started, -1 one finished

    def start(self):
        self._events.append(1)

    def finish(self):
        self._events.append(-1)

    def unit(self):
        """`with units.unit():` around a unit's body."""
        return self

    def __enter__(self):
        self.start()

    def __exit__(self, *exc):
        self.finish()

    def task(self):
        """`with units.task():` around a task on a pool's thread."""
        return PoolTask(self)

    def spans(self, pairs):
        """Units that took their own stamps as they started and ended."""
        self._spans.extend(pairs)

    def counted(self, started: int, peak: int):
        """Figures counted elsewhere (a pool's own)."""
        self._counted = (started, peak)

    def count(self) -> tuple[int, int]:
        """(units, peak_live), after the clocks stopped."""
        sources = [bool(self._events), bool(self._spans), self._counted is not None, bool(self._threads)]
        if sum(sources) > 1:
            raise RuntimeError("a run counts its units one way: start/finish, spans, counted or task")
        if self._counted:
            return self._counted
        if self._spans:
            return len(self._spans), most_at_once(self._spans)
        if self._threads:
            if sum(self._busy):
                raise RuntimeError(f"{sum(self._busy)} tasks still running at the end of the run")
            return len(self._threads), max(accumulate(self._busy))
        live = sum(self._events)
        if live:
            raise RuntimeError(f"{live} units still alive at the end of the run")
        started = self._events.count(1)
        return started, max(accumulate(self._events), default=0)


class PoolTask:
    """A task on a pool's thread: the thread's key in a dict and an event, one
    C call each, which the GIL makes whole."""

    __slots__ = ("units",)

    def __init__(self, units: Units):
        self.units = units

    def __enter__(self):
        self.units._threads[get_ident()] = True
        self.units._busy.append(1)

    def __exit__(self, *exc):
        self.units._busy.append(-1)


def most_at_once(spans) -> int:
    """The most (start, end) spans open at once; a span that ends when another
    starts is counted as ended first."""
    events = sorted([(start, 1) for start, _ in spans] + [(end, -1) for _, end in spans])
    return max(accumulate(step for _, step in events))


class LockedUnits(Units):
    """Units where threads run Python code at once (no GIL)."""

    def __init__(self):
        super().__init__()
        import threading

        self._lock = threading.Lock()

    def start(self):
        with self._lock:
            self._events.append(1)

    def finish(self):
        with self._lock:
            self._events.append(-1)

    def task(self):
        raise RuntimeError("units.task counts under the GIL only")


class Clocks:
    """Wall time and the CPU time of the process and its reaped children."""

    __slots__ = ("wall", "user", "sys")

    def __init__(self):
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        self.user = own.ru_utime + children.ru_utime
        self.sys = own.ru_stime + children.ru_stime
        self.wall = time.monotonic_ns()

    def since(self, start: "Clocks") -> dict:
        return {
            "wall_ns": max(1, self.wall - start.wall),
            "user_ns": max(0, round((self.user - start.user) * 1e9)),
            "sys_ns": max(0, round((self.sys - start.sys) * 1e9)),
        }


class Run:
    """One run of a mechanism: what the workload's function receives."""

    def __init__(self, trial: "Trial"):
        self._trial = trial
        self.params = trial.params
        self.mechanism = trial.mechanism
        self.prepared = trial.prepared
        self.scratch = trial.scratch
        self.units = Units() if GIL else LockedUnits()
        self._evidence = {}
        self._start = self._stop = None
        self.ops = None

    def clock(self):
        return self

    def __enter__(self):
        self._begin()

    def __exit__(self, *exc):
        self._stop = Clocks()

    def _begin(self):
        if self._start is not None:
            raise RuntimeError("a run has at most one clock region")
        self._start = Clocks()

    def evidence(self, **counts):
        self._evidence.update(counts)

    def asyncio_run(self, coroutine):
        return self._trial.runner.run(coroutine)

    def rate(self, operation, end_batch=None):
        batch, deadline = self._rate_loop()
        batches = 0
        while True:
            for _ in repeat(None, batch):
                operation()
            if end_batch is not None:
                end_batch()
            batches += 1
            if time.monotonic_ns() >= deadline:
                break
        self.ops = batches * batch

    async def rate_async(self, operation, end_batch=None):
        batch, deadline = self._rate_loop()
        batches = 0
        while True:
            for _ in repeat(None, batch):
                await operation()
            if end_batch is not None:
                await end_batch()
            batches += 1
            if time.monotonic_ns() >= deadline:
                break
        self.ops = batches * batch

    def _rate_loop(self) -> tuple[int, int]:
        if self._trial.kind != "rate":
            raise RuntimeError("run.rate is for rate workloads")
        self._begin()
        return self.params["batch"], self._start.wall + round(self.params["seconds"] * 1e9)

    def listening(self, sock):
        name = sock.getsockname()  # a path for a Unix socket, (host, port) for TCP
        self._trial.announce(f"unix:{name}" if isinstance(name, str) else f"tcp:{name[0]}:{name[1]}")

    def fork(self, body, *args) -> int:
        return self._trial.fork(body, args)

    def wait(self, pids):
        self._trial.wait(pids)

    def pool_initializer(self):
        self._trial.pooled = True
        return self._trial.pool_worker_started

    def measure(self, mechanism) -> dict:
        """Times the call (or its clock region) and returns the run's record.
        A collection of the earlier runs' garbage is made first, outside the
        clocks, so that no run pays for another's (gc.collect collects with
        the collector disabled too: a gc=off run still starts clean)."""
        gc.collect()
        start = Clocks()
        result = mechanism(self)
        stop = Clocks()
        if self._start is not None:
            start, stop = self._start, self._stop or stop
        record = stop.since(start)
        record["result"] = result
        if self.ops is not None:
            record["ops"] = self.ops
        return record

    def counts(self) -> dict:
        units, peak_live = self.units.count()
        counts = {"units": units, "peak_live": peak_live}
        if self._evidence:
            counts["evidence"] = self._evidence
        return counts


class Trial:
    """The request's state across its runs: the loop, the forks, the flags."""

    def __init__(self, request: dict, answer):
        self._answer = answer  # the kit's stdout
        self.kind = request["kind"]
        self.mechanism = request["mechanism"]
        self.params = request["params"]
        self.scratch = request.get("scratch") or "."
        self.flags = []
        self.runner = None
        self.prepared = None
        self._children_path = os.path.join(self.scratch, ".kit-children")
        self._children = os.open(self._children_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self._forks = self._alive = self._most_alive = 0
        self.pooled = False
        self.account_memory = False

    def announce(self, address: str):
        """A server's address, a line of its own ahead of the answer, flushed at once."""
        self._answer.write(json.dumps({"listening": address}) + "\n")
        self._answer.flush()

    def fork(self, body, args) -> int:
        self._forks += 1
        self._alive += 1
        self._most_alive = max(self._most_alive, self._alive)
        pid = os.fork()
        if pid:
            return pid
        code = 0
        try:
            start = stamp()
            body(*args)
            self._report(start)
        except BaseException:
            traceback.print_exc()
            code = 1
        finally:
            sys.stderr.flush()
            os._exit(code)

    def _report(self, start: int):
        """A child's record: its private memory (in runs that account for it) and span."""
        end = stamp()
        os.write(self._children, CHILD_RECORD.pack(private_kb() if self.account_memory else 0, start, end))

    def pool_worker_started(self):
        """A pool's worker, as it starts: it reports as it exits, in
        multiprocessing's exit hooks (which run its Finalize callbacks)."""
        from multiprocessing import util

        util.Finalize(None, self._report, args=(stamp(),), exitpriority=0)

    def wait(self, pids):
        for pid in pids:
            _, status = os.waitpid(pid, 0)
            self._alive -= 1
            if status:
                raise RuntimeError(f"child {pid} failed: status {status}")

    def collect_forks(self, units: Units) -> int | None:
        """The children's stamps go to the run's units; returns their private
        memory, as many of the largest as were ever alive at once."""
        if not (self._forks or self.pooled):
            return None
        data = Path(self._children_path).read_bytes()
        os.truncate(self._children_path, 0)
        children = list(CHILD_RECORD.iter_unpack(data))
        spans = [(start, end) for _, start, end in children]
        units.spans(spans)
        most_alive = self._most_alive or (most_at_once(spans) if spans else 0)  # a pool's: from their spans
        largest = sorted((kb for kb, _, _ in children), reverse=True)[:most_alive]
        self._forks = self._most_alive = 0
        self.pooled = False
        return sum(largest)

    def close(self):
        os.close(self._children)
        if self.runner is not None:
            self.runner.close()


def private_kb() -> int:
    text = Path("/proc/self/smaps_rollup").read_text()
    return sum(
        int(line.split()[1]) for line in text.splitlines() if line.startswith(("Private_Clean:", "Private_Dirty:"))
    )


def own_peak_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def load_workload(workload: str):
    """workloads/<workload>.py as a module, registered in sys.modules (so
    that pickle finds its functions, as ProcessPoolExecutor needs)."""
    path = WORKLOADS / f"{workload}.py"
    if not (isinstance(workload, str) and workload.replace("-", "").isalnum() and path.is_file()):
        raise Refusal(f"workload {workload!r} is not implemented")
    name = f"concbench_workload_{workload}"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def runtime(flags=()) -> dict:
    return {
        "name": "python",
        "version": f"{platform.python_version()} ({platform.python_implementation()})",
        "flags": [f"gil={'on' if GIL else 'off'}", "gc before each run", *flags],
        "parallelism": parallelism(),
    }


def parallelism() -> int:
    """The CPUs this process may run on, which its pools are sized to
    (docs/protocol.md, "CPUs"): a trial confined to k CPUs runs under an
    affinity mask of k. Python 3.13's os.process_cpu_count reads that mask,
    and its pools' default sizes come from it; before 3.13 (3.11 here) they
    come from os.cpu_count, every CPU online whatever the mask (2 under
    taskset -c 0 on 2 cores), so the kit and the workloads size each pool
    that defaults to the machine's cores from this count instead:
    ProcessPoolExecutor, ThreadPoolExecutor (thread_pool_size) and
    asyncio's default executor (event_loop_runner). gevent's thread pool (10
    threads) is not sized by cores, and keeps its size."""
    process_cpu_count = getattr(os, "process_cpu_count", None)
    return process_cpu_count() if process_cpu_count else len(os.sched_getaffinity(0))


def thread_pool_size() -> int:
    """ThreadPoolExecutor's default size, min(32, CPUs + 4), of parallelism()'s CPUs."""
    return min(32, parallelism() + 4)


def implemented() -> dict:
    return {path.stem: sorted(load_workload(path.stem).MECHANISMS) for path in sorted(WORKLOADS.glob("*.py"))}


def library_flags(mechanism: str) -> list[str]:
    """The versions of the libraries a mechanism runs on, for the flags."""
    if mechanism == "uvloop":
        import uvloop

        return [f"uvloop={uvloop.__version__}"]
    if mechanism == "gevent":
        import gevent
        import greenlet

        return [f"gevent={gevent.__version__}", f"greenlet={greenlet.__version__}"]
    return []


def serve(request, answer) -> dict:
    if not isinstance(request, dict):
        raise Refusal("the request is not a JSON object")
    kind = request.get("kind", "fixed")
    if kind == "floor":
        return {"ok": True, "runtime": runtime(), "runs": []}
    if kind == "list":
        return {"ok": True, "runtime": runtime(), "runs": [], "implements": implemented()}
    if kind not in ("fixed", "rate"):
        raise Refusal(f"unknown kind {kind!r}")
    for key, kind_of in (("workload", str), ("mechanism", str), ("params", dict), ("warmup", int), ("runs", int)):
        if not isinstance(request.get(key), kind_of):
            raise Refusal(f"the request's {key!r} is missing or not a {kind_of.__name__}")
    request["kind"] = kind
    module = load_workload(request["workload"])
    mechanism = module.MECHANISMS.get(request["mechanism"])
    if mechanism is None:
        raise Refusal(f"mechanism {request['mechanism']!r} is not implemented for workload {request['workload']!r}")
    trial = Trial(request, answer)
    trial.flags = library_flags(trial.mechanism)
    try:
        return run_trial(trial, module, mechanism, request["warmup"], request["runs"])
    finally:
        trial.close()


def run_trial(trial: Trial, module, mechanism, warmup: int, runs: int) -> dict:
    if trial.mechanism in ("asyncio", "uvloop"):
        trial.runner = event_loop_runner(trial.mechanism)
    if trial.kind == "rate" and trial.params.get("gc") == "off":
        gc.disable()
        trial.flags.append("gc=off")
    if hasattr(module, "prepare"):
        trial.prepared = module.prepare(trial.params)
    records, largest_tree = [], None
    for i in range(warmup + runs):
        trial.account_memory = warmup == 0 or i < warmup  # reading a child's memory costs it time
        run = Run(trial)
        record = {"warmup": i < warmup, **run.measure(mechanism)}
        tree = trial.collect_forks(run.units)
        if tree is not None and trial.account_memory:
            largest_tree = max(largest_tree or 0, tree)
        records.append({**record, **run.counts()})
    response = {"ok": True, "runtime": runtime(trial.flags), "runs": records}
    if largest_tree is not None:
        response["tree_rss_kb"] = own_peak_kb() + largest_tree
    return response


def event_loop_runner(mechanism: str):
    """The trial's loop, made before the first run, with its default executor
    (asyncio.to_thread's, getaddrinfo's) at that executor's default size of
    the CPUs this process may use (thread_pool_size), as the loop makes it
    from Python 3.13 on; before, the loop would size it from os.cpu_count."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    loop_factory = None
    if mechanism == "uvloop":
        import uvloop

        loop_factory = uvloop.new_event_loop
    runner = asyncio.Runner(loop_factory=loop_factory)
    runner.get_loop().set_default_executor(ThreadPoolExecutor(thread_pool_size(), thread_name_prefix="asyncio"))
    return runner


def patch_for_gevent(request):
    """gevent's monkey-patching, first of all, in gevent trials only."""
    if (
        isinstance(request, dict)
        and request.get("mechanism") == "gevent"
        and request.get("kind") in (None, "fixed", "rate")
    ):
        from gevent import monkey

        monkey.patch_all()


def main():
    answer = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # anything else written to stdout, by us or a child, goes to stderr
    sys.modules.setdefault("kit", sys.modules[__name__])
    sys.path.insert(0, str(HERE))
    code = 0
    try:
        request = json.load(sys.stdin)
        patch_for_gevent(request)
        response = serve(request, answer)
    except (Refusal, json.JSONDecodeError) as e:
        response = {"ok": False, "error": str(e)}
    except BaseException as e:
        traceback.print_exc()
        code = 1
        response = {"ok": False, "error": " ".join(f"{type(e).__name__}: {e}".split())[:300]}
    answer.write(json.dumps(response) + "\n")
    answer.flush()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # no teardown of what the runs left to the collector (a million tasks)


if __name__ == "__main__":
    main()
