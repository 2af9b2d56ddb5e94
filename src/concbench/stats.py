"""Summaries of repeated measurements."""

import math
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


def smallest_p(n: int, m: int) -> float:
    """The smallest two-sided p-value a Mann-Whitney U test of n against m
    values can give: with 3 runs a side it is 0.1, so no change can be shown."""
    return min(1.0, 2 / math.comb(n + m, n))


def mann_whitney_p(a: list[float], b: list[float]) -> float:
    """Two-sided Mann-Whitney U: how likely samples this far apart are if both
    come from one distribution. Rank-based, so it needs no normal noise."""
    from scipy.stats import mannwhitneyu  # imported on use: it takes a while to load

    p = float(mannwhitneyu(a, b, alternative="two-sided").pvalue)
    return 1.0 if math.isnan(p) else p  # nan: every value equal on both sides
