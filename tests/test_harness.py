"""The harness end to end, through the command line, on the deliberately bad
fake runtime: every kind of failure is classified and stored, the run goes on,
and bad input gets one line."""

import json
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

import old_schemas
import pytest
from conftest import FIXTURES, assert_one_line_error, concbench

from concbench import cpus, store
from concbench.report import figures
from concbench.store import schema


def records(env, run=None):
    done = concbench("show", "--json", *([run] if run else []), env=env)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_every_failure_is_classified_stored_and_the_run_goes_on(fake_env):
    done = concbench("run", "-w", "triangle", "--timeout", "2", "--trials", "2", env=fake_env)
    assert done.returncode == 1
    assert "Traceback" not in done.stdout + done.stderr
    statuses = {}
    for r in records(fake_env):
        statuses.setdefault(r["mechanism"], set()).add(r["status"])
    assert statuses == {
        "honest": {"ok"},
        "paced": {"ok"},
        "sleeper": {"ok"},
        "liar_once": {"ok", "invalid"},  # right in its first trial, which runs the work once a run
        "slow": {"ok"},
        "forker": {"stray"},
        "escaper": {"stray"},
        "winder": {"ok"},
        "hog": {"ok"},
        "reserve": {"ok"},
        "forks": {"ok"},
        "oversized": {"ok"},  # unconfined: checked for neither (test_cpus.py)
        "widener": {"ok"},
        "orphaner": {"ok"},
        "liar": {"invalid"},
        "hang": {"timeout"},
        "crash": {"crash"},
        "exit": {"exit"},
        "garbage": {"garbage"},
        "silent": {"garbage"},
        "says": {"garbage"},
        "refuse": {"error"},
    }
    assert "fake/inexpressible  n/a: this mechanism has no triangles" in done.stdout
    assert "fake/absent         unavailable: fake/absent is unusable (apt-get install nothing-real)" in done.stdout
    assert (
        "fake/library        unavailable: fake/library is unusable: cannot load such file -- imaginary "
        "(gem install imaginary)" in done.stdout
    )
    assert "fake/liar trials 1, 2: INVALID: run 1: total = 5051, expected 5050" in done.stdout
    assert "fake/crash trials 1, 2: CRASH: killed by signal 11: about to crash" in done.stdout


def test_a_json_record_per_trial_with_every_figure(fake_env):
    concbench("run", "-w", "triangle", "-m", "honest,liar", "--warmup", "1", "--runs", "2", "-p", "n=3", env=fake_env)
    rows = records(fake_env)
    assert len(rows) == 6
    honest = next(r for r in rows if r["mechanism"] == "honest")
    assert honest["params"] == {"n": 3} and honest["expected"] == {"total": 6}
    assert [run["warmup"] for run in honest["runs"]] == [True, False, False]
    assert honest["process"]["maxrss_kb"] > 0 and honest["peak_kb"] == honest["process"]["maxrss_kb"]
    assert honest["memory_method"] == "wait4" and honest["runtime_info"]["name"] == "fake"
    liar = next(r for r in rows if r["mechanism"] == "liar")
    assert liar["status"] == "invalid" and liar["runs"][0]["result"] == {"total": 7}


def test_the_verified_row_is_in_the_seed_format(fake_env):
    done = concbench("run", "-w", "triangle", "-m", "honest", "--profile", "smoke", env=fake_env)
    assert done.returncode == 0, done.stderr
    assert "user     system      total        real     ratio" in done.stdout
    row = next(line for line in done.stdout.splitlines() if line.startswith("fake/honest"))
    assert "(  0.000001)     x1.00" in row and row.endswith("1/1")


def test_the_legend_is_printed_under_a_new_databases_first_run_and_when_asked(fake_env):
    legend = figures.legend_text().splitlines()[0]
    first = concbench("run", "-w", "triangle", "-m", "honest", "--profile", "smoke", env=fake_env)
    second = concbench("run", "-w", "triangle", "-m", "honest", "--profile", "smoke", env=fake_env)
    assert legend in first.stdout and legend not in second.stdout
    assert legend not in concbench("show", "1", env=fake_env).stdout
    assert legend in concbench("show", "--legend", env=fake_env).stdout


