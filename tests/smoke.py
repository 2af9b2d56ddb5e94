"""The smoke profile of every cell of the real suite, with the runtimes and
workloads CONCBENCH_RUNTIMES and CONCBENCH_WORKLOADS add: each must run here
and verify; n/a cells are checked to have a reason. The runtimes are run in
two halves, one test file each (test_smoke.py, test_smoke_engines.py), so
that make test's two pytest processes run them side by side: a half is one
concbench run, one test per cell, and the checks of the run's output below.
A test file takes them with `from smoke import *` and names its half
(HALVES) in SMOKE_HALF.

Every cell runs confined to one CPU (--cpus 1), each half's harness given a
CPU of its own where the machine has two: its verdict then proves that its
kit sized the runtime to one CPU and that the trial never ran on more."""

import json
import os
import re

import pytest
from conftest import concbench

from concbench import cpus, runtimes, verify, workloads

SPECS = workloads.load_all()

# test_smoke_engines.py's half: the runtimes whose trials start a JIT's
# engine. Every other runtime, including one from outside, is test_smoke.py's.
ENGINES = ("java", "kotlin", "jruby", "node", "bun", "deno")


def _cells():
    found = runtimes.load_all()
    for spec in SPECS.values():
        for rt in found.values():
            for mechanism in rt.manifest.mechanisms:
                yield spec.id, rt.name, mechanism, rt.na_reason(spec.id, mechanism)


def _runnable(half):
    """The half's cells that must verify; skipped with why: those of a
    runtime concbench provides only on request (Ruby 3.4), where it has not
    been provided, and those of an optional library (a seed's subject) where
    it is not installed."""
    found = runtimes.load_all()
    cells = [cell for cell in CELLS if cell[1] in half]
    optional = {r for w, r, m, na in cells if not na and found[r].manifest.mechanisms[m].install}
    for name in optional:  # an optional row's probe may ask the built kit (Haskell's), as a run asks it
        found[name].build()
    for w, r, m, na in cells:
        if na:
            continue
        rt = found[r]
        if rt.manifest.provide and not rt.toolchain.ok:
            yield pytest.param(w, r, m, marks=pytest.mark.skip(reason=f"{r} is not here ({rt.toolchain_hint})"))
        elif rt.manifest.mechanisms[m].install and rt.toolchain.ok and (why := rt.unavailable(m)):
            yield pytest.param(w, r, m, marks=pytest.mark.skip(reason=why))
        else:
            yield w, r, m


CELLS = list(_cells())
HERE = tuple(runtimes.load_all())
HALVES = {
    "engines": tuple(name for name in HERE if name in ENGINES),
    "others": tuple(name for name in HERE if name not in ENGINES),
}

# The variables that choose the suite CELLS was collected from: the run keeps
# them, so that a runtime from outside that they name is run and checked as
# the project's are, and the tests' taking turns (conftest); the user's other
# settings (a database, a machine) it does not.
SUITE = ("CONCBENCH_BUILTINS", "CONCBENCH_RUNTIMES", "CONCBENCH_WORKLOADS", "CONCBENCH_TAKE_TURNS")


def pytest_generate_tests(metafunc):
    """The cells of the test file's half (its SMOKE_HALF)."""
    if "mechanism" in metafunc.fixturenames:
        cells = list(_runnable(HALVES[metafunc.module.SMOKE_HALF]))
        metafunc.parametrize("workload, runtime, mechanism", cells, ids=lambda value: value)


@pytest.fixture(scope="module")
def smoke(request, tmp_path_factory):
    half = HALVES[request.module.SMOKE_HALF]
    if not half:
        pytest.skip("the suite has no runtime of this half")
    db = tmp_path_factory.mktemp("smoke") / "smoke.db"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONCBENCH_") or k in SUITE}
    done = concbench(
        "run", "--profile", "smoke", "-r", ",".join(half), "--cpus", "1", "--db", db,
        env=env, timeout=1200, preexec_fn=_own_cpu(request.module.SMOKE_HALF),
    )  # fmt: skip
    shown = concbench("show", "--json", "--db", db, env=env)
    exported = json.loads(concbench("report", "--format", "json", "--db", db, env=env).stdout)
    by_cell = {}  # every record of a cell, one per parameter set (invoke sweeps its modes)
    for line in shown.stdout.splitlines():
        record = json.loads(line)
        by_cell.setdefault((record["workload"], record["runtime"], record["mechanism"]), []).append(record)
    return done, by_cell, exported, half


