"""Calibrated runs, adaptive trials, the budget and the repeat check, end to
end with the fake runtime's sleeper: runs that really take the time they
report, with noise of a known size."""

import json
import re
import shutil
import sqlite3

import pytest
from conftest import FIXTURES, assert_one_line_error, concbench

from concbench import runtimes


def sleeper(env, *args, wall_ms=5, noise=0.0):
    """A run of the sleeper; 2 timed runs a trial in the quick profile (which
    takes 1) unless the arguments say otherwise, as these tests were made for."""
    runs = () if "--runs" in args or "--profile" in args else ("--runs", "2")
    done = concbench(
        "run",
        "-w",
        "triangle",
        *runs,
        *args,
        env={**env, "FAKE_WALL_NS": str(wall_ms * 1_000_000), "FAKE_NOISE": str(noise)},
    )
    return done


def stored_runs(env, run_id=1) -> list[dict]:
    done = concbench("show", run_id, "--json", env=env)
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_a_short_run_repeats_its_work_to_the_minimum_and_reports_per_repetition(fake_env):
    """The first trial runs the work once a run and tells how often the next
    must repeat it; it counts, its figures per repetition like the others'."""
    done = sleeper(fake_env, "-m", "sleeper", "--trials", "2", "--min-run", "20ms")
    assert done.returncode == 0, done.stderr
    for trial, repeat in zip(stored_runs(fake_env), (1, 4), strict=True):
        warmup, *timed = trial["runs"]
        assert (warmup["warmup"], warmup["repeat"]) == (True, repeat)  # a warm-up as long as a timed run
        assert [(run["repeat"], run["wall_ns"]) for run in timed] == [(repeat, 5_000_000)] * 2
    assert "fake/sleeper  each timed run repeats the work once or 4 times: its figures are per repetition" in (
        done.stdout
    )
    with sqlite3.connect(fake_env["CONCBENCH_DB"]) as db:
        assert db.execute("SELECT repeat, run_ns, detail FROM calibrations").fetchall() == [(4, 5_000_000, "")]


def test_every_repetition_is_verified(fake_env):
    """liar_once is right in the first trial's three runs (its work once a
    run), and wrong in the fifth: a repetition inside the next trial's first
    timed sample."""
    done = sleeper(fake_env, "-m", "liar_once", "--trials", "2", "--min-run", "20ms")
    assert done.returncode == 1
    assert "fake/liar_once trial 2: INVALID: run 5: total = 5051, expected 5050" in done.stdout


def test_a_later_run_reuses_the_measured_run_length(fake_env):
    assert sleeper(fake_env, "-m", "sleeper", "--trials", "1", "--min-run", "20ms").returncode == 0
    done = sleeper(fake_env, "-m", "sleeper", "--trials", "1", "--min-run", "50ms")
    assert done.returncode == 0, done.stderr
    assert {run["repeat"] for run in stored_runs(fake_env, 2)[0]["runs"] if not run["warmup"]} == {10}
    with sqlite3.connect(fake_env["CONCBENCH_DB"]) as db:
        assert db.execute("SELECT run_id, repeat, detail FROM calibrations ORDER BY run_id").fetchall() == [
            (1, 4, ""),
            (2, 10, "run 1"),  # the length run 1 measured, this run's minimum
        ]


@pytest.mark.parametrize("workload_args", [["--min-run", "off"], ["--profile", "smoke"]])
def test_calibration_can_be_turned_off(fake_env, workload_args):
    done = sleeper(fake_env, "-m", "sleeper", "--trials", "1", *workload_args)
    assert done.returncode == 0, done.stderr
    assert {run["repeat"] for trial in stored_runs(fake_env) for run in trial["runs"]} == {1}


