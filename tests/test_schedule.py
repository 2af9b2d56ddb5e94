"""The schedule of a run's trials: fixed, adaptive until a cell's interval
narrows, and within a budget; with a clock of the test's own, so that the
rules are checked exactly, whatever the machine does."""

import random
from dataclasses import replace

import pytest
from conftest import FIXTURES

from concbench import plan, runtimes, workloads
from concbench.records import Calibration, Sample, TrialRecord
from concbench.schedule import Outcome, Schedule
from concbench.selection import Selection
from concbench.status import Status

MS = 1_000_000


@pytest.fixture
def cells(monkeypatch):
    """A plan of the fake suite's three triangle cells that verify."""
    monkeypatch.setenv("CONCBENCH_BUILTINS", "off")
    monkeypatch.setenv("CONCBENCH_WORKLOADS", str(FIXTURES / "workloads"))
    monkeypatch.setenv("CONCBENCH_RUNTIMES", str(FIXTURES / "runtimes"))

    def make(**asked) -> plan.Plan:
        selection = Selection(workloads=("triangle",), mechanisms=("honest", "paced", "sleeper"), **asked)
        return plan.make_plan(plan.choose(selection, workloads.load_all(), runtimes.load_all()))

    return make


class Clock:
    def __init__(self):
        self.now = 0

    def __call__(self) -> int:
        return self.now


def record(cell, index: int, walls_ms: list[float], trial_ms: float) -> TrialRecord:
    samples = tuple(Sample(False, round(w * MS), 1, 1, 1, {"total": 1}) for w in walls_ms)
    return TrialRecord(cell.key, index, Status.OK, "", {}, wall_ns=round(trial_ms * MS), samples=samples)


def drive(schedule: Schedule, clock: Clock, noise: dict[str, float], trial_ms: dict[str, float], seed=1):
    """Runs the schedule to its end as the runner would, each trial taking its
    cell's length on the clock and giving two timed runs of its cell's noise."""
    rng = random.Random(seed)
    taken = []
    while (step := schedule.next()) is not None:
        cell, index = step
        spread = noise[cell.mechanism]
        walls = [10 * max(0.1, 1 + spread * rng.gauss(0, 1)) for _ in range(2)]
        length = trial_ms[cell.mechanism]
        clock.now += round(length * MS)
        schedule.record(record(cell, index, walls, length), round(length * MS))
        taken.append((cell.mechanism, index, clock.now))
    return taken


def test_a_fixed_plan_gives_every_cell_its_trials_round_robin_turning_round_every_other_round(cells):
    schedule = Schedule(cells(trials=3), [])
    taken = drive(
        schedule,
        Clock(),
        dict.fromkeys(("honest", "paced", "sleeper"), 0.5),
        dict.fromkeys(("honest", "paced", "sleeper"), 1),
    )
    assert [(m, i) for m, i, _ in taken] == [
        ("honest", 0),
        ("paced", 0),
        ("sleeper", 0),
        ("sleeper", 1),
        ("paced", 1),
        ("honest", 1),
        ("honest", 2),
        ("paced", 2),
        ("sleeper", 2),
    ]
    assert schedule.outcomes() == {Outcome.PLANNED: 3}


def test_the_trials_of_a_plan_are_made_as_they_are_run(cells):
    """A plan of 10^12 trials a cell is scheduled without being listed; a
    resumed run continues where its stored trials end."""
    found = cells(trials=1)
    huge = replace(found, settings=replace(found.settings, trials=10**12))
    first = huge.cells[0]
    schedule = Schedule(huge, [record(first, 0, [1, 1], 1)])
    taken = []
    for _ in range(3):
        cell, index = schedule.next()
        schedule.record(record(cell, index, [1, 1], 1), MS)
        taken.append((cell.mechanism, index))
    assert taken == [("paced", 0), ("sleeper", 0), ("sleeper", 1)]
    assert schedule.planned == 3 * 10**12


