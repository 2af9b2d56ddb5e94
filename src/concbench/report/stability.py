"""How stable this machine's figures are: a run of `concbench run
--repeat-check` repeats the run before it, and the differences between
their cells' medians, and between their rows' ratios to their baselines,
where nothing changed, are the noise any comparison on this machine must
see through."""

import math
import statistics
from collections import Counter
from dataclasses import dataclass

from ..records import TrialRecord
from ..workloads import Workload
from .aggregate import tables
from .comparison import CORRECTION, Change, Verdict, changes

WORST = 10  # cells named
THRESHOLD = 0.05  # compare's default


@dataclass(frozen=True)
class Stability:
    first: int  # the run repeated
    second: int
    differences: tuple[tuple[str, float], ...]  # (cell, |relative difference of its medians|), largest first
    verdicts: Counter  # what compare calls the cells at its default threshold
    ratio_moves: tuple[float, ...] = ()  # |relative difference| of each row's ratio to its baseline

    @property
    def median(self) -> float:
        return statistics.median(d for _, d in self.differences)

    @property
    def p90(self) -> float:
        """The difference 90% of the cells stay within (nearest rank)."""
        return _p90([d for _, d in self.differences])

    @property
    def largest(self) -> float:
        return self.differences[0][1]

    @property
    def worst(self) -> tuple[tuple[str, float], ...]:
        return self.differences[:WORST]

    def summary(self) -> str:
        called = self.verdicts[Verdict.SLOWER] + self.verdicts[Verdict.FASTER]
        return (
            f"run {self.second} repeats run {self.first}: the medians of its {len(self.differences)} cells "
            f"differ by {self.median:.1%} (median), {self.p90:.1%} (p90), {self.largest:.1%} (most); "
            f"compare calls {called} changed at a {THRESHOLD:.0%} threshold ({CORRECTION}), "
            f"{self.verdicts[Verdict.NOISY]} too noisy to tell" + self._ratios()
        )

    def _ratios(self) -> str:
        moves = self.ratio_moves
        if not moves:
            return ""
        return (
            f"; the ratios of its {len(moves)} rows to their baselines moved by {statistics.median(moves):.1%} "
            f"(median), {_p90(list(moves)):.1%} (p90), {max(moves):.1%} (most)"
        )


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[math.ceil(0.9 * len(ordered)) - 1]


def check(
    first: int, second: int, before: list[TrialRecord], after: list[TrialRecord], specs: dict[str, Workload]
) -> Stability | None:
    """The stability of two runs of one selection; None if no cell has a median in both."""
    found = changes(before, after, specs, THRESHOLD)
    differences = sorted(
        ((_label(c), abs(c.slowdown)) for c in found if c.slowdown is not None), key=lambda pair: -pair[1]
    )
    if not differences:
        return None
    return Stability(
        first, second, tuple(differences), Counter(c.verdict for c in found), _ratio_moves(before, after, specs)
    )


def _ratio_moves(before: list[TrialRecord], after: list[TrialRecord], specs: dict[str, Workload]) -> tuple:
    """How far each row's ratio to its baseline moved, for the rows other than
    the baseline that have a ratio in both runs."""
    ratios = [_ratios(trials, specs) for trials in (before, after)]
    return tuple(abs(ratios[1][row] / ratios[0][row] - 1) for row in ratios[0].keys() & ratios[1].keys())


def _ratios(trials: list[TrialRecord], specs: dict[str, Workload]) -> dict[tuple, float]:
    return {
        (table.workload, table.params_text, cell.key.row): table.ratio(cell)
        for table in tables(trials, [], specs)
        for cell in table.rows
        if cell is not table.baseline and table.ratio(cell)
    }


def _label(change: Change) -> str:
    return " ".join(part for part in (change.table.workload, change.row, change.table.params_text) if part)