def test_a_rate_workload_is_checked_against_its_own_count_and_printed_as_executions(fake_env):
    done = concbench("run", "-w", "ticks", "-m", "honest,liar", "--profile", "smoke", env=fake_env)
    assert done.returncode == 1
    assert "fake/honest:            30 executions in 0.0000 seconds    30.000M     x1.00" in done.stdout
    assert "fake/liar trial 1: INVALID: run 1: count = 29, expected 30" in done.stdout
    honest, liar = sorted(records(fake_env), key=lambda r: r["mechanism"])
    assert honest["status"] == "ok" and honest["expected"] == {"count": 30}
    assert [run["ops"] for run in honest["runs"]] == [30] and liar["status"] == "invalid"


def test_options_are_recorded(fake_env):
    concbench("run", "-w", "triangle", "-m", "honest", "-o", "loud", "--profile", "smoke", env=fake_env)
    (row,) = records(fake_env)
    assert row["options"] == ["loud"] and row["runtime_info"]["flags"] == ["--loud"]
    assert "fake+loud/honest" in concbench("show", env=fake_env).stdout


def test_a_sweep_makes_a_table_per_value(fake_env):
    done = concbench("run", "-m", "honest", "--profile", "full", "--cpus", "1", env=fake_env)
    assert "Triangle (triangle): cpus=1 n=10" in done.stdout and "Triangle (triangle): cpus=1 n=100" in done.stdout


def test_the_full_profile_sweeps_the_machines_cpus(fake_env):
    done = concbench("run", "-w", "triangle", "-m", "honest", "--profile", "full", "-p", "n=10", env=fake_env)
    counts = cpus.sweep(len(cpus.usable()))
    assert f"2 cells at {', '.join(map(str, counts))} CPU" in done.stdout or len(counts) == 1
    for k in counts:
        assert f"Triangle (triangle): cpus={k} n=10" in done.stdout


@pytest.mark.parametrize(
    "args, fragments",
    [
        (["run", "-w", "nope"], ["unknown workload 'nope'", "triangle"]),
        (["run", "-r", "nope"], ["unknown runtime 'nope'"]),
        (["run", "-m", "nope"], ["unknown mechanism 'nope'"]),
        (["run", "-p", "m=1"], ["unknown parameter 'm'"]),
        (["run", "-p", "n=x"], ["triangle: n=x is not an integer"]),
        (["run", "-p", "n=1.5"], ["triangle: n=1.5 is not an integer"]),
        (["run", "-p", "n="], ["--param 'n=': expected NAME=VALUE"]),
        (["run", "-p", "n=-1"], ["triangle: n=-1 is out of bounds [0, 1000000]"]),
        (["run", "-o", "nope"], ["unknown option 'nope'"]),
        (["run", "--trials", "-1"], ["--trials"]),
        (["run", "--timeout", "0"], ["--timeout"]),
        (["run", "--profile", "huge"], ["--profile"]),
        (["run", "--bogus"], ["--bogus"]),
        (["run", "-m", "inexpressible"], ["nothing to run"]),
        (["run", "--resume"], ["no interrupted run to resume"]),
        (["run", "--resume", "x"], ["'--resume': 'x': expected a run number"]),
        (["run", "--resume", "--warmup", "0"], ["--resume continues a run with its own selection"]),
        (["show"], ["no runs stored yet"]),
        (["show", "7"], ["no runs stored yet"]),
    ],
)
def test_bad_input_gets_one_line(fake_env, args, fragments):
    assert_one_line_error(concbench(*args, env=fake_env), *fragments)


def test_a_malformed_spec_gets_one_line(fake_env, tmp_path):
    (tmp_path / "broken.toml").write_text("id = 'broken'\ntitle = [")
    env = {**fake_env, "CONCBENCH_WORKLOADS": str(tmp_path)}
    assert_one_line_error(concbench("run", env=env), "broken.toml: malformed TOML")
    assert_one_line_error(concbench("list", env=env), "broken.toml")


def test_an_unreadable_database_gets_one_line(fake_env, tmp_path):
    bad = tmp_path / "bad.db"
    bad.write_text("this is not sqlite " * 100)
    assert_one_line_error(concbench("run", "--db", bad, env=fake_env), "bad.db", "not a database")
    assert_one_line_error(concbench("show", "--db", tmp_path, env=fake_env), "--db")


def test_list_shows_mechanisms_and_every_na_cell_with_its_reason(fake_env):
    done = concbench("list", env=fake_env)
    assert done.returncode == 0
    assert "fake/honest" in done.stdout and "option loud" in done.stdout
    assert "needs a library the project does not install  (optional: gem install imaginary)" in done.stdout
    assert "triangle        fake/inexpressible n/a: this mechanism has no triangles" in done.stdout