def _own_cpu(half: str):
    """The half's harness on a CPU of its own (engines the last, the others
    the first), so that the halves' trials, each confined to its harness's
    first CPU, run side by side and not on one."""
    usable = cpus.usable()
    return lambda: os.sched_setaffinity(0, {usable[-1] if half == "engines" else usable[0]})


def test_cell_verifies(smoke, workload, runtime, mechanism):
    done, by_cell, _, _ = smoke
    records = by_cell.get((workload, runtime, mechanism))
    assert records, f"did not run: {done.stdout[-2000:]}"
    rt = runtimes.load_all()[runtime]
    sets = SPECS[workload].param_sets("smoke", {})
    assert len(records) == sum(not rt.na_reason(workload, mechanism, params) for params in sets)
    for record in records:
        assert record["status"] == "ok", (
            f"{record['params']}: {record['status']}: {record['detail']}\n{record['stderr'][-2000:]}"
        )
        _check_one_cpu(record)
        run = record["runs"][-1]
        assert run["result"] == record["expected"]
        assert record["peak_kb"] > 0 and 0 < run["wall_ns"] < record["process"]["wall_ns"]
        _check_evidence(SPECS[workload], rt.manifest.mechanisms[mechanism].units, record)


def _check_one_cpu(record):
    """Confined to one CPU, its runtime sized to one, and its process and each
    run never on more than one at once, by their own counters (the verdict's
    check, restated: verify.py's slack for the clocks' rounding)."""
    assert (record["cpus"], record["runtime_info"]["parallelism"]) == (1, 1)
    share, least = verify.PROCESS_CPU_SLACK
    process = record["process"]
    assert process["user_ns"] + process["sys_ns"] <= process["wall_ns"] * (1 + share) + least
    share, least = verify.RUN_CPU_SLACK
    for run in record["runs"]:
        assert run["user_ns"] + run["sys_ns"] <= run["wall_ns"] * (1 + share) + least


def _check_evidence(spec, fixed_units, record):
    """Every run's units, live units and evidence, against the spec, as the harness checks them."""
    for run in record["runs"]:
        least = spec.least_units(record["params"], run.get("ops"))
        if fixed_units is not None:
            assert run["units"] == fixed_units
        elif least is not None:
            assert run["units"] >= least
        assert (run["units"] > 0) == (run["peak_live"] > 0) and run["peak_live"] <= run["units"]
        assert set(run["evidence"]) == set(spec.evidence)
        for name, of in spec.evidence_of(record["params"], run.get("ops")).items():
            assert run["evidence"][name] is None or 0 <= run["evidence"][name] <= of


def test_the_smoke_run_succeeds_and_names_every_na_cell_with_its_reason(smoke):
    done, _, exported, half = smoke
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    stored = {(s["workload"], s["row"]): s["reason"] for s in exported["skipped"]}
    for workload, runtime, mechanism, reason in CELLS:
        if reason and runtime in half:
            assert stored.get((workload, f"{runtime}/{mechanism}")) == reason


def test_every_runtime_has_its_memory_floor_measured(smoke):
    done, _, _, half = smoke
    floors = re.search(r"memory floor (.*) \(each kit doing nothing", done.stdout, re.M)
    assert floors, done.stdout[:2000]
    for name in half:
        assert re.search(rf"\b{name} \d+\.\d MB", floors.group(1)), floors.group(1)


__all__ = [
    "pytest_generate_tests",
    "smoke",
    "test_cell_verifies",
    "test_the_smoke_run_succeeds_and_names_every_na_cell_with_its_reason",
    "test_every_runtime_has_its_memory_floor_measured",
]
