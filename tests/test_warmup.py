"""Warm-up until steady: the rule, the verdict on a kit that follows it or
not, and the stored warm-up samples."""

import json
import os
from types import SimpleNamespace

import pytest
from conftest import concbench
from test_protocol import RUN, answer, process, read

from concbench import calibration, runtimes, warmup
from concbench.records import CellKey, Sample, TrialRecord
from concbench.results import CellResult
from concbench.status import Status
from concbench.verify import Expectations, verdict
from concbench.warmup import Steady


def runs(*walls, ops=None):
    return [SimpleNamespace(wall_ns=wall, ops=ops) for wall in walls]


JIT = (900, 500, 300, 200, 110, 104, 100, 101, 99, 100)  # settles from its fifth run on


def test_warming_stops_once_the_last_three_samples_lie_within_fifteen_percent():
    assert Steady(group=1, most=30).runs(0, runs(*JIT)) == 7  # 110, 104, 100 are within 15%
    assert Steady(group=1, most=30).runs(8, runs(*JIT)) == 8  # but never fewer than the least asked for


def test_a_trend_of_ten_percent_a_sample_never_passes():
    falling = [round(1000 * 0.9**i) for i in range(40)]  # 10% faster each sample
    assert not any(warmup.steady(falling[: i + 1]) for i in range(40))
    assert Steady(group=1, most=30).runs(0, runs(*falling)) == 30  # so it stops at its cap


def test_a_sample_is_a_group_of_runs_judged_by_their_sum():
    # 6 runs in 3 samples of 2: 1000, 950, 1000 lie within 15%, though single runs do not
    walls = (400, 600, 450, 500, 700, 300)
    assert Steady(group=2, most=60).runs(0, runs(*walls)) == 6
    assert Steady(group=1, most=60).runs(0, runs(*walls)) is None  # these runs end before the rule does


def test_a_rate_run_is_judged_by_the_time_an_operation_takes():
    rated = [SimpleNamespace(wall_ns=1_000_000, ops=ops) for ops in (100, 400, 1000, 1050, 1000)]
    assert Steady(group=1, most=30).runs(0, rated) == 5


# A served trial: every run's wall time is the load's length, while the CPU
# that serves it falls as a JIT compiles, then levels from its fifth run on.
SERVED = [SimpleNamespace(wall_ns=3_000_000_000, user_ns=cpu - 100, sys_ns=100, ops=None) for cpu in JIT]


def test_a_served_run_is_judged_by_its_cpu_time_where_its_wall_time_is_the_load():
    assert Steady(group=1, most=30).runs(0, SERVED) == 3  # by wall time: steady from the first, which it is not
    assert Steady(group=1, most=30, measure=warmup.CPU).runs(0, SERVED) == 7


def test_a_served_workload_asks_for_the_cpu_rule_and_others_for_the_wall_clock():
    _, served = warmup.asked(warmup.STEADY, 1, 1000, served=True)
    _, fixed = warmup.asked(warmup.STEADY, 1, 1000)
    assert served.request()["measure"] == "cpu" and fixed.request()["measure"] == "wall"


def test_a_kit_that_judges_a_served_warm_up_by_its_wall_time_is_invalid():
    warmups = [{**RUN, "warmup": True, "wall_ns": 10**9, "user_ns": cpu, "sys_ns": 0} for cpu in JIT]
    steady = Steady(group=1, most=30, measure=warmup.CPU)
    expect = Expectations(lambda ops: {"bytes": 6}, 0, 1, steady=steady)
    by_cpu = answer(runs=warmups[:7] + [RUN])
    by_wall = answer(runs=warmups[:3] + [RUN])
    assert verdict(process(by_cpu), read(by_cpu), expect) == (Status.OK, "")
    assert verdict(process(by_wall), read(by_wall), expect) == (
        Status.INVALID,
        "stopped warming up after 3 runs, before its runs were steady",
    )


def judge(walls, steady=Steady(group=1, most=30), timed=1, asked=1):
    stdout = answer(runs=[{**RUN, "warmup": True, "wall_ns": w} for w in walls] + [RUN] * timed)
    expect = Expectations(lambda ops: {"bytes": 6}, 0, asked, steady=steady)
    return verdict(process(stdout), read(stdout), expect)


def test_a_kit_that_warms_as_the_rule_says_is_verified():
    assert judge(JIT[:7]) == (Status.OK, "")
    never_steady = [round(1000 * 0.9**i) for i in range(5)]
    assert judge(never_steady, Steady(group=1, most=5)) == (Status.OK, "")  # its cap ends it


