import pytest

from concbench.stats import summarize


def test_summary():
    s = summarize([3.0, 1.0, 2.0, 10.0])
    assert (s.n, s.median, s.mean, s.min, s.max) == (4, 2.5, 4.0, 1.0, 10.0)
    assert s.cv == pytest.approx(s.stdev / 4.0)


def test_one_value_has_no_spread_and_none_has_no_summary():
    assert summarize([5.0]).cv == 0.0
    assert summarize([]) is None
