"""compare's calls across many cells: a comparison of two runs of unchanged
code calls a regression in at most ALPHA of comparisons, not in ALPHA of the
cells; a cell too noisy to show a change of the threshold says so."""

import random

from concbench.records import CellKey, Sample, TrialRecord
from concbench.report.comparison import ALPHA, Verdict, changes
from concbench.status import Status

CELLS, COMPARISONS, TRIALS, RUNS = 100, 100, 5, 2  # 10 timed runs a side, as --trials 5 gives


def run(rng: random.Random, spread: float, slower: float = 0.0) -> list[TrialRecord]:
    """A run of CELLS cells of one code: each timed run 1 ms, lognormal noise of this spread."""
    made = []
    for cell in range(CELLS):
        key = CellKey(f"w{cell}", "fake", "paced", (("n", 1),))
        for trial in range(TRIALS):
            samples = tuple(
                Sample(False, round(1e6 * (1 + slower) * rng.lognormvariate(0, spread)), 1, 1, 1, {})
                for _ in range(RUNS)
            )
            made.append(TrialRecord(key, trial, Status.OK, "", {}, samples=samples))
    return made


def test_unchanged_code_is_called_changed_in_at_most_alpha_of_comparisons():
    rng = random.Random(12)
    called = uncorrected = 0
    for _ in range(COMPARISONS):
        found = changes(run(rng, 0.1), run(rng, 0.1), {}, threshold=0.05)
        called += any(c.verdict in (Verdict.SLOWER, Verdict.FASTER) for c in found)
        uncorrected += any(c.p < ALPHA and abs(c.slowdown) >= 0.05 for c in found)
    assert called <= ALPHA * COMPARISONS
    assert uncorrected > COMPARISONS / 2  # what one test per cell would have done


def test_a_real_regression_is_still_called_among_many_cells():
    rng = random.Random(3)
    before, after = run(rng, 0.02), run(rng, 0.02)
    slowed = run(rng, 0.02, slower=0.3)[:TRIALS]  # the first cell's trials, 30% slower
    found = changes(before, slowed + after[TRIALS:], {}, threshold=0.05)
    assert found[0].verdict == Verdict.SLOWER and found[0].q < ALPHA


def test_a_cell_whose_noise_could_hide_the_threshold_says_so():
    rng = random.Random(5)
    found = changes(run(rng, 0.5), run(rng, 0.5), {}, threshold=0.05)
    noisy = [c for c in found if c.verdict == Verdict.NOISY]
    assert noisy and all(c.noise > 0.05 for c in noisy)
    assert not [c for c in found if c.verdict == Verdict.SAME and c.q >= ALPHA]  # none passes as "no change"