@pytest.mark.parametrize(
    "walls, detail",
    [
        (JIT[:6], "stopped warming up after 6 runs, before its runs were steady"),
        (JIT[:9], "warmed up for 9 runs, where its runs say the steady rule stops after 7"),
        ((), "stopped warming up after 0 runs, before its runs were steady"),
    ],
)
def test_a_kit_that_stops_warming_elsewhere_is_invalid(walls, detail):
    assert judge(walls) == (Status.INVALID, detail)


def test_a_steady_request_must_still_get_its_timed_runs():
    status, detail = judge(JIT[:7], timed=1, asked=2)
    assert (status, detail) == (Status.INVALID, "asked for a steady warm-up + 2 runs, got 8 runs in another order")
    assert judge(JIT[:7] + (100,), timed=0)[0] == Status.INVALID  # a timed run marked as a warm-up


def test_warmups_are_stored_as_samples_as_long_as_the_timed_ones():
    stdout = answer(runs=[{**RUN, "warmup": True, "wall_ns": w} for w in (30, 10)] + [RUN] * 4)
    samples = calibration.samples(read(stdout).runs, repeat=2)
    assert [(s.warmup, s.wall_ns, s.repeat) for s in samples] == [(True, 20, 2), (False, 10, 2), (False, 10, 2)]


def _steady_rows() -> list[str]:
    """A row of each runtime of the suite that warms up until steady, one that
    runs both workloads below: its kit must follow the rule to the last bit
    of its arithmetic."""
    return [
        f"{rt.name}/{next(m for m in rt.manifest.mechanisms if _runs_both(rt, m))}"
        for rt in runtimes.load_all().values()
        if rt.manifest.warmup == warmup.STEADY
    ]


def _runs_both(rt, mechanism) -> bool:
    return rt.warmup(mechanism) == warmup.STEADY and not any(rt.na_reason(w, mechanism) for w in ("ring", "invoke"))


@pytest.mark.parametrize("row", _steady_rows())
def test_each_kit_that_warms_until_steady_stops_where_the_rule_does(tmp_path, row):
    """A fixed workload, calibrated so that its second trial's warm-ups are
    groups of runs (a 2-unit ring lasts far less than 50 ms, even in a JVM
    started cold on a busy machine; at 5 ms JRuby's once did not), and a rate
    workload, judged by the time an operation takes."""
    db = tmp_path / "steady.db"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONCBENCH_")}
    small = ("-p", "nodes=2", "-p", "laps=1", "-p", "mode=await", "-p", "batch=10", "-p", "seconds=0.01")
    done = concbench(
        "run", "-w", "ring,invoke", *small, "-m", row, "--trials", "2", "--min-run", "50ms", "--db", db, env=env
    )
    assert done.returncode == 0, done.stdout + done.stderr
    trials = [json.loads(line) for line in concbench("show", "--json", "--db", db, env=env).stdout.splitlines()]
    assert sorted((t["workload"], t["trial"], t["status"]) for t in trials) == [
        (w, i, "ok") for w in ("invoke", "ring") for i in (0, 1)
    ]
    for trial in trials:
        warmups = [run for run in trial["runs"] if run["warmup"]]
        room = 1000 // warmups[0]["repeat"]  # the warm-up samples an answer has room for
        assert len(warmups) >= min(warmup.WINDOW, room)
    grouped = [run["repeat"] for t in trials if t["workload"] == "ring" for run in t["runs"] if run["warmup"]]
    assert max(grouped) > 1  # the calibrated trial's warm-ups were groups of runs


def test_a_served_row_whose_warmups_cpu_was_still_falling_is_unsteady():
    """bun/promise's echo at 10 connections, as the wall-time rule left it:
    3 warm-ups of 10 s each, their CPU 2.79, 2.19 and 1.82 s."""
    key = CellKey("echo", "bun", "promise", (("connections", 10), ("size", 64), ("rate", 10), ("duration_ms", 10)))
    load = {"send_lag_ns": 0, "latency_ns": {"p99": 1}}
    runs = tuple(
        Sample(warm, 10**10, cpu * 10**6, 0, 10, {}, latency=load)
        for warm, cpu in ((True, 2786), (True, 2190), (True, 1815), (False, 1713))
    )
    cell = CellResult(key, (TrialRecord(key, 0, Status.OK, "", {}, samples=runs),))
    assert cell.unsteady == 1  # by wall time it was steady: 10 s each