def test_doctor_names_what_is_missing_and_how_to_install_it(fake_env):
    done = concbench("doctor", env=fake_env)
    assert done.returncode == 1
    assert "fake/absent" in done.stdout and "apt-get install nothing-real" in done.stdout
    assert "absent  fake/teleport    needs a package no registry has" in done.stdout
    # A library the project does not install: how to, and not counted as missing.
    assert (
        "missing fake/library     optional, not installed (cannot load such file -- imaginary): gem install imaginary"
        in done.stdout
    )


def test_a_mechanism_is_na_above_its_limit_and_runs_below_it(fake_env):
    done = concbench("run", "-w", "triangle", "-m", "honest", "-p", "n=10,501", "--profile", "smoke", env=fake_env)
    assert done.returncode == 0, done.stderr
    small, large = done.stdout.split("Triangle (triangle): n=501")
    assert "fake/honest    0.0" in small and "n/a:" not in small
    assert "fake/honest   n/a: an honest count past 500 is too tiring (it takes n <= 500)" in large
    listed = concbench("list", env=fake_env).stdout
    assert "fake/honest        n/a above n=500: an honest count past 500 is too tiring" in listed


def test_a_limit_on_a_parameter_the_workload_lacks_gets_one_line(fake_env, tmp_path):
    runtime = tmp_path / "fake"
    shutil.copytree(FIXTURES / "runtimes" / "fake", runtime)
    manifest = runtime / "runtime.toml"
    manifest.write_text(manifest.read_text().replace('param = "n"', 'param = "m"'))
    env = {**fake_env, "CONCBENCH_RUNTIMES": str(tmp_path)}
    assert_one_line_error(
        concbench("run", "-w", "triangle", "-m", "honest", env=env),
        "mechanisms.honest.limits.triangle: triangle has no parameter 'm'",
    )


def paced_run(env, wall_ns, *args):
    done = concbench(
        "run",
        "-w",
        "triangle",
        "-m",
        "paced,honest",
        "--trials",
        "3",
        "--warmup",
        "0",
        *args,
        env={**env, "FAKE_WALL_NS": str(wall_ns)},
    )
    assert done.returncode == 0, done.stderr


def test_compare_calls_a_change_only_beyond_the_noise_and_the_threshold(fake_env):
    paced_run(fake_env, 1000, "--runs", "2")  # run 1
    paced_run(fake_env, 1500, "--runs", "2")  # run 2: paced takes 50% more time
    paced_run(fake_env, 1030, "--runs", "2")  # run 3: 3% more, under the 5% threshold
    paced_run(fake_env, 1000, "--runs", "1")  # runs 4 and 5: 3 runs each, too few to test
    paced_run(fake_env, 3000, "--runs", "1")
    slower = concbench("compare", 1, 2, env=fake_env)
    assert slower.returncode == 0, slower.stderr
    row = next(line for line in slower.stdout.splitlines() if line.startswith("fake/paced"))
    assert "0.000001       0.000002     x1.50    0.003  slower: 50.0% more time" in row  # q, not p
    assert (
        "1 slower, 1 no change (a change is called at q < 0.05, p adjusted across the 2 tested cells" in slower.stdout
    )
    assert "(Benjamini-Hochberg)" in slower.stdout
    assert "faster: 33.3% less time" in concbench("compare", 2, 1, env=fake_env).stdout
    assert "no change (+3.0%, under the 5% threshold)" in concbench("compare", 1, 3, env=fake_env).stdout
    untested = concbench("compare", 4, 5, env=fake_env).stdout
    assert "untested (+200.0%): 3 and 3 runs cannot give p < 0.05" in untested


def test_compare_fails_on_a_regression_for_ci(fake_env):
    paced_run(fake_env, 1000, "--runs", "2")
    paced_run(fake_env, 1500, "--runs", "2")
    failed = concbench("compare", 1, 2, "--fail-on-regression", "10", env=fake_env)
    assert failed.returncode == 1
    assert "regression triangle n=100 fake/paced: 50.0% more time" in failed.stdout
    assert concbench("compare", 1, 2, "--fail-on-regression", "60", env=fake_env).returncode == 0
    assert concbench("compare", 2, 1, "--fail-on-regression", "10", env=fake_env).returncode == 0
    assert_one_line_error(concbench("compare", 1, 9, env=fake_env), "no run 9")


def test_trials_go_round_robin_across_cells_so_drift_hits_all_alike(fake_env):
    """Every other round backwards, so that neither row of a pair always runs first."""
    done = concbench("run", "-w", "triangle", "-m", "honest,slow", "--trials", "3", "-p", "n=3", env=fake_env)
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(fake_env["CONCBENCH_DB"]) as connection:
        order = connection.execute("SELECT mechanism, trial FROM trials ORDER BY id").fetchall()
    assert order == [("honest", 0), ("slow", 0), ("slow", 1), ("honest", 1), ("honest", 2), ("slow", 2)]


