"""Ratios from neighbours (pairs.py) and the A/B verdicts built on them
(report/ab.py), proven on simulated machines: noise of a known size between
processes, slow spells of 2-4x lasting several trials as this project's
machines have them, drift, and a known slowdown. Seeded, so every figure
here is exact."""

import math
import random

import pytest

from concbench import pairs
from concbench.records import CellKey, Sample, TrialRecord
from concbench.report import ab
from concbench.report.aggregate import tables
from concbench.report.comparison import Verdict
from concbench.status import Status

MS = 1_000_000


def trial(runtime: str, index: int, seconds: float, seq: int | None = None, mechanism="m", status=Status.OK):
    key = CellKey("w", runtime, mechanism, (("n", 1),))
    return TrialRecord(key, index, status, "", {}, samples=(Sample(False, round(seconds * 1e9), 0, 0, 1, {}),), seq=seq)


def test_each_trial_is_set_against_the_reference_trial_that_ran_nearest():
    references = [trial("a", 0, 1.0, seq=0), trial("a", 1, 2.0, seq=3), trial("a", 2, 4.0, seq=6)]
    rows = [trial("b", 0, 1.5, seq=1), trial("b", 1, 3.0, seq=2), trial("b", 2, 8.0, seq=5)]
    assert pairs.ratios(rows, references, rate=False) == [1.5, 1.5, 2.0]  # seq 2: 0 and 3 equally near, the earlier


def test_without_their_order_trials_pair_by_their_index_and_failures_pair_with_nothing():
    references = [trial("a", 0, 1.0), trial("a", 1, 2.0, status=Status.INVALID), trial("a", 2, 4.0)]
    rows = [trial("b", 0, 2.0), trial("b", 1, 4.0), trial("b", 2, 8.0, status=Status.TIMEOUT)]
    assert pairs.ratios(rows, references, rate=False) == [2.0, 4.0]  # trial 1's neighbour failed: trial 0's


def test_a_table_ratio_holds_where_the_machine_drifts_and_its_medians_do_not():
    """The machine slows by 3% a trial, steadily: each median spreads over the
    whole drift, but every pair of neighbours is 2.0 apart."""
    found = []
    for i in range(8):
        slower = 1.03 ** (2 * i)
        found += [trial("base", i, 0.010 * slower, seq=2 * i), trial("row", i, 0.020 * slower * 1.03, seq=2 * i + 1)]
    table = tables(found, [], {})[0]
    row = next(r for r in table.rows if r.key.runtime == "row")
    paired = table.ratio_summary(row)
    assert paired.n == 8 and paired.ci is not None
    assert table.ratio(row) == pytest.approx(2.06)
    assert paired.spread < 1e-6  # every pair alike (but for rounding to ns)
    assert row.real.spread > 0.2  # the row's own median: anywhere in the drift
    assert table.ratio(table.baseline) == 1.0 and table.ratio_summary(table.baseline) is None


def machine(rng: random.Random, trials: int, spells: float = 0.05, spell_trials: float = 5) -> list[float]:
    """How much slower the machine is at each trial: 1, or 2-4 in a spell that
    starts at a trial with probability `spells` and lasts spell_trials on average."""
    slowness, left, factor = [], 0, 1.0
    for _ in range(trials):
        if not left and rng.random() < spells:
            left, factor = max(1, round(rng.expovariate(1 / spell_trials))), rng.uniform(2, 4)
        slowness.append(factor if left else 1.0)
        left = max(0, left - 1)
    return slowness


def simulated_ab(
    seed: int, cells: int, pairs_each: int, noise: float, slowed=(), slowdown=0.0
) -> list[ab.PairedChange]:
    """An A/B run as concbench ab makes one: each cell's pairs back to back,
    A first in one round and B first in the next; every trial's time its
    cell's, times the machine's slowness, times noise between processes
    (lognormal, sigma `noise`), times 1 + slowdown for B of the slowed cells."""
    rng = random.Random(seed)
    slowness = machine(rng, cells * pairs_each * 2)
    found, seq = [], 0
    for index in range(pairs_each):
        for cell in range(cells):
            for side in ("a", "b") if index % 2 == 0 else ("b", "a"):
                slower = 1 + slowdown if side == "b" and cell in slowed else 1
                seconds = 0.05 * (1 + cell / 10) * slowness[seq] * math.exp(rng.gauss(0, noise)) * slower
                found.append(trial(f"fake@{side}", index, seconds, seq, mechanism=f"m{cell}"))
                seq += 1
    return ab.changes(found, {}, ab.Sides((), ()), threshold=0.02)


def called(changes: list[ab.PairedChange]) -> set[str]:
    return {c.row for c in changes if c.verdict in (Verdict.SLOWER, Verdict.FASTER)}


def test_ab_of_a_version_against_itself_calls_a_change_in_at_most_one_try_in_twenty():
    """10 cells, 40 pairs each, 5% noise between processes and slow spells of
    2-4x: of 100 tries, at most 5 call any cell changed (the adjustment's 5%)."""
    tries = [called(simulated_ab(seed, cells=10, pairs_each=40, noise=0.05)) for seed in range(100)]
    assert sum(bool(c) for c in tries) <= 5


def test_ab_calls_a_5_percent_slowdown_of_one_cell_in_nine_tries_of_ten():
    """One cell of 10 made 5% slower, with 5% noise between processes, slow
    spells and 60 pairs a cell: called slower in at least 36 of 40 tries;
    another cell called in at most 2 of them."""
    tries = [simulated_ab(100 + seed, 10, 60, 0.05, slowed={0}, slowdown=0.05) for seed in range(40)]
    assert sum(any(c.row == "fake/m0" and c.verdict == Verdict.SLOWER for c in found) for found in tries) >= 36
    assert sum(bool(called(found) - {"fake/m0"}) for found in tries) <= 2


def test_a_paired_verdict_needs_six_pairs_and_names_them():
    change = simulated_ab(1, cells=1, pairs_each=5, noise=0.05)[0]
    assert change.verdict == Verdict.UNTESTABLE
    assert change.too_few == "5 pairs of trials cannot give p < 0.05 (6 can)"