def test_a_quiet_ratio_settles_at_three_pairs_and_a_noisy_one_takes_more(cells):
    """A ratio has a 95% interval from 3 pairs of trials (Student's t on their
    logarithms); the baseline (honest) takes a trial beside every extra trial
    of an unsettled row."""
    schedule = Schedule(cells(max_trials=10), [])
    taken = drive(
        schedule,
        Clock(),
        {"honest": 0.0, "paced": 0.001, "sleeper": 0.4},
        dict.fromkeys(("honest", "paced", "sleeper"), 1),
    )
    counts = {m: sum(1 for mechanism, _, _ in taken if mechanism == m) for m in ("honest", "paced", "sleeper")}
    assert counts == {"honest": 10, "paced": 3, "sleeper": 10}
    assert schedule.outcomes() == {Outcome.SETTLED: 1, Outcome.CAPPED: 2}
    assert [cell.mechanism for cell, _ in schedule.unsettled()] == ["sleeper"]
    # every cell's least trials come first, round-robin; then the unsettled rows beside the baseline
    assert sorted(m for m, _, _ in taken[:9]) == sorted(["honest", "paced", "sleeper"] * 3)
    assert [m for m, _, _ in taken[-2:]] in (["honest", "sleeper"], ["sleeper", "honest"])


def test_a_ratio_is_settled_by_pairs_even_where_the_machine_drifts(cells):
    """The machine slows down step by step through the run: every cell's own
    median is wide, but the ratio of neighbours holds, and settles."""
    schedule = Schedule(cells(max_trials=10, target=3), [])
    taken = []
    while (step := schedule.next()) is not None:
        cell, index = step
        slower = 1 + 0.01 * len(taken)  # 1% slower a trial
        own = {"honest": 10, "paced": 20, "sleeper": 5}[cell.mechanism]
        schedule.record(record(cell, index, [own * slower] * 2, 1), MS)
        taken.append(cell.mechanism)
    paced = next(s for s in schedule.states.values() if s.cell.mechanism == "paced")
    assert paced.figure.spread > 0.03  # its own median: wider than the target
    assert schedule.outcome(paced) == Outcome.SETTLED
    assert 1.9 < paced.settling.median < 2.2


def test_extra_trials_go_to_the_widest_interval_first(cells):
    """After six pairs each, sleeper's ratio is within +-3% and paced's is not:
    the next trials are paced's, beside one of the baseline."""
    schedule = Schedule(cells(max_trials=10), [])
    walls = {"honest": [10, 10], "paced": [12, 13.2], "sleeper": [12, 12.6]}  # ms, alternating by trial
    for _ in range(18):
        cell, index = schedule.next()
        wall = walls[cell.mechanism][index % 2]
        schedule.record(record(cell, index, [wall, wall], 1), MS)
    assert [schedule.next()[0].mechanism for _ in range(2)] == ["honest", "paced"]
    sleeper = next(s for s in schedule.states.values() if s.cell.mechanism == "sleeper")
    assert schedule.outcome(sleeper) == Outcome.SETTLED


@pytest.mark.parametrize("budget_s", [1.0, 2.5, 6.0])
def test_a_budgeted_run_ends_within_its_budget_plus_one_trial(cells, budget_s):
    clock = Clock()
    schedule = Schedule(cells(budget=budget_s, max_trials=1000), [], clock=clock)
    lengths = {"honest": 20, "paced": 60, "sleeper": 150}  # ms a trial
    taken = drive(schedule, clock, dict.fromkeys(lengths, 0.5), lengths)
    budget_ns = round(budget_s * 1e9)
    assert clock.now <= budget_ns + max(lengths.values()) * MS
    starts = [end - lengths[m] * MS for m, _, end in taken]
    assert all(start < budget_ns for start in starts)  # none started once the budget was spent
    assert all(sum(1 for m, _, _ in taken if m == mechanism) >= 3 for mechanism in lengths)
    assert schedule.outcomes()[Outcome.BUDGET] >= 1  # noise of 50% never settles: the budget stopped it


