"""The smoke profile of every cell of the real suite, with the runtimes and
workloads CONCBENCH_RUNTIMES and CONCBENCH_WORKLOADS add: each must run here
and verify. One run of the whole matrix, one test per cell; n/a cells are
checked to have a reason."""

import json
import os
import re

import pytest
from conftest import concbench

from concbench import runtimes, workloads

SPECS = workloads.load_all()


def _cells():
    found = runtimes.load_all()
    for spec in SPECS.values():
        for rt in found.values():
            for mechanism in rt.manifest.mechanisms:
                yield spec.id, rt.name, mechanism, rt.na_reason(spec.id, mechanism)


def _runnable():
    """The cells that must verify; skipped with why: those of a runtime
    concbench provides only on request (Ruby 3.4), where it has not been
    provided, and those of an optional library (a seed's subject) where it is
    not installed."""
    found = runtimes.load_all()
    optional = {r for w, r, m, na in CELLS if not na and found[r].manifest.mechanisms[m].install}
    for name in optional:  # an optional row's probe may ask the built kit (Haskell's), as a run asks it
        found[name].build()
    for w, r, m, na in CELLS:
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
RUNNABLE = list(_runnable())

# The variables that choose the suite CELLS was collected from: the run keeps
# them, so that a runtime from outside that they name is run and checked as
# the project's are, and the tests' taking turns (conftest); the user's other
# settings (a database, a machine) it does not.
SUITE = ("CONCBENCH_BUILTINS", "CONCBENCH_RUNTIMES", "CONCBENCH_WORKLOADS", "CONCBENCH_TAKE_TURNS")


@pytest.fixture(scope="session")
def smoke(tmp_path_factory):
    db = tmp_path_factory.mktemp("smoke") / "smoke.db"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONCBENCH_") or k in SUITE}
    done = concbench("run", "--profile", "smoke", "--db", db, env=env, timeout=1200)
    shown = concbench("show", "--json", "--db", db, env=env)
    exported = json.loads(concbench("report", "--format", "json", "--db", db, env=env).stdout)
    by_cell = {}  # every record of a cell, one per parameter set (invoke sweeps its modes)
    for line in shown.stdout.splitlines():
        record = json.loads(line)
        by_cell.setdefault((record["workload"], record["runtime"], record["mechanism"]), []).append(record)
    return done, by_cell, exported


@pytest.mark.parametrize("workload, runtime, mechanism", RUNNABLE, ids=lambda value: value)
def test_cell_verifies(smoke, workload, runtime, mechanism):
    done, by_cell, _ = smoke
    records = by_cell.get((workload, runtime, mechanism))
    assert records, f"did not run: {done.stdout[-2000:]}"
    rt = runtimes.load_all()[runtime]
    sets = SPECS[workload].param_sets("smoke", {})
    assert len(records) == sum(not rt.na_reason(workload, mechanism, params) for params in sets)
    for record in records:
        assert record["status"] == "ok", (
            f"{record['params']}: {record['status']}: {record['detail']}\n{record['stderr'][-2000:]}"
        )
        run = record["runs"][-1]
        assert run["result"] == record["expected"]
        assert record["peak_kb"] > 0 and 0 < run["wall_ns"] < record["process"]["wall_ns"]
        _check_evidence(SPECS[workload], rt.manifest.mechanisms[mechanism].units, record)


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
    done, _, exported = smoke
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    stored = {(s["workload"], s["row"]): s["reason"] for s in exported["skipped"]}
    for workload, runtime, mechanism, reason in CELLS:
        if reason:
            assert stored.get((workload, f"{runtime}/{mechanism}")) == reason


def test_every_runtime_has_its_memory_floor_measured(smoke):
    done, _, _ = smoke
    floors = re.search(r"memory floor (.*) \(each kit doing nothing", done.stdout, re.M)
    assert floors, done.stdout[:2000]
    for name in runtimes.load_all():
        assert re.search(rf"\b{name} \d+\.\d MB", floors.group(1)), floors.group(1)


def test_gc_off_is_recorded_where_the_language_has_a_collector(smoke):
    _, by_cell, _ = smoke
    ruby, c = by_cell["invoke", "ruby", "none"][0], by_cell["invoke", "c", "none"][0]
    assert ruby["params"]["gc"] == "off" and "gc=off" in ruby["runtime_info"]["flags"]
    assert c["params"]["gc"] == "off" and "gc=off" not in c["runtime_info"]["flags"]


def test_rate_tables_are_in_the_seeds_own_formats(smoke):
    done, _, _ = smoke
    # Concurrently: "proc.call:   11048400 executions in 1.0000 seconds", then ops/s.
    assert re.search(r"^ruby/none: +\d+ executions in \d\.\d{4} seconds +[\d.]+[kMB]? +x1\.00 ", done.stdout, re.M)
    # benchmark-ips as Pbt prints it: "ractor  39.273 (± 2.5%) i/s - 198.000 in 5.042910s".
    assert re.search(
        r"^ +ruby/ractor +[\d.]+[kMB]? \((± *[\d.]+%| +- )\) i/s - +[\d.]+[kMB]? in +\d+\.\d{6}s", done.stdout, re.M
    )


def test_the_run_ends_with_a_diagnosis_computed_from_its_figures(smoke):
    done, _, _ = smoke
    assert "Diagnosis (computed from this run" in done.stdout
    for work in ("trivial work", "CPU-bound work", "I/O-bound work", "a failing property and its shrinking"):
        assert re.search(rf"^- {re.escape(work)} \(map-[a-z]+ .*ruby/none", done.stdout, re.M), work
    assert re.search(r"^Concurrency pays for .*\.", done.stdout, re.M)


def test_a_forked_producer_that_fills_its_pipe_waits_and_counts_it(tmp_path):
    # The smoke profile's queue never fills a pipe (8,192 records): here 4 producers push 40,000.
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONCBENCH_")}
    done = concbench(
        "run",
        "--profile",
        "smoke",
        "-w",
        "queue",
        "-m",
        "ruby/process",
        "-p",
        "items=10000",
        "-p",
        "producers=4",
        "-p",
        "capacity=0",
        "--db",
        tmp_path / "q.db",
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    shown = concbench("show", "--json", "--db", tmp_path / "q.db", env=env)
    (record,) = [json.loads(line) for line in shown.stdout.splitlines()]
    assert record["status"] == "ok" and record["runs"][0]["evidence"]["blocked"] > 0


def test_doctor_finds_each_seeds_library_or_says_how_to_install_it():
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONCBENCH_")}
    done = concbench("doctor", env=env)
    found = runtimes.load_all()
    optional = [(rt, name) for rt in found.values() for name, m in rt.manifest.mechanisms.items() if m.install]
    rows = {f"{rt.name}/{name}" for rt, name in optional}
    assert {"ruby/concurrently", "ruby/pbt_none", "ruby34/um", "haskell/streamly"} <= rows
    for rt, name in optional:
        if not rt.toolchain.ok:
            continue
        line = re.search(rf"^(ok|missing) +{rt.name}/{name} +(.*)$", done.stdout, re.M)
        assert line, done.stdout
        if line[1] == "ok":
            assert line[2] == rt.probe_requirement(name).output  # the version recorded with its results
        else:
            assert line[2].startswith("optional, not installed") and line[2].endswith(rt.mechanism_hint(name))
