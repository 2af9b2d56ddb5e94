"""Summaries of repeated measurements."""

import math
import statistics
from dataclasses import dataclass

CONFIDENCE = 0.95
# From this many values an order statistic covers the median with 95%
# confidence; from T_LEAST to one fewer, Student's t on the logarithms gives
# the interval (log_t_interval), below T_LEAST nothing does.
ORDER_LEAST = 6
T_LEAST = 3
# Student's t, two-sided at CONFIDENCE, by degrees of freedom (n - 1): the few a
# log_t_interval needs, rather than scipy, which takes a while to import.
T95 = {2: 4.302653, 3: 3.182446, 4: 2.776445}


@dataclass(frozen=True)
class Summary:
    n: int
    median: float
    mean: float
    stdev: float
    min: float
    max: float
    # The 95% confidence interval of the median: from order statistics with 6
    # values or more; from 3 to 5, Student's t on the logarithms (by_t); None
    # below 3, or with a value of 0 or less among 3 to 5.
    ci: tuple[float, float] | None = None

    @property
    def by_t(self) -> bool:
        """Whether the interval assumes log-normal noise: it is log_t_interval's."""
        return self.ci is not None and self.n < ORDER_LEAST

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
        ci=median_interval(values) or log_t_interval(values),
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


def log_t_interval(values: list[float]) -> tuple[float, float] | None:
    """Student's t interval of the mean of the logarithms of 3 to 5 values,
    taken back to their scale: where no order statistic covers the median
    with 95% confidence, an interval that assumes the noise is log-normal
    (timings are skewed, their logarithms far less). Its centre, the
    geometric mean, is where the median of log-normal values lies; an
    outlier widens it, as its whole stdev does. None outside 3 to 5 values,
    or with one of 0 or less."""
    n = len(values)
    if not T_LEAST <= n < ORDER_LEAST or min(values) <= 0:
        return None
    logs = [math.log(v) for v in values]
    centre = statistics.fmean(logs)
    half = T95[n - 1] * statistics.stdev(logs) / math.sqrt(n)
    return math.exp(centre - half), math.exp(centre + half)


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