def test_interrupted_runs_keep_their_trials_and_resume(fake_env):
    command = [sys.executable, "-m", "concbench", "run", "-w", "triangle", "-m", "slow", "--trials", "6"]
    child = subprocess.Popen(command, env=fake_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    db = fake_env["CONCBENCH_DB"]
    while _stored(db) < 2:
        time.sleep(0.1)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=30)
    assert child.returncode == 130, err
    assert "continue with: concbench run --resume 1" in out
    kept = _stored(db)
    assert 2 <= kept < 6
    done = concbench("run", "--resume", env=fake_env)
    assert done.returncode == 0, done.stderr
    assert f"{6 - kept} trials to go" in done.stdout
    rows = records(fake_env)
    assert sorted(r["trial"] for r in rows) == list(range(6))
    assert_one_line_error(concbench("run", "--resume", "1", env=fake_env), "run 1 is complete")


def test_a_second_run_on_a_database_in_use_is_refused(fake_env):
    command = [sys.executable, "-m", "concbench", "run", "-w", "triangle", "-m", "slow", "--trials", "4"]
    first = subprocess.Popen(command, env=fake_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while _stored(fake_env["CONCBENCH_DB"]) < 1:
        time.sleep(0.1)
    assert_one_line_error(concbench("run", "--resume", env=fake_env), "is in use by another concbench run")
    first.send_signal(signal.SIGINT)
    first.communicate(timeout=30)
    assert concbench("run", "--resume", env=fake_env).returncode == 0


def _stored(db):
    try:
        with sqlite3.connect(db) as connection:
            return connection.execute("SELECT count(*) FROM trials").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_a_database_of_the_previous_schema_is_migrated(fake_env, tmp_path):
    old = old_schemas.sqlite_at(tmp_path / "v1.db", 1)  # without the columns and tables later schemas added
    with sqlite3.connect(old) as connection:
        connection.execute("INSERT INTO runs VALUES (1, 'then', 'then', 'complete', '{\"profile\": \"smoke\"}', '{}')")
    copy = shutil.copy(old, tmp_path / "v1-copy.db")
    done = concbench("run", "-w", "ticks", "-m", "honest", "--profile", "smoke", "--db", old, env=fake_env)
    assert done.returncode == 0, done.stderr
    assert [r["runs"][0]["ops"] for r in records({**fake_env, "CONCBENCH_DB": str(old)})] == [30]
    older = store.open_store(old, create=False).run(1)  # without caps on a trial, a fixed plan, no calibration
    assert older.request == {"profile": "smoke", "memory_limit": 0, "process_limit": 0, "trials": 1, "min_run": 0}
    assert older.uuid == store.open_store(copy).run(1).uuid  # every copy of it is one run to merge


def test_a_database_of_schema_7_gets_the_probes_of_the_machines_speed(fake_env, tmp_path):
    old = old_schemas.sqlite_at(tmp_path / "v7.db", 7)
    with sqlite3.connect(old) as connection:
        connection.execute(
            "INSERT INTO runs (id, uuid, started, state, request, environment) "
            "VALUES (1, 'u', 'then', 'complete', '{\"profile\": \"smoke\"}', '{}')"
        )
    migrated = store.open_store(old, create=False)
    assert migrated.probes(1) == []  # a run from before: nothing to say
    done = concbench("run", "-w", "triangle", "-m", "honest", "--profile", "smoke", "--db", old, env=fake_env)
    assert done.returncode == 0, done.stderr
    assert "machine speed" not in concbench("show", "1", "--db", old, env=fake_env).stdout
    assert store.open_store(old, create=False).probes(2)  # the new run's
    with sqlite3.connect(old) as connection:
        assert connection.execute("PRAGMA user_version").fetchone() == (schema.SCHEMA_VERSION,)


def test_a_run_probes_the_machines_speed_between_its_trials(fake_env):
    done = concbench("run", "-w", "triangle", "-m", "honest,slow", "--profile", "smoke", "--trials", "3", env=fake_env)
    assert done.returncode == 0, done.stderr
    probes = store.open_store(fake_env["CONCBENCH_DB"], create=False).probes(1)
    assert probes and all(p.work_ns > 0 for p in probes)  # one as it starts, then at most one a second
    assert len(probes) <= 7
    assert "machine speed: " in done.stdout
