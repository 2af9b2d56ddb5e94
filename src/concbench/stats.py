"""Summaries of repeated measurements."""

import math
import statistics
from dataclasses import dataclass

CONFIDENCE = 0.95


@dataclass(frozen=True)
class Summary:
    n: int
    median: float
    mean: float
    stdev: float
    min: float
    max: float
    # The 95% confidence interval of the median; None below 6 values, where
    # even [min, max] covers the median with less than 95% confidence.
    ci: tuple[float, float] | None = None

    @property
    def cv(self) -> float:
        """Coefficient of variation: the spread relative to the mean (0 for one value)."""
        return self.stdev / self.mean if self.mean else 0.0

    @property
    def bounds(self) -> tuple[float, float]:
        """Where the median lies as far as these values tell: the confidence
        interval, or the whole range when there are too few for one."""
        return self.ci or (self.min, self.max)

    @property
    def spread(self) -> float:
        """How far the median may lie from this one, as a fraction of it: the
        wider side of bounds (0 for a median of 0)."""
        if not self.median:
            return 0.0
        low, high = self.bounds
        return max(self.median - low, high - self.median) / abs(self.median)


def summarize(values) -> Summary | None:
    values = sorted(values)
    if not values:
        return None
    return Summary(
        n=len(values),
        median=statistics.median(values),
        mean=statistics.fmean(values),
        stdev=statistics.stdev(values) if len(values) > 1 else 0.0,
        min=values[0],
        max=values[-1],
        ci=median_interval(values),
    )


def median_interval(ordered: list[float], confidence: float = CONFIDENCE) -> tuple[float, float] | None:
    """The distribution-free confidence interval of the median from order
    statistics: the narrowest [x(k), x(n+1-k)] that holds the true median with
    at least this confidence. The k-th smallest of n values lies below the
    median with the probability that a fair coin shows k or more heads in n
    throws, so no assumption about the shape of the noise is needed (timings
    are skewed: a slow outlier is common, a fast one is not)."""
    n = len(ordered)
    best = None
    for k in range(1, n // 2 + 1):
        miss = 2 * sum(math.comb(n, i) for i in range(k)) / 2**n  # P(median outside)
        if 1 - miss < confidence:
            break
        best = (ordered[k - 1], ordered[n - k])
    return best


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


def benjamini_hochberg(ps: list[float]) -> list[float]:
    """The family's p-values adjusted for the false discovery rate (q-values),
    in the order given: calling every test with q < alpha keeps the expected
    share of false calls among the calls at alpha, and the chance of any call
    at all, when nothing changed, at alpha too."""
    m = len(ps)
    adjusted = [1.0] * m
    smallest = 1.0
    for rank, index in reversed(list(enumerate(sorted(range(m), key=ps.__getitem__), start=1))):
        smallest = min(smallest, ps[index] * m / rank)
        adjusted[index] = smallest
    return adjusted
