"""The smoke profile of every cell of the real suite: each must run here and verify.
One run of the whole matrix, one test per cell; n/a cells are checked to have a reason."""

import json
import os

import pytest

from concbench import runtimes, workloads
from conftest import concbench


def _cells():
    specs, found = workloads.load_all(), runtimes.load_all()
    for spec in specs.values():
        for rt in found.values():
            for mechanism in rt.manifest.mechanisms:
                yield spec.id, rt.name, mechanism, rt.na_reason(spec.id, mechanism)


CELLS = list(_cells())
RUNNABLE = [(w, r, m) for w, r, m, na in CELLS if not na]


@pytest.fixture(scope="session")
def smoke(tmp_path_factory):
    db = tmp_path_factory.mktemp("smoke") / "smoke.db"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONCBENCH_")}
    done = concbench("run", "--profile", "smoke", "--db", db, env=env, timeout=1200)
    shown = concbench("show", "--json", "--db", db, env=env)
    by_cell = {}
    for line in shown.stdout.splitlines():
        record = json.loads(line)
        by_cell[record["workload"], record["runtime"], record["mechanism"]] = record
    return done, by_cell


@pytest.mark.parametrize("workload, runtime, mechanism", RUNNABLE,
                         ids=[f"{w}-{r}-{m}" for w, r, m in RUNNABLE])
def test_cell_verifies(smoke, workload, runtime, mechanism):
    done, by_cell = smoke
    record = by_cell.get((workload, runtime, mechanism))
    assert record is not None, f"did not run: {done.stdout[-2000:]}"
    assert record["status"] == "ok", f"{record['status']}: {record['detail']}\n{record['stderr'][-2000:]}"
    run = record["runs"][-1]
    assert run["result"] == record["expected"]
    assert run["units"] >= 1 and record["peak_kb"] > 0
    assert 0 < run["wall_ns"] < record["process"]["wall_ns"]


def test_the_smoke_run_succeeds_and_names_every_na_cell(smoke):
    done, _ = smoke
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    for workload, runtime, mechanism, reason in CELLS:
        if reason:
            assert f"{runtime}/{mechanism}" in done.stdout and reason in done.stdout
