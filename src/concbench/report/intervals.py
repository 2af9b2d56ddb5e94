"""How far a run's figures are settled, in one line: how many rows have a
95% interval (of their ratio to the baseline, or the baseline's median:
Table.interval), how many of those lie within ±5% and how many do not. A
served row is left out: its time is the load's length, whatever it served,
and its latency has no interval."""

from dataclasses import dataclass

from ..formatting import percent
from .aggregate import Table

WITHIN = 0.05  # what `make bench` reports against (the README states its share)


@dataclass(frozen=True)
class Census:
    rows: int
    with_interval: int  # rows whose interval exists
    by_t: int  # of those, Student's t's (from 3 to 5 values: a ratio's pairs, a baseline's runs)
    within: int  # of those, within ±WITHIN of their median
    unverified: int  # rows without a verified trial
    served: int  # rows of served workloads, not counted above

    def text(self) -> str:
        wider = self.with_interval - self.within
        without = self.rows - self.with_interval - self.unverified
        return (
            f"rows: {self.rows:,}; with a 95% interval {self.with_interval:,} ({self.share:.1%}; "
            f"{self.by_t:,} of them by Student's t, from 3 to 5 values): within ±{percent(WITHIN)} "
            f"{self.within:,}, wider {wider:,}; too few trials for one {without:,}; no verified trial {self.unverified:,}"
            + (f"; served rows, judged by their latency, not counted: {self.served:,}" if self.served else "")
        )

    @property
    def share(self) -> float:
        return self.with_interval / self.rows if self.rows else 0.0


def census(tables: list[Table]) -> Census:
    shown = [table.interval(cell) for table in tables if not table.served for cell in table.rows]
    intervals = [s for s in shown if s is not None and s.ci]
    return Census(
        rows=len(shown),
        with_interval=len(intervals),
        by_t=sum(1 for s in intervals if s.by_t),
        within=sum(1 for s in intervals if s.spread <= WITHIN),
        unverified=sum(1 for s in shown if s is None),
        served=sum(len(table.rows) for table in tables if table.served),
    )
