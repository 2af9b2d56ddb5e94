"""An A/B run's verdicts: per cell, B's trials against the A trials that ran
beside them (pairs.py), with a verdict as `compare` gives one. The test is a
paired one, Wilcoxon's signed-rank test on the pairs' log ratios: the
machine's slow spells and drift, which hit both trials of a pair, drop out of
it, where compare's unpaired test of two runs minutes apart must see through
them. The cells' p-values are adjusted together (Benjamini-Hochberg)."""

from dataclasses import dataclass
from functools import cached_property

from .. import pairs
from ..records import CellKey, TrialRecord
from ..stats import Summary, summarize
from ..workloads import Workload
from .aggregate import tables
from .comparison import ALPHA, Change, adjusted


@dataclass(frozen=True)
class PairedChange(Change):
    """One cell of both versions: before is A, after is B."""

    noise_of = "ratio"

    @cached_property
    def ratios(self) -> list[float]:
        """B over A, trial by trial, each B trial against its A neighbour."""
        return pairs.ratios(self.after.trials, self.before.trials, bool(self.table.rate_format))

    @cached_property
    def paired(self) -> Summary | None:
        return summarize(self.ratios)

    @property
    def ratio(self) -> float | None:
        return self.paired.median if self.paired else None

    @property
    def slowdown(self) -> float | None:
        """How much longer B takes than A: the paired ratio (of rates: its inverse) less 1."""
        ratio = self.ratio
        if ratio is None:
            return None
        return 1 / ratio - 1 if self.table.rate_format else ratio - 1

    @cached_property
    def p(self) -> float | None:
        return pairs.signed_rank_p(self.ratios) if self.paired else None

    @property
    def noise(self) -> float | None:
        return self.paired.spread if self.paired else None

    @property
    def too_few(self) -> str:
        return f"{len(self.ratios)} pairs of trials cannot give p < {ALPHA} (6 can)"


@dataclass(frozen=True)
class Sides:
    """How a cell of an A/B run tells its side: by the letter its runtime
    carries (c@a), or, where the sides differ in options only, by those."""

    a_options: tuple[str, ...]
    b_options: tuple[str, ...]

    @classmethod
    def of(cls, request: dict) -> "Sides":
        ab = request["ab"]
        return cls(_options(ab.get("a_options", "")), _options(ab.get("b_options", "")))

    def side(self, key: CellKey) -> str | None:
        runtime, _, letter = key.runtime.rpartition("@")
        if runtime and letter in ("a", "b"):
            return letter
        return {self.a_options: "a", self.b_options: "b"}.get(key.options)

    def work(self, key: CellKey) -> tuple:
        """What both sides of a pair have in common."""
        return key.workload, key.params_text, key.runtime.rpartition("@")[0] or key.runtime, key.mechanism


def _options(text: str) -> tuple[str, ...]:
    return tuple(o for o in text.split(",") if o)


def changes(
    trials: list[TrialRecord], specs: dict[str, Workload], sides: Sides, threshold: float
) -> list[PairedChange]:
    """Every cell both versions ran, in the run's order, each with its verdict."""
    found = []
    for table in tables(trials, [], specs):
        by_side: dict[tuple, dict[str, object]] = {}
        for cell in table.rows:
            by_side.setdefault(sides.work(cell.key), {})[sides.side(cell.key)] = cell
        for work, cells in by_side.items():
            if "a" in cells and "b" in cells:
                row = f"{work[2]}/{work[3]}"
                found.append(PairedChange(table, row, cells["a"], cells["b"], threshold))
    return adjusted(found)