def test_a_quiet_cell_stops_at_three_trials_and_a_noisy_one_at_its_cap(fake_env):
    quiet = sleeper(fake_env, "-m", "sleeper", "--min-run", "off", noise=0.0)
    assert quiet.returncode == 0, quiet.stderr
    assert "cells: 1 reached the target" in quiet.stdout
    assert len(stored_runs(fake_env, 1)) == 3
    noisy = sleeper(fake_env, "-m", "sleeper", "--min-run", "off", "--max-trials", "5", noise=0.5)
    assert noisy.returncode == 0, noisy.stderr
    assert len(stored_runs(fake_env, 2)) == 5
    assert "cells: 1 reached max_trials" in noisy.stdout
    assert re.search(r"not within ±3%, noisiest first: triangle fake/sleeper n=100 \(cv \d+%\)", noisy.stdout)
    assert re.search(r"fake/sleeper +wide: its median's 95% interval is ±\d", noisy.stdout)


def test_a_budgeted_run_ends_within_its_budget_plus_one_trial(fake_env):
    budget = 3.0
    done = sleeper(
        fake_env,
        "-m",
        "sleeper,honest",
        "--min-run",
        "off",
        "--max-trials",
        "1000",
        "--budget",
        "3s",
        wall_ms=100,
        noise=0.5,
    )
    assert done.returncode == 0, done.stderr
    assert "budget 3.0 s: no earlier run tells how long every cell's least trials take" in done.stdout
    spent = re.search(r"(\d+) trials in ([\d.]+) s of a 3.0 s budget: least trials", done.stdout)
    trials = stored_runs(fake_env)
    longest = max(t["process"]["wall_ns"] for t in trials) / 1e9
    assert int(spent[1]) == len(trials)
    assert float(spent[2]) <= budget + longest
    assert "stopped at the budget" in done.stdout  # not at the cells' caps, however many trials this machine ran


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--trials", "3", "--target", "5"], "--trials fixes every cell's trials, --target adapts them"),
        (["--trials", "3", "--max-trials", "5"], "--trials fixes every cell's trials, --max-trials adapts them"),
        (["--max-trials", "2"], "max_trials 2 is below the 3 trials every cell takes at least"),
        (["--budget", "3x"], "--budget"),
        (["--budget", "0.5s"], "expected a time from 1 s"),
        (["--min-run", "-1"], "--min-run"),
        (["--target", "0"], "expected a percentage from 0.1 to 100"),
        (["--resume", "--repeat-check"], "--resume continues one stored run; --repeat-check starts two"),
    ],
)
def test_bad_plans_are_one_line_errors(fake_env, args, fragment):
    assert_one_line_error(concbench("run", *args, env=fake_env), fragment)


def test_the_repeat_check_runs_twice_and_shows_how_far_the_medians_moved(fake_env, tmp_path):
    done = sleeper(fake_env, "-m", "sleeper,honest", "--trials", "3", "--min-run", "off", "--repeat-check")
    assert done.returncode == 0, done.stderr
    assert "repeat check: run 2 repeats run 1: the medians of its 2 cells differ by 0.0% (median)" in done.stdout
    assert "compare calls 0 changed" in done.stdout
    assert "the ratios of its 1 rows to their baselines moved by" in done.stdout
    page = tmp_path / "check.html"
    assert concbench("report", "2", "-o", page, env=fake_env).returncode == 0
    html = page.read_text()
    assert '<section id="repeat-check">' in html and "run 2 repeats run 1" in html


@pytest.fixture
def warming(fake_env, tmp_path):
    """The fake runtime with a manifest that says how many warm-ups its trials
    take, and its sleeper's own where given."""

    def env(warmup: int, sleeper: int | None = None) -> dict:
        runtime = tmp_path / "runtimes" / "fake"
        shutil.copytree(FIXTURES / "runtimes" / "fake", runtime, dirs_exist_ok=True)
        manifest = runtime / "runtime.toml"
        text = manifest.read_text().replace("\n[options.loud]", f"\nwarmup = {warmup}\n\n[options.loud]", 1)
        if sleeper is not None:
            text = text.replace("\n[mechanisms.sleeper]\n", f"\n[mechanisms.sleeper]\nwarmup = {sleeper}\n", 1)
        manifest.write_text(text)
        return {**fake_env, "CONCBENCH_RUNTIMES": str(tmp_path / "runtimes")}

    return env


