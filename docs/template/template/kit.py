"""A minimal concbench kit (docs/protocol.md): read one request on stdin,
run the mechanism warmup + runs times, print one answer line on stdout.

A mechanism is a function named after it in workloads/<workload id>.py. It
takes the parameters and a Units counter, does the whole job of one run
(starts its units, awaits them all) and returns the result the spec's
[expect] names."""

import importlib.util
import json
import resource
import sys
import time
from pathlib import Path

WORKLOADS = Path(__file__).parent / "workloads"
RUNTIME = {"name": "template", "version": sys.version.split()[0], "flags": []}


class Units:
    """Each unit stamps its start and end in a slot of its own (no lock the
    work does not take); the most alive at once is swept after the run."""

    def __init__(self):
        self.starts, self.ends = {}, {}

    def started(self, unit):
        self.starts[unit] = time.monotonic_ns()

    def finished(self, unit):
        self.ends[unit] = time.monotonic_ns()

    def peak_live(self) -> int:
        events = sorted([(t, 1) for t in self.starts.values()] + [(t, -1) for t in self.ends.values()])
        live = peak = 0
        for _, step in events:
            live += step
            peak = max(peak, live)
        return peak


def mechanisms(workload: str) -> dict:
    """The functions of workloads/<workload>.py, by name: its mechanisms."""
    spec = importlib.util.spec_from_file_location(workload, WORKLOADS / f"{workload}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {name: f for name, f in vars(module).items() if callable(f) and not name.startswith("_")}


def run_once(mechanism, params: dict, warmup: bool) -> dict:
    units = Units()
    before, start = resource.getrusage(resource.RUSAGE_SELF), time.monotonic_ns()
    result = mechanism(params, units)
    wall_ns = time.monotonic_ns() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "warmup": warmup,
        "wall_ns": wall_ns,
        "user_ns": round((after.ru_utime - before.ru_utime) * 1e9),
        "sys_ns": round((after.ru_stime - before.ru_stime) * 1e9),
        "units": len(units.starts),
        "peak_live": units.peak_live(),
        "result": result,
    }


def answer(request: dict) -> dict:
    if request["kind"] == "floor":
        return {"ok": True, "runtime": RUNTIME, "runs": []}
    if request["kind"] == "list":
        return {
            "ok": True,
            "runtime": RUNTIME,
            "runs": [],
            "implements": {path.stem: sorted(mechanisms(path.stem)) for path in WORKLOADS.glob("*.py")},
        }
    if not (WORKLOADS / f"{request['workload']}.py").exists():
        return {"ok": False, "error": f"no workload {request['workload']!r} here"}
    mechanism = mechanisms(request["workload"]).get(request["mechanism"])
    if mechanism is None:
        return {"ok": False, "error": f"no mechanism {request['mechanism']!r} for {request['workload']}"}
    runs = [
        run_once(mechanism, request["params"], i < request["warmup"])
        for i in range(request["warmup"] + request["runs"])
    ]
    return {"ok": True, "runtime": RUNTIME, "runs": runs}


if __name__ == "__main__":
    response = answer(json.load(sys.stdin))
    print(json.dumps(response))
    sys.exit(0 if response["ok"] else 1)
