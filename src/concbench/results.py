"""A cell's stored trials and the figures of its verified ones: what the
schedule weighs while a run goes on, and every report shows after."""

from collections import Counter
from dataclasses import dataclass
from functools import cached_property

from . import warmup
from .records import CellKey, Sample, TrialRecord
from .stats import Summary, summarize
from .status import Status


@dataclass(frozen=True)
class CellResult:
    key: CellKey
    trials: tuple[TrialRecord, ...]

    @cached_property
    def verified(self) -> tuple[TrialRecord, ...]:
        return tuple(t for t in self.trials if t.status == Status.OK)

    def _timed(self, figure) -> Summary | None:
        return summarize(self._seconds(figure))

    def _seconds(self, figure) -> list[float]:
        """A figure of every timed run of verified trials, in seconds; failures never count."""
        return [figure(s) / 1e9 for t in self.verified for s in t.timed]

    @cached_property
    def reals(self) -> list[float]:
        return self._seconds(lambda s: s.wall_ns)

    @cached_property
    def real(self) -> Summary | None:
        return summarize(self.reals)

    @cached_property
    def warmup_real(self) -> Summary | None:
        """Real time of the warm-up runs: shown, never counted."""
        return summarize(s.wall_ns / 1e9 for t in self.verified for s in t.samples if s.warmup)

    @cached_property
    def unsteady(self) -> int:
        """Verified trials whose last warm-ups were not yet steady by the
        warm-up rule: a steady warm-up that stopped at its cap (warmup.py)."""
        return sum(1 for t in self.verified if not _warmed(t))

    @cached_property
    def user(self) -> Summary | None:
        return self._timed(lambda s: s.user_ns)

    @cached_property
    def system(self) -> Summary | None:
        return self._timed(lambda s: s.sys_ns)

    @cached_property
    def total(self) -> Summary | None:
        return self._timed(lambda s: s.user_ns + s.sys_ns)

    @cached_property
    def rates(self) -> list[float]:
        """Operations per second of the timed runs of verified trials (rate workloads)."""
        return [s.ops / s.wall_ns * 1e9 for s in self.rated_samples]

    @cached_property
    def rate(self) -> Summary | None:
        return summarize(self.rates)

    @cached_property
    def median_sample(self) -> Sample | None:
        """The timed sample whose rate is the median (the lower one of an even count)."""
        samples = sorted(self.rated_samples, key=lambda s: s.ops / s.wall_ns)
        return samples[(len(samples) - 1) // 2] if samples else None

    @property
    def rated_samples(self) -> list[Sample]:
        return [s for t in self.verified for s in t.timed if s.ops and s.wall_ns]

    @cached_property
    def memory_kb(self) -> Summary | None:
        return summarize(t.peak_kb for t in self.verified if t.peak_kb is not None)

    @property
    def memory_is_tree(self) -> bool:
        return any(t.memory_method == "tree" for t in self.verified)

    @property
    def units(self) -> tuple[int, ...]:
        return tuple(sorted({s.units for t in self.verified for s in t.timed}))

    @cached_property
    def switches(self) -> tuple[Summary, Summary] | None:
        """Voluntary (waits) and involuntary (preemptions) context switches per trial, from wait4."""
        found = [t for t in self.verified if t.voluntary_switches is not None]
        if not found:
            return None
        return (summarize(t.voluntary_switches for t in found), summarize(t.involuntary_switches for t in found))

    @property
    def repeats(self) -> tuple[int, ...]:
        """The repetitions of the work in its timed runs (1: not calibrated), distinct."""
        return tuple(sorted({s.repeat for t in self.verified for s in t.timed}))

    @property
    def peaks(self) -> tuple[int, ...]:
        """The most units alive at once, per timed run (distinct values)."""
        return tuple(sorted({s.peak_live for t in self.verified for s in t.timed if s.peak_live is not None}))

    @property
    def failures(self) -> Counter:
        return Counter(t.status for t in self.trials if t.status != Status.OK)


def _warmed(trial: TrialRecord) -> bool:
    """Whether the trial's warm-ups, if it took enough to tell, ended steady."""
    measure = warmup.CPU if any(s.latency for s in trial.samples) else warmup.WALL
    costs = [warmup.cost(s, measure) for s in trial.samples if s.warmup]
    return len(costs) < warmup.WINDOW or warmup.steady(costs)