def warmups(env) -> list[int]:
    return [sum(run["warmup"] for run in trial["runs"]) for trial in stored_runs(env)]


def test_a_runtime_takes_its_own_warmups_and_the_calibration_with_them(warming):
    env = warming(3)  # a JIT's
    done = sleeper(env, "-m", "sleeper", "--trials", "2", "--min-run", "20ms")
    assert done.returncode == 0, done.stderr
    assert "(2 timed runs of at least 20 ms each, after the warm-ups each runtime needs: 3 for fake)" in done.stdout
    assert warmups(env) == [3, 3]
    with sqlite3.connect(env["CONCBENCH_DB"]) as db:  # its run after 3 warm-ups: 5 ms, 4 repeats
        assert db.execute("SELECT repeat, run_ns FROM calibrations").fetchall() == [(4, 5_000_000)]


@pytest.mark.parametrize("profile", ["quick", "standard"])
def test_a_runtime_that_needs_no_warmup_takes_none(warming, profile):
    env = warming(0)
    done = sleeper(env, "-m", "sleeper", "--trials", "1", "--profile", profile, "--min-run", "20ms")
    assert done.returncode == 0, done.stderr
    assert "after the warm-ups each runtime needs: 0 for fake)" in done.stdout
    assert warmups(env) == [0]


def test_a_mechanism_may_take_other_warmups_than_its_runtime(warming):
    env = warming(0, sleeper=2)
    done = sleeper(env, "-m", "sleeper,honest", "--trials", "1", "--min-run", "off")
    assert done.returncode == 0, done.stderr
    assert "after the warm-ups each runtime needs: 0 for fake; 2 for fake/sleeper)" in done.stdout
    taken = {trial["mechanism"]: sum(run["warmup"] for run in trial["runs"]) for trial in stored_runs(env)}
    assert taken == {"honest": 0, "sleeper": 2}


def test_a_runtime_that_does_not_say_takes_one_warmup(fake_env):
    done = sleeper(fake_env, "-m", "sleeper", "--trials", "1", "--min-run", "off")
    assert done.returncode == 0, done.stderr
    assert "after the warm-ups each runtime needs: 1 for fake)" in done.stdout
    assert warmups(fake_env) == [1]


@pytest.mark.parametrize(
    "warmup, args, expected",
    [(3, ["--warmup", "1"], 1), (0, ["--warmup", "2"], 2), (3, ["--profile", "smoke"], 0)],
)
def test_a_given_warmup_or_a_plan_without_warmups_is_kept(warming, warmup, args, expected):
    env = warming(warmup)
    done = sleeper(env, "-m", "sleeper", "--trials", "1", *args)
    assert done.returncode == 0, done.stderr
    assert f"({expected} warm-up + " in done.stdout and "each runtime needs" not in done.stdout
    assert warmups(env) == [expected]


@pytest.mark.parametrize("name", sorted(runtimes.load_all()))
def test_each_runtime_of_the_project_states_the_warmups_it_measured(name):
    """Never the default for runtimes not measured (docs/protocol.md, "Warm-up")."""
    assert "warmup" in runtimes.load_all()[name].manifest.model_fields_set


def test_the_quick_profile_makes_many_cheap_trials(fake_env):
    """1 timed run of at least 10 ms a trial, up to 100 trials a cell."""
    done = sleeper(fake_env, "-m", "sleeper", "--profile", "quick", "--budget", "2s")
    assert done.returncode == 0, done.stderr
    assert "3 to 100 trials (until the ratio's 95% interval is within ±3%) (1 timed run of at least 10 ms each" in (
        done.stdout
    )
