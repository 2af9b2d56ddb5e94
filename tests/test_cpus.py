"""CPUs as a dimension of every cell: the trial confined to its CPUs with
all it starts, the kit told how many, and a trial that ran on more, or sized
its runtime to more, INVALID."""

import dataclasses
import json
import os
import sys

import pytest
from conftest import assert_one_line_error, concbench

from concbench import cpus, limits, trial, verify
from concbench.protocol import Response
from concbench.records import CellKey
from concbench.selection import CellFilter, Selection
from concbench.status import Status

PY = sys.executable
TWO_CPUS = pytest.mark.skipif(len(cpus.usable()) < 2, reason="needs 2 CPUs to confine a trial to fewer")
# What a process and a child it starts may run on, as each reads its own mask.
MASKS = (
    "import os, subprocess, sys; print(sorted(os.sched_getaffinity(0)), "
    "subprocess.run([sys.executable, '-c', 'import os; print(sorted(os.sched_getaffinity(0)))'], "
    "capture_output=True, text=True).stdout.strip())"
)


def test_a_set_of_cpus_is_written_as_the_kernel_writes_it():
    assert cpus.listed([0]) == "0"
    assert cpus.listed([3, 0, 1, 2, 6, 8, 9]) == "0-3,6,8-9"


def test_the_full_profile_sweeps_powers_of_two_and_every_cpu():
    assert cpus.sweep(1) == (1,)
    assert cpus.sweep(2) == (1, 2)
    assert cpus.sweep(6) == (1, 2, 4, 6)
    assert cpus.sweep(64) == (1, 2, 4, 8, 16, 32, 64)


def test_the_full_profile_asks_for_the_sweep_and_the_others_for_none():
    assert Selection.asked(profile="full").cpus == cpus.sweep(len(cpus.usable()))
    assert Selection.asked(profile="full", cpus=(1,)).cpus == (1,)
    assert Selection.asked(profile="quick").cpus == ()
    assert Selection.from_json({"profile": "full"}).cpus == ()  # a stored run resumes as it was asked


def test_a_confined_trial_and_what_it_starts_run_on_its_cpus_only():
    first = cpus.usable()[:1]
    done = trial.run([PY, "-c", MASKS], {}, timeout=20, cpus=first)
    assert done.stdout.decode().strip() == f"{first} {first}"
    unconfined = trial.run([PY, "-c", MASKS], {}, timeout=20)
    assert unconfined.stdout.decode().strip() == f"{cpus.usable()} {cpus.usable()}"


def test_a_cell_at_k_cpus_is_its_own_cell_its_cpus_leading_its_parameters():
    key = CellKey("pipe", "go", "goroutine", (("groups", 2), ("size", 8)), (), 2)
    assert key.params_text == "cpus=2 groups=2 size=8"
    assert key.id == "pipe go/goroutine cpus=2 groups=2 size=8"
    assert CellKey("pipe", "go", "goroutine", key.params).id == "pipe go/goroutine groups=2 size=8"
    assert CellFilter(params=(("cpus", ("2",)),))(key)
    assert not CellFilter(params=(("cpus", ("1",)),))(key)


def _exit(user_ns: int, wall_ns: int) -> trial.Exit:
    return trial.Exit(wall_ns, user_ns, 0, 1, 0, 0, 0, None, False, b"", 0, "")


def _answer(parallelism: int | None, user_ns: int = 1000, wall_ns: int = 1_000_000) -> Response:
    runtime = {"name": "x", "version": "1"} | ({} if parallelism is None else {"parallelism": parallelism})
    run = {"warmup": False, "wall_ns": wall_ns, "user_ns": user_ns, "sys_ns": 0, "units": 1, "peak_live": 1}
    return Response.model_validate({"ok": True, "runtime": runtime, "runs": [run | {"result": {"n": 1}}]})


EXPECT = verify.Expectations(result=lambda ops: {"n": 1}, warmup=0, runs=1, cpus=1)


@pytest.mark.parametrize(
    ("exit", "answer", "fragment"),
    [
        (_exit(1000, 10**9), _answer(None), "did not say how many its runtime sized itself to"),
        (_exit(1000, 10**9), _answer(2), "confined to 1 CPU, its runtime sized itself to 2"),
        (_exit(int(1.5e9), 10**9), _answer(1), "its process used 1.500000 s of CPU in 1.000000 s"),
        (_exit(1000, 10**9), _answer(1, user_ns=300_000_000, wall_ns=100_000_000), "run 1 used 0.300000 s"),
    ],
)
def test_a_confined_trial_that_shows_more_cpus_than_its_own_is_invalid(exit, answer, fragment):
    status, detail = verify.verdict(exit, answer, EXPECT)
    assert status == Status.INVALID and fragment in detail, detail


