"""Answers that once crashed a run mid-way (issue 12), each as it was found:
through the command line, the fake runtime's `says` mechanism giving it.
Now the run completes, the trial is stored as GARBAGE or INVALID with why,
and the run can be shown and reported."""

import json

import pytest
from conftest import FIXTURES, concbench

from concbench.trial import STDOUT_LIMIT

TOTAL = 55  # triangle's result at the smoke profile's n = 10


def answer(**run) -> str:
    """The answer to the smoke profile's request (one run, no warm-up), with the run's figures changed."""
    runs = [
        {
            "warmup": False,
            "wall_ns": 1000,
            "user_ns": 500,
            "sys_ns": 100,
            "units": 1,
            "peak_live": 1,
            "result": {"total": TOTAL},
            **run,
        }
    ]
    return json.dumps({"ok": True, "runtime": {"name": "fake", "version": "1"}, "runs": runs})


def run_says(env: dict, tmp_path, stdout: str):
    path = tmp_path / "stdout"
    path.write_text(stdout + "\n")
    return concbench("run", "-w", "triangle", "-m", "says", "--profile", "smoke", env={**env, "FAKE_STDOUT": str(path)})


def assert_stored(env: dict, tmp_path, done, status: str, detail: str) -> dict:
    """The run completed, its one trial stored as status with a detail that
    starts with detail, and the run shows and reports; the trial's record."""
    assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
    shown = concbench("show", "--json", env=env)
    (record,) = [json.loads(line) for line in shown.stdout.splitlines()]
    assert record["status"] == status and record["detail"].startswith(detail), record["detail"]
    html = tmp_path / "report.html"
    for command, returncode in (
        (["show"], 1),
        (["report", "--format", "md"], 0),
        (["report", "--format", "html", "-o", html], 0),
    ):
        done = concbench(*command, env=env)
        assert done.returncode == returncode and "Traceback" not in done.stdout + done.stderr, done.stderr
    assert html.exists()
    return record


@pytest.mark.parametrize(
    "stdout, detail",
    [
        (answer(wall_ns=10**20), "an integer of 21 digits: answers hold 64-bit integers, at most 19"),
        (
            answer(result={"total": 1}).replace('"total": 1', '"total": ' + "7" * 5000),
            "an integer of 5000 digits: answers hold 64-bit integers, at most 19",
        ),
        ("[" * 100_000, "answer nested deeper than 16"),
        (answer(wall_ns=0), "a run's wall_ns is 0: it must lie between 1 and the "),
    ],
    ids=["wall_ns of 10^20", "a 5000-digit result", "100,000 brackets", "wall_ns of 0"],
)
def test_an_answer_beyond_the_bounds_is_stored_as_garbage(fake_env, tmp_path, stdout, detail):
    assert_stored(fake_env, tmp_path, run_says(fake_env, tmp_path, stdout), "garbage", detail)


def test_ops_that_a_spec_divides_by_zero_for_leave_the_run_unverified(fake_env, tmp_path):
    env = {**fake_env, "CONCBENCH_WORKLOADS": str(FIXTURES / "uncomputable")}
    done = run_says(env, tmp_path, answer(ops=10, result={"total": 10 * TOTAL, "mean": 1}))
    record = assert_stored(
        env,
        tmp_path,
        done,
        "invalid",
        "run 1: the spec gives no expected figures for ops = 10: "
        "integer division or modulo by zero (in 'ops // (ops - batch)')",
    )
    assert record["expected"] == {}


def test_ops_that_a_spec_would_draw_too_many_values_for_leave_the_run_unverified(fake_env, tmp_path):
    spec = (FIXTURES / "uncomputable" / "triangle.toml").read_text()
    (tmp_path / "workloads").mkdir()
    (tmp_path / "workloads" / "triangle.toml").write_text(spec.replace("ops // (ops - batch)", "lcg_sum(ops, 0, 1)"))
    env = {**fake_env, "CONCBENCH_WORKLOADS": str(tmp_path / "workloads")}
    ops = 10**9  # a billion draws once took minutes and gigabytes
    done = run_says(env, tmp_path, answer(ops=ops, result={"total": ops * TOTAL, "mean": 0}))
    assert_stored(
        env,
        tmp_path,
        done,
        "invalid",
        f"run 1: the spec gives no expected figures for ops = {ops}: "
        "1,000,000,000 draws asked for, at most 1,000,000 (in 'lcg_sum(ops, 0, 1)')",
    )


def test_a_valid_answer_padded_past_the_stdout_cap_is_garbage_that_names_the_cap(fake_env, tmp_path):
    # Found with `--runs 20000` (2.3 MiB of honest runs), which the command line now refuses.
    padded = answer().replace("{", "{" + " " * STDOUT_LIMIT, 1)
    assert_stored(
        fake_env,
        tmp_path,
        run_says(fake_env, tmp_path, padded),
        "garbage",
        "the answer's last line passed the 1 MiB stdout cap (1.0 MiB written)",
    )
