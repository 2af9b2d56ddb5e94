"""Two stored runs side by side, cell by cell, as the Celluloid seed's
Before/After tables, with the judgement the seed could not make: a change is
called only when a two-sided Mann-Whitney U test on the timed runs says it is
larger than the noise, and it is at least a practical threshold."""

from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property

from ..records import TrialRecord
from ..stats import mann_whitney_p, smallest_p
from ..workloads import Workload
from .aggregate import CellResult, Table, tables

ALPHA = 0.05


class Verdict(StrEnum):
    FASTER = "faster"
    SLOWER = "slower"
    SAME = "no change"  # tested: within the noise or below the threshold
    UNTESTABLE = "too few runs"  # no p-value of these sample sizes can reach ALPHA
    MISSING = "missing"  # no verified run on one side


@dataclass(frozen=True)
class Change:
    """One cell in both runs (or in one of them)."""

    table: Table  # where the cell is shown: its title and figure
    row: str
    before: CellResult | None
    after: CellResult | None
    threshold: float  # the smallest change worth calling, as a fraction

    @property
    def medians(self) -> tuple[float | None, float | None]:
        return tuple(
            self.table.figure(c).median if c and self.table.figure(c) else None for c in (self.before, self.after)
        )

    @property
    def slowdown(self) -> float | None:
        """How much longer the work takes after than before (-0.2: 20% less time);
        for a rate workload, the time per operation."""
        before, after = self.medians
        if before is None or after is None:
            return None
        return before / after - 1 if self.table.rate_format else after / before - 1

    @cached_property
    def p(self) -> float | None:
        """None where the samples are too few for any result to reach ALPHA."""
        if self.slowdown is None:
            return None
        a, b = (self.table.values(c) for c in (self.before, self.after))
        return mann_whitney_p(a, b) if smallest_p(len(a), len(b)) < ALPHA else None

    @property
    def sizes(self) -> tuple[int, int]:
        return tuple(len(self.table.values(c)) if c else 0 for c in (self.before, self.after))

    @property
    def verdict(self) -> Verdict:
        if self.slowdown is None:
            return Verdict.MISSING
        if self.p is None:
            return Verdict.UNTESTABLE
        if self.p >= ALPHA or abs(self.slowdown) < self.threshold:
            return Verdict.SAME
        return Verdict.SLOWER if self.slowdown > 0 else Verdict.FASTER


def changes(
    before: list[TrialRecord], after: list[TrialRecord], specs: dict[str, Workload], threshold: float
) -> list[Change]:
    """Every cell of either run, in the after run's order, then those only before."""
    cells = {}
    for side, trials in (("after", after), ("before", before)):
        for table in tables(trials, [], specs):
            for cell in table.rows:
                cells.setdefault(cell.key, {"table": table})[side] = cell
    return [Change(c["table"], key.row, c.get("before"), c.get("after"), threshold) for key, c in cells.items()]
