import math
import random

import pytest

from concbench.stats import (
    benjamini_hochberg,
    log_t_interval,
    mann_whitney_p,
    median_interval,
    smallest_p,
    summarize,
)


def test_summary():
    s = summarize([3.0, 1.0, 2.0, 10.0])
    assert (s.n, s.median, s.mean, s.min, s.max) == (4, 2.5, 4.0, 1.0, 10.0)
    assert s.cv == pytest.approx(s.stdev / 4.0)


def test_one_value_has_no_spread_and_none_has_no_summary():
    assert summarize([5.0]).cv == 0.0
    assert summarize([]) is None


def test_too_few_runs_cannot_show_a_change():
    assert smallest_p(3, 3) == pytest.approx(0.1)
    assert smallest_p(6, 6) < 0.01


def test_mann_whitney_tells_apart_what_differs_and_not_what_overlaps():
    assert mann_whitney_p([1, 2, 3, 4, 5, 6], [11, 12, 13, 14, 15, 16]) < 0.01
    assert mann_whitney_p([1, 3, 5, 7, 9, 11], [2, 4, 6, 8, 10, 12]) > 0.5
    assert mann_whitney_p([5.0] * 6, [5.0] * 6) == 1.0


def test_the_median_interval_comes_from_order_statistics():
    # The textbook table: 6-8 values give [min, max] (96.9-99.2%), 9 give the 2nd and 8th.
    assert median_interval([1, 2, 3, 4, 5, 6]) == (1, 6)
    assert median_interval(list(range(1, 10))) == (2, 8)
    assert median_interval(list(range(1, 21))) == (6, 15)
    assert median_interval([1, 2, 3, 4, 5]) is None  # even [min, max] covers only 93.8%


def test_below_six_values_students_t_on_the_logarithms_gives_the_interval():
    # logs 0, 1, 2: mean 1, stdev 1, and t(0.975, 2 degrees of freedom) = 4.3027
    low, high = log_t_interval([1.0, math.e, math.e**2])
    half = 4.3027 / math.sqrt(3)
    assert (math.log(low), math.log(high)) == pytest.approx((1 - half, 1 + half), rel=1e-4)
    assert summarize([1.0, math.e, math.e**2]).by_t
    assert not summarize(list(range(1, 7))).by_t  # 6 values: order statistics
    assert log_t_interval([1.0, 2.0]) is None  # too few for any interval
    assert summarize([0.0, 1.0, 2.0]).ci is None  # a logarithm needs values above 0


@pytest.mark.parametrize("n", [3, 4, 5])
def test_the_t_interval_covers_the_median_of_log_normal_noise_95_times_in_100(n):
    """Its one assumption met, the interval holds the true median (1) as
    often as it says: 4,000 draws, seeded, within 1.5 points of 95%."""
    draws = random.Random(n)
    held = 0
    for _ in range(4000):
        low, high = log_t_interval([math.exp(draws.gauss(0, 0.2)) for _ in range(n)])
        held += low <= 1 <= high
    assert abs(held / 4000 - 0.95) < 0.015


def test_a_summary_bounds_its_median_by_the_interval_or_else_the_range():
    assert summarize([5.0, 1.0]).bounds == (1.0, 5.0)
    assert summarize([5.0, 1.0, 3.0]).bounds == log_t_interval([1.0, 3.0, 5.0])
    many = summarize([10.0] + [2.0] * 8)  # one slow outlier stays outside the interval
    assert many.ci == (2.0, 2.0) and many.max == 10.0


def test_benjamini_hochberg_adjusts_in_the_order_given():
    # The textbook example: m = 5, sorted p 0.01 0.02 0.03 0.04 0.05 all become 0.05.
    assert benjamini_hochberg([0.05, 0.01, 0.03, 0.02, 0.04]) == pytest.approx([0.05] * 5)
    assert benjamini_hochberg([0.001, 0.5, 0.04]) == pytest.approx([0.003, 0.5, 0.06])
    assert benjamini_hochberg([]) == []