def test_a_confined_trial_within_its_cpus_and_the_clocks_rounding_verifies():
    rounded = _exit(int(1.02e9) + 4_000_000, 10**9)  # wait4 within 2% and 5 ms
    assert verify.verdict(rounded, _answer(1, user_ns=1_050_000, wall_ns=1_000_000), EXPECT)[0] == Status.OK
    unconfined = dataclasses.replace(EXPECT, cpus=0)
    assert verify.verdict(_exit(1000, 10**9), _answer(None), unconfined)[0] == Status.OK  # checked for neither


@pytest.mark.parametrize("given", ["0", "-1", "two", "1,,2", "5000", ""])
def test_a_bad_cpu_count_gets_one_line(fake_env, given):
    done = concbench("run", "-w", "triangle", "-m", "honest", "--cpus", given, env=fake_env)
    assert_one_line_error(done, "--cpus")


def test_more_cpus_than_the_machine_gives_gets_one_line_before_anything_runs(fake_env):
    most = len(cpus.usable())
    for command in ("run", "ab"):
        done = concbench(command, "-w", "triangle", "-m", "honest", "--cpus", f"1,{most + 1}", env=fake_env)
        assert_one_line_error(done, f"{most + 1} CPUs asked for, but concbench may use {most} on this machine")


def _trials(env) -> list[dict]:
    done = concbench("show", "--json", env=env)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


@TWO_CPUS
def test_each_cpu_count_is_a_cell_whose_trials_ran_on_that_many_and_say_so(fake_env):
    done = concbench("run", "-w", "triangle", "-m", "honest", "--cpus", "2,1", "--trials", "1", env=fake_env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "(triangle): cpus=1 n=100" in done.stdout and "(triangle): cpus=2 n=100" in done.stdout
    ran = {t["cpus"]: (t["cpu_set"], t["runtime_info"]["parallelism"]) for t in _trials(fake_env)}
    first = cpus.usable()
    assert ran == {1: (cpus.listed(first[:1]), 1), 2: (cpus.listed(first[:2]), 2)}


@TWO_CPUS
def test_a_kit_sized_to_more_cpus_than_its_own_is_invalid(fake_env):
    done = concbench("run", "-w", "triangle", "-m", "oversized", "--cpus", "1", "--trials", "1", env=fake_env)
    assert done.returncode == 1
    assert f"fake/oversized trial 1: INVALID: confined to 1 CPU, its runtime sized itself to {os.cpu_count()}" in (
        done.stdout
    )


@TWO_CPUS
def test_a_trial_that_widens_its_cpus_is_held_to_them_or_invalid(fake_env):
    """Where the harness may make a cpuset, the trial cannot leave its CPUs:
    widened, its mask still holds one, and its CPU time shows one. Where it
    may not, its affinity is all that holds it, and the mask it widened to
    makes it INVALID."""
    done = concbench("run", "-w", "triangle", "-m", "widener", "--cpus", "1", "--trials", "1", env=fake_env)
    (found,) = _trials(fake_env)
    if isinstance(limits.controllers()["cpuset"], str):
        assert done.returncode == 1 and found["status"] == "invalid", found
        assert "confined to 1 CPU, its runtime sized itself to" in found["detail"]
        return
    assert done.returncode == 0 and found["status"] == "ok", found
    process = found["process"]
    assert process["user_ns"] + process["sys_ns"] <= process["wall_ns"] * 1.02 + 5_000_000
    assert found["runtime_info"]["parallelism"] == 1


def test_the_cpu_time_of_an_orphan_that_exited_while_the_trial_ran_is_the_trials(fake_env):
    done = concbench("run", "-w", "triangle", "-m", "orphaner", "--trials", "1", env=fake_env)
    assert done.returncode == 0, done.stdout
    (found,) = _trials(fake_env)
    assert found["process"]["user_ns"] + found["process"]["sys_ns"] >= 250_000_000


def test_compare_says_when_two_runs_ran_at_different_cpu_counts(fake_env):
    for counts in (("--cpus", "1"), (), ("--cpus", "1")):
        done = concbench("run", "-w", "triangle", "-m", "honest", *counts, "--trials", "1", env=fake_env)
        assert done.returncode == 0, done.stdout + done.stderr
    apart = concbench("compare", "1", "2", env=fake_env)
    assert apart.returncode == 0, apart.stderr
    assert apart.stdout.splitlines()[-1] == (
        "the runs ran at different CPU counts (before: 1; after: unconfined): "
        "a cell meets only its own count in the other run (concbench run --cpus)"
    )
    assert "CPU counts" not in concbench("compare", "1", "3", env=fake_env).stdout
