"""Summaries of repeated measurements."""

import statistics
from dataclasses import dataclass


@dataclass(frozen=True)
class Summary:
    n: int
    median: float
    mean: float
    stdev: float
    min: float
    max: float

    @property
    def cv(self) -> float:
        """Coefficient of variation: the spread relative to the mean (0 for one value)."""
        return self.stdev / self.mean if self.mean else 0.0


def summarize(values) -> Summary | None:
    values = list(values)
    if not values:
        return None
    return Summary(
        n=len(values),
        median=statistics.median(values),
        mean=statistics.fmean(values),
        stdev=statistics.stdev(values) if len(values) > 1 else 0.0,
        min=min(values),
        max=max(values),
    )
