"""`concbench history`: a cell's median across the stored runs, with its steps called."""

import json
import sqlite3
from pathlib import Path

from conftest import assert_one_line_error, concbench

from concbench.store import open_store


def paced_run(env, wall_ns, mechanisms="paced,honest"):
    """One run of triangle: one trial of 6 timed runs a cell, enough for p < 0.05."""
    done = concbench(
        "run",
        "-w",
        "triangle",
        "-m",
        mechanisms,
        "--trials",
        "1",
        "--warmup",
        "0",
        "--runs",
        "6",
        env={**env, "FAKE_WALL_NS": str(wall_ns)},
    )
    assert done.returncode == 0, done.stderr


def stamp(env, run_id, commit, state="complete"):
    """Give a stored run the commit (and state) it would have had: every test
    run is made from this working tree."""
    with sqlite3.connect(env["CONCBENCH_DB"]) as db:
        environment = json.loads(db.execute("SELECT environment FROM runs WHERE id = ?", (run_id,)).fetchone()[0])
        db.execute(
            "UPDATE runs SET environment = ?, state = ? WHERE id = ?",
            (json.dumps({**environment, "concbench": commit}), state, run_id),
        )


def blocks(stdout):
    """The cell blocks of the output, by their title's row."""
    found = {}
    for block in stdout.strip().split("\n\n")[:-1]:
        title, _header, *lines = block.splitlines()
        found[title.rsplit("  ", 1)[1]] = lines
    return found


def line_of(lines, run_id):
    return next(line for line in lines if line.startswith(f"  run {run_id} "))


def test_history_calls_the_step_on_the_run_that_made_it(fake_env):
    for run_id, (wall_ns, commit) in enumerate(
        [(1000, "aaaaaaa"), (1000, "bbbbbbb"), (1500, "ccccccc"), (1000, "ccccccc")], start=1
    ):
        paced_run(fake_env, wall_ns)
        stamp(fake_env, run_id, commit, "interrupted" if run_id == 2 else "complete")
    done = concbench("history", env=fake_env)
    assert done.returncode == 0, done.stderr
    paced, honest = (blocks(done.stdout)[row] for row in ("fake/paced", "fake/honest"))
    assert "aaaaaaa" in line_of(paced, 1) and line_of(paced, 1).endswith("%")  # nothing to compare with
    assert "step" not in line_of(paced, 2) and line_of(paced, 2).endswith("interrupted")
    assert "ccccccc" in line_of(paced, 3)
    assert line_of(paced, 3).endswith("x1.50  step: slower 50.0% (q=0.005)")
    # Run 4 is back to the old time on the same clean commit: the machine moved, not the code.
    assert line_of(paced, 4).endswith("x0.67  step: faster 33.3% (q=0.005), same commit")
    assert paced[-1] == "  run 1 to run 4: x1.00  q=1.00"
    assert not any("step" in line for line in honest)
    assert "4 runs: 2 steps in 1 cell, 0 drifts" in done.stdout

    only = concbench("history", "--steps-only", env=fake_env).stdout
    assert list(blocks(only)) == ["fake/paced"]


def test_history_follows_the_chosen_cells(fake_env):
    paced_run(fake_env, 1000)
    paced_run(fake_env, 1000, "paced")
    done = concbench("history", "-w", "triangle", "-m", "fake/paced", "-p", "n=100", env=fake_env)
    assert done.returncode == 0, done.stderr
    paced = blocks(done.stdout)["fake/paced"]
    assert list(blocks(done.stdout)) == ["fake/paced"]
    assert line_of(paced, 2).endswith("CI      +0.0/+0.0%     x1.00  q=1.00")

    honest = blocks(concbench("history", "-m", "honest", env=fake_env).stdout)["fake/honest"]
    assert len(honest) == 1 and honest[0].endswith("one run, nothing to compare")
    last = blocks(concbench("history", "--last", "1", env=fake_env).stdout)
    assert [len(lines) for lines in last.values()] == [1, 1]

    assert_one_line_error(concbench("history", "-w", "pipe", env=fake_env), "unknown workload 'pipe'")
    assert_one_line_error(concbench("history", "-m", "thread", env=fake_env), "unknown mechanism 'thread'")
    assert_one_line_error(concbench("history", "-p", "n=7", env=fake_env), "no stored cell matches")


def test_history_of_a_database_without_trials_is_a_one_line_error(fake_env):
    assert_one_line_error(concbench("history", env=fake_env), "no runs stored yet")
    open_store(Path(fake_env["CONCBENCH_DB"])).begin_run({"profile": "quick"}, {})  # interrupted before a trial
    assert_one_line_error(concbench("history", env=fake_env), "no trials stored yet")