def test_an_extra_trial_takes_no_more_than_its_share_of_what_is_left(cells):
    """After the least trials, a cell whose trials are long waits while the
    others share what is left; it is stopped by the budget, not the others."""
    clock = Clock()
    schedule = Schedule(cells(budget=2.0, max_trials=1000), [], clock=clock)
    lengths = {"honest": 10, "paced": 10, "sleeper": 500}
    taken = drive(schedule, clock, dict.fromkeys(lengths, 0.5), lengths)
    assert sum(1 for m, _, _ in taken if m == "sleeper") == 3  # its least, then nothing fitted its share
    assert sum(1 for m, _, _ in taken if m == "honest") > 10


def test_the_least_trials_are_planned_from_the_calibration(cells):
    """Before a trial of its repetitions, a cell's length is its first trial's
    with the repetitions that trial lacked: a cell that cannot fit is not started."""
    clock = Clock()
    found = cells(budget=1.0)
    schedule = Schedule(found, [], clock=clock)
    sleeper = next(c for c in found.cells if c.mechanism == "sleeper")
    schedule.calibrated(sleeper, Calibration(repeat=100, run_ns=10 * MS, trial_ns=50 * MS))
    clock.now = 50 * MS
    assert schedule.states[sleeper.key.id].expected_ns(runs=2) == 50 * MS + 2 * 99 * 10 * MS
    taken = drive(
        schedule,
        clock,
        dict.fromkeys(("honest", "paced", "sleeper"), 0.0),
        dict.fromkeys(("honest", "paced", "sleeper"), 10),
    )
    assert "sleeper" not in {m for m, _, _ in taken}
    assert schedule.outcomes()[Outcome.BUDGET] == 2  # sleeper, and honest, its baseline, with it


def test_under_a_budget_the_cheapest_table_takes_its_least_trials_first(cells):
    """Every cell's first trial comes first; then the table of n=10, whose
    trials are a tenth as long, takes its second and third before the other
    table takes any more, so that the budget gives the most rows an interval."""
    clock = Clock()
    schedule = Schedule(cells(profile="full", budget=60.0), [], clock=clock)
    taken = []
    while len(taken) < 12 and (step := schedule.next()) is not None:
        cell, index = step
        length = 10 if cell.params["n"] == 10 else 100
        clock.now += length * MS
        schedule.record(record(cell, index, [length / 2] * 2, length), length * MS)
        taken.append((cell.params["n"], index))
    assert sorted(taken[:6]) == sorted([(10, 0), (100, 0)] * 3)
    assert taken[6:12] == [(10, 1)] * 3 + [(10, 2)] * 3


def test_under_a_budget_a_table_that_fits_nowhere_leaves_the_rest_to_the_next(cells):
    """The cheapest table a row (n=10, 400 ms a trial) no longer fits what is
    left (300 ms), but two of the other table's rows (50 ms) do: they take
    their second and third trials, and the run does not end there."""
    clock = Clock()
    schedule = Schedule(cells(profile="full", budget=3.6), [], clock=clock)
    lengths = {(10, "honest"): 400, (10, "paced"): 400, (10, "sleeper"): 400}
    lengths |= {(100, "honest"): 50, (100, "paced"): 50, (100, "sleeper"): 2000}
    taken = []
    while (step := schedule.next()) is not None:
        cell, index = step
        length = lengths[cell.params["n"], cell.mechanism]
        clock.now += length * MS
        schedule.record(record(cell, index, [length / 2] * 2, length), length * MS)
        taken.append((cell.params["n"], cell.mechanism, index))
    assert sorted(taken[6:]) == [(100, "honest", 1), (100, "honest", 2), (100, "paced", 1), (100, "paced", 2)]
