"""The machine's noise: how fast this machine ran while a run's trials did.
Between trials the harness times a fixed amount of pure CPU work in its own
process (a probe) and stores it; a run's probes say how far its speed moved.
On these VMs it slows down 2-4x in bursts of 0.1 s to seconds, which no
trial's own figures can tell from the cost of what it measures."""

import contextlib
import itertools
import statistics
import time
from dataclasses import dataclass
from typing import Protocol

from . import machine_lock
from .formatting import duration_text, percent
from .records import Probe

# Iterations of the probe's loop: 3-5 ms here at the machine's normal speed
# (2.9 ms at its fastest), long enough for a clock's resolution and a
# scheduler's tick not to matter, short enough to leave a run its time.
WORK = 150_000
# Seconds of a run at least between two probes: a probe and its write take
# about 7 ms here, so a run gives under 1% of its time to them.
PROBE_EVERY = 1.0
SLOW = 1.5  # a probe over this many times the run's median one is in a burst
LEAST = 5  # fewer probes say nothing about how the speed varied


def _work(n: int) -> int:
    # Small ints only (CPython keeps those up to 256) and a loop over
    # itertools.repeat, which makes no int: nothing is allocated, so the
    # allocator and the collector play no part in the time.
    x = 0
    for _ in itertools.repeat(None, n):
        x = (x + 1) & 127
    return x


def probe() -> int:
    """The wall time of WORK iterations in this process, in ns."""
    start = time.perf_counter_ns()
    _work(WORK)
    return time.perf_counter_ns() - start


class ProbeStore(Protocol):
    """Where a meter keeps its probes: the store, which noise.py need not know."""

    def add_probe(self, run_id: int, probe: Probe) -> None: ...


class Meter:
    """Probes the machine between a run's trials, at most once per every
    seconds, and stores each probe. A probe takes the machine's turn, so that
    it never runs beside another concbench's trial, and keeps it for the
    run's next trial: where other concbench runs take turns on this machine,
    a turn of its own would let another's trial in before the next of ours."""

    def __init__(self, store: ProbeStore, run_id: int, every: float = PROBE_EVERY):
        self.store = store
        self.run_id = run_id
        self.every = every
        self.last = None  # the monotonic time of the last probe
        # The turn a probe took, held through the next trial (machine_lock.trial_turn
        # is re-entrant); let go at the next call, or with the meter.
        self.turn = contextlib.ExitStack()

    @classmethod
    def started(cls, store: ProbeStore, run_id: int) -> "Meter":
        """A meter that has probed the machine as the run starts; it holds no
        turn, for the floors and calibrations that come first take theirs."""
        meter = cls(store, run_id)
        with machine_lock.trial_turn():
            meter._probe()
        return meter

    def between(self) -> None:
        """Called after each trial, never during one (the harness is idle
        while a trial runs): lets go of the turn the last probe held, then
        probes unless the last probe was less than every seconds ago."""
        self.turn.close()
        if self.last is not None and time.monotonic() - self.last < self.every:
            return
        self.turn.enter_context(machine_lock.trial_turn())
        self._probe()

    def _probe(self) -> None:
        at_ns, work_ns = time.time_ns(), probe()
        self.last = time.monotonic()
        self.store.add_probe(self.run_id, Probe(at_ns, work_ns))


@dataclass(frozen=True)
class Speed:
    """How the machine's speed varied during a run, from its probes; the
    figures are None where there were fewer than LEAST."""

    probes: int
    range: float | None = None  # the slowest probe's time over the fastest's
    p95_p5: float | None = None  # the 95th percentile over the 5th: the range without its extremes
    slow_share: float | None = None  # the share of probes over SLOW times the median
    longest_spell_s: float | None = None  # the longest spell of slow probes in a row, first to last; 0 if none

    def line(self) -> str:
        """The one line every report of the run says it in."""
        return f"machine speed: {self.text()}"

    def text(self) -> str:
        if self.range is None:
            return f"{self.probes} probe{'s' * (self.probes > 1)}, too few to say how it varied (it takes {LEAST})"
        return (
            f"varied up to {self.range:.1f}x during this run (p95/p5 {self.p95_p5:.1f}x; "
            f"slower than {SLOW:g}x its median in {self._slow_text()})"
        )

    def _slow_text(self) -> str:
        share = f"{percent(self.slow_share)} of {self.probes} probes"
        if not self.slow_share:
            return share
        if not self.longest_spell_s:
            return f"{share}, never two in a row"
        return f"{share}, the longest such spell {duration_text(self.longest_spell_s)}"


def speed(probes: list[Probe]) -> Speed | None:
    """What a run's probes (in time order) say; None for a run without any
    (one stored before the machine was probed)."""
    if not probes:
        return None
    if len(probes) < LEAST:
        return Speed(len(probes))
    times = sorted(p.work_ns for p in probes)
    cuts = statistics.quantiles(times, n=20, method="inclusive")
    median = statistics.median(times)
    slow = [p.work_ns > SLOW * median for p in probes]
    return Speed(
        probes=len(probes),
        range=times[-1] / times[0],
        p95_p5=cuts[-1] / cuts[0],
        slow_share=sum(slow) / len(probes),
        longest_spell_s=_longest_spell(probes, slow) / 1e9,
    )


def _longest_spell(probes: list[Probe], slow: list[bool]) -> int:
    """The longest time from the first to the last of slow probes in a row, in ns."""
    longest, first = 0, None
    for p, is_slow in zip(probes, slow, strict=True):
        if not is_slow:
            first = None
            continue
        first = p.at_ns if first is None else first
        longest = max(longest, p.at_ns - first)
    return longest
