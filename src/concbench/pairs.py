"""Ratios from neighbours: each trial of a row set against the trial of its
reference (its table's baseline, or the A side of an A/B) that ran nearest
to it in time.

The virtual CPU of these machines slows down 2-4x in spells of a tenth of a
second to several seconds, and drifts between runs minutes apart. A ratio of
two medians taken minutes apart carries all of that; a ratio of two trials
taken back to back carries only what differed between them. So every ratio,
and its interval, is the median of the pairs' ratios and the 95% interval of
that median (stats.summarize: distribution-free from 6 pairs, Student's t on
the logarithms from 3 to 5), never a ratio of medians."""

import bisect
import math
import statistics
from collections.abc import Sequence

from .records import TrialRecord
from .stats import Summary, summarize
from .status import Status


def trial_figure(trial: TrialRecord, rate: bool) -> float | None:
    """A verified trial's own figure: the median of its timed runs' real
    seconds, or of their operations per second; None if it has none."""
    if trial.status != Status.OK:
        return None
    if rate:
        values = [s.ops / s.wall_ns * 1e9 for s in trial.timed if s.ops and s.wall_ns]
    else:
        values = [s.wall_ns / 1e9 for s in trial.timed]
    return statistics.median(values) if values else None


def ratios(rows: Sequence[TrialRecord], references: Sequence[TrialRecord], rate: bool) -> list[float]:
    """Each verified trial of a row over the verified reference trial that ran
    nearest to it (the earlier of two as near), in the order the row's trials ran."""
    place = _place(list(rows) + list(references))
    found = sorted(((place(t), f) for t in references if (f := trial_figure(t, rate))), key=lambda pf: pf[0])
    places = [p for p, _ in found]
    pairs = []
    for trial in rows:
        mine = trial_figure(trial, rate)
        if mine is None or not found:
            continue
        at = place(trial)
        after = bisect.bisect_left(places, at)
        nearest = min((i for i in (after - 1, after) if 0 <= i < len(found)), key=lambda i: abs(places[i] - at))
        pairs.append(mine / found[nearest][1])
    return pairs


def _place(trials: list[TrialRecord]):
    """Where a trial ran in its run: its place in the run's order where every
    trial has one, else its index in its cell."""
    if all(t.seq is not None for t in trials):
        return lambda t: t.seq
    return lambda t: t.trial


def summary(rows: Sequence[TrialRecord], references: Sequence[TrialRecord], rate: bool) -> Summary | None:
    """The paired ratios' median and its 95% interval (stats.summarize: from
    3 pairs; the range below)."""
    return summarize(ratios(rows, references, rate))


def signed_rank_p(paired: list[float]) -> float | None:
    """Two-sided Wilcoxon signed-rank test of the pairs' log ratios against 0:
    how likely ratios this far from 1 are if both sides are one distribution.
    None below 6 pairs, where no outcome reaches p < 0.05."""
    if len(paired) < 6:
        return None
    from scipy.stats import wilcoxon  # imported on use: it takes a while to load

    logs = [math.log(r) for r in paired]
    if not any(logs):
        return 1.0
    return float(wilcoxon(logs, alternative="two-sided").pvalue)
