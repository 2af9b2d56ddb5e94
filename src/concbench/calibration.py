"""Calibrated runs: a fixed workload whose run is shorter than a minimum
repeats its work, so that each timed sample lasts long enough for the
machine's noise (a timer tick, a preemption, a collection) to average out,
as pyperf calibrates its loops. A cell's first trial runs its work once a
run and tells how long a run takes (it counts as any trial: its figures
are per repetition too), so calibrating costs no trial of its own.

A kit needs nothing for it: the harness asks a calibrated trial for `runs`
x `repeat` timed runs, and `repeat` warm-up runs for each warm-up, so that a
warm-up lasts as long as a timed sample, and makes each `repeat` of them, in
order, one sample whose figures are their mean. Each repetition keeps its
own untimed steps (C's prepare and finish, the work a Ruby mechanism hands over, a Haskell
action prepared beforehand), which one clock reading around them all could
only leave out by preparing every repetition at once; and each is verified
on its own, as every run always was. docs/protocol.md, "Calibrated runs"."""

import dataclasses
import math

from . import records
from .plan import Cell
from .selection import BOUNDS, Settings
from .status import Status

# A trial's answer holds at most this many runs (selection.BOUNDS: what 1 MiB of
# stdout holds), which caps the repetitions of a sample.
MOST_RUNS = BOUNDS["runs"][1]


def calibrated(cell: Cell, settings: Settings) -> bool:
    """Whether the cell's runs may need repeating: fixed work, whose runs are
    not known from the spec to last the minimum (units that sleep that long),
    and whose peak memory need not be one run's own (spawn)."""
    workload = cell.workload
    return (
        settings.min_run_ns > 0
        and workload.kind == "fixed"
        and not workload.one_run_per_process
        and workload.delay_ns(cell.params) < settings.min_run_ns
    )


def from_trial(trial: records.TrialRecord, settings: Settings) -> records.Calibration | None:
    """The repetitions a verified trial of single runs says its cell needs: as
    many as make its median run last the minimum; None if it did not verify."""
    runs = sorted(s.wall_ns for s in trial.timed)
    if trial.status != Status.OK or not runs:
        return None
    run_ns = runs[(len(runs) - 1) // 2]
    return records.Calibration(repeat_for(run_ns, settings), run_ns, trial.wall_ns)


def repeat_for(run_ns: int, settings: Settings) -> int:
    """The repetitions that make a run of run_ns last the minimum."""
    most = max(1, MOST_RUNS // settings.runs)
    return max(1, min(most, math.ceil(settings.min_run_ns / max(run_ns, 1))))


def reused(known: records.Calibration | None, settings: Settings) -> records.Calibration | None:
    """An earlier run's calibration of a cell, its run length kept and its
    repetitions those this run's settings make of it."""
    if known is None:
        return None
    return dataclasses.replace(known, repeat=repeat_for(known.run_ns, settings))


def samples(runs: list, repeat: int) -> tuple[records.Sample, ...]:
    """A trial's runs as stored samples: the warm-ups, then the timed runs,
    each `repeat` of them one sample; an answer of another shape (which the
    verdict refuses) as it came, run by run."""
    warmups = next((i for i, run in enumerate(runs) if not run.warmup), len(runs))
    timed = runs[warmups:]
    if any(run.warmup for run in timed) or warmups % repeat or len(timed) % repeat:
        repeat = 1
    return tuple(_mean(runs[i : i + repeat]) for i in range(0, len(runs), repeat))


def _mean(repetitions: list) -> records.Sample:
    """One sample of verified repetitions: their mean times and evidence (null
    where any could not observe it), the most units and units alive at once."""
    count = len(repetitions)
    first = repetitions[0]

    def mean(values) -> int:
        return round(sum(values) / count)

    evidence = {
        name: None
        if any(r.evidence[name] is None for r in repetitions)
        else mean(r.evidence[name] for r in repetitions)
        for name in first.evidence
    }
    return records.Sample(
        warmup=first.warmup,
        wall_ns=mean(r.wall_ns for r in repetitions),
        user_ns=mean(r.user_ns for r in repetitions),
        sys_ns=mean(r.sys_ns for r in repetitions),
        units=max(r.units for r in repetitions),
        result=first.result,
        ops=first.ops,
        peak_live=max(r.peak_live for r in repetitions),
        evidence=evidence,
        repeat=count,
    )
