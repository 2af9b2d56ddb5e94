"""The known-slowdown test hook of the C and Go kits (option slow5, --slowdown=PCT):
cells run and verify with it, it is recorded, and every run of every cell,
warm-ups too, lasts (1 + PCT/100) times what it lasted before the spin. The
machine's speed is never asserted: each run's stretch is checked against its
own time, as the kit reports it."""

import dataclasses
import json
import math
import os
import subprocess

import pytest
from conftest import concbench

from concbench import runner, runtimes, trial, workloads
from concbench.limits import Limits
from concbench.plan import Cell
from concbench.records import Machine
from concbench.selection import PROFILE_SETTINGS
from concbench.status import Status

CELLS = {(w, r, m) for w in ("pipe", "invoke") for r, m in (("c", "pthread"), ("go", "goroutine"))}


@pytest.fixture(scope="module")
def slowed(tmp_path_factory):
    db = tmp_path_factory.mktemp("slowdown") / "slowdown.db"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONCBENCH_")}
    cells = ["-w", "pipe,invoke", "-m", "c/pthread,go/goroutine"]
    done = concbench("run", "--profile", "smoke", *cells, "-o", "slow5", "--db", db, env=env, timeout=600)
    shown = concbench("show", "--json", "--db", db, env=env)
    return done, [json.loads(line) for line in shown.stdout.splitlines()]


def test_the_smoke_profile_verifies_with_the_slowdown_and_records_it(slowed):
    done, records = slowed
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    assert {(r["workload"], r["runtime"], r["mechanism"]) for r in records} == CELLS
    for record in records:
        assert record["status"] == "ok", f"{record['params']}: {record['detail']}\n{record['stderr'][-2000:]}"
        assert record["options"] == ["slow5"] and "slowdown=5" in record["runtime_info"]["flags"]


@pytest.mark.parametrize("runtime", ["c", "go"])
@pytest.mark.parametrize("value", ["0", "-5", "1001", "abc", "nan", ""])
def test_a_bad_slowdown_is_refused_in_one_line(slowed, runtime, value):
    # slowed built the kits.
    argv = [*runtimes.load_all()[runtime].trial_command(()), f"--slowdown={value}"]
    done = subprocess.run(argv, input="{}", capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    assert len(done.stderr.strip().splitlines()) == 1 and f"--slowdown={value}" in done.stderr


SLOWED_RUNTIMES = ("c", "go")
SLOW5 = 1 + 5 / 100  # the factor, computed as the kits compute it


def _every_cell():
    specs, found = workloads.load_all(), runtimes.load_all()
    for name in SLOWED_RUNTIMES:
        rt = found[name]
        for spec in specs.values():
            for mechanism in rt.manifest.mechanisms:
                for params in spec.param_sets("smoke", {}):
                    if not rt.na_reason(spec.id, mechanism, params):
                        yield Cell(spec, rt, mechanism, params, ("slow5",))


@pytest.fixture(scope="module")
def stretched():
    """Every cell of both kits at smoke with slow5: one warm-up and two timed
    runs each, through the harness's own trial, and each run as the kit said it."""
    for name in SLOWED_RUNTIMES:
        runtimes.load_all()[name].build()
    settings = dataclasses.replace(PROFILE_SETTINGS["smoke"], warmup=1, runs=2)
    said = []
    real_run = trial.run

    def kept(*args, **kwargs):
        exit = real_run(*args, **kwargs)
        said.append(json.loads(exit.stdout.decode().splitlines()[-1]))
        return exit

    results = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(trial, "run", kept)
        for cell in _every_cell():
            record = runner.run_trial(cell, 0, settings, Limits(None, None), Machine("test", ""))
            results[_label(cell)] = record, said[-1]
    return results


def _label(cell: Cell) -> str:
    return f"{cell.workload.id} {cell.runtime.name}/{cell.mechanism} {cell.key.params_text}"


def test_every_run_of_every_cell_lasts_5_percent_more_than_its_work(stretched):
    assert len(stretched) > 50  # both kits' cells, not a few
    wrong = [f"{label}: {why}" for label, said in stretched.items() if (why := _unstretched(*said))]
    assert not wrong, "\n".join(wrong)


def _unstretched(record, answer) -> str:
    """Why a trial's runs were not all stretched by the hook, or ''."""
    if record.status != Status.OK:
        return f"{record.status.value}: {record.detail}"
    if [run["warmup"] for run in answer["runs"]] != [True, False, False]:
        return f"not one warm-up and two timed runs: {answer['runs']}"
    for run in answer["runs"]:
        unstretched = run.get("unstretched_ns", 0)
        if not 0 < unstretched < run["wall_ns"] or run["wall_ns"] < math.floor(unstretched * SLOW5):
            return f"a run lasted {run['wall_ns']} ns, {unstretched} ns before its spin"
    return ""
