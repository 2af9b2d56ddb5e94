"""Two stored runs side by side, cell by cell, as the Celluloid seed's
Before/After tables, with the judgement the seed could not make: a change is
called only when a two-sided Mann-Whitney U test on the timed runs says it is
larger than the noise, and it is at least a practical threshold.

The cells of one comparison are one family of tests: their p-values are
adjusted for the false discovery rate (Benjamini-Hochberg), so that comparing
two runs of unchanged code calls a change in at most ALPHA of comparisons,
however many cells they have, instead of in ALPHA of the cells."""

from dataclasses import dataclass, replace
from enum import StrEnum
from functools import cached_property

from .. import environment
from ..errors import UserError
from ..records import RunInfo, TrialRecord
from ..results import CellResult
from ..stats import benjamini_hochberg, mann_whitney_p, smallest_p
from ..workloads import Workload
from .aggregate import Table, tables

ALPHA = 0.05
CORRECTION = "Benjamini-Hochberg"


class Verdict(StrEnum):
    FASTER = "faster"
    SLOWER = "slower"
    SAME = "no change"  # tested: within the noise or below the threshold
    NOISY = "too noisy"  # not called, but its noise could hide a change of the threshold's size
    UNTESTABLE = "too few runs"  # no p-value of these sample sizes can reach ALPHA
    MISSING = "missing"  # no verified run on one side


@dataclass(frozen=True)
class Change:
    """One cell in both runs (or in one of them)."""

    table: Table  # where the cell is shown: its title and figure
    row: str
    before: CellResult | None
    after: CellResult | None
    threshold: float  # the smallest change worth calling, as a fraction
    q: float | None = None  # p adjusted across the comparison's tested cells (changes() sets it)

    @property
    def medians(self) -> tuple[float | None, float | None]:
        return tuple(
            self.table.figure(c).median if c and self.table.figure(c) else None for c in (self.before, self.after)
        )

    noise_of = "median"  # what the noise makes uncertain, in the verdict's words

    @property
    def ratio(self) -> float | None:
        """after / before, of the figure the table shows."""
        before, after = self.medians
        return after / before if before and after else None

    @property
    def too_few(self) -> str:
        n, m = self.sizes
        return f"{n} and {m} runs cannot give p < {ALPHA}"

    @property
    def slowdown(self) -> float | None:
        """How much longer the work takes after than before (-0.2: 20% less time);
        for a rate workload, the time per operation."""
        before, after = self.medians
        if before is None or after is None:
            return None
        return before / after - 1 if self.table.rate_format else after / before - 1

    @cached_property
    def p(self) -> float | None:
        """None where the samples are too few for any result to reach ALPHA."""
        if self.slowdown is None:
            return None
        a, b = (self.table.values(c) for c in (self.before, self.after))
        return mann_whitney_p(a, b) if smallest_p(len(a), len(b)) < ALPHA else None

    @property
    def sizes(self) -> tuple[int, int]:
        return tuple(len(self.table.values(c)) if c else 0 for c in (self.before, self.after))

    @property
    def noise(self) -> float | None:
        """The wider of the two medians' intervals (the range below 3 runs), as a
        fraction of its median on one side: how large a change can hide in it."""
        figures = [self.table.figure(c) for c in (self.before, self.after)]
        if not all(figures):
            return None
        return max(f.spread for f in figures)

    @property
    def judged_p(self) -> float | None:
        """What a call is judged by: q in a comparison of many cells, the cell's
        own p where it is tested alone (a step in history)."""
        return self.q if self.q is not None else self.p

    @property
    def verdict(self) -> Verdict:
        if self.slowdown is None:
            return Verdict.MISSING
        if self.p is None:
            return Verdict.UNTESTABLE
        within_noise = self.judged_p >= ALPHA
        if within_noise or abs(self.slowdown) < self.threshold:
            return Verdict.NOISY if within_noise and self.noise > self.threshold else Verdict.SAME
        return Verdict.SLOWER if self.slowdown > 0 else Verdict.FASTER


def changes(
    before: list[TrialRecord], after: list[TrialRecord], specs: dict[str, Workload], threshold: float
) -> list[Change]:
    """Every cell of either run, in the after run's order, then those only before."""
    cells = {}
    for side, trials in (("after", after), ("before", before)):
        for table in tables(trials, [], specs):
            for cell in table.rows:
                cells.setdefault(cell.key, {"table": table})[side] = cell
    return adjusted(
        [Change(c["table"], key.row, c.get("before"), c.get("after"), threshold) for key, c in cells.items()]
    )


def adjusted(found: list[Change]) -> list[Change]:
    """The changes, each tested one with its q: p adjusted across them all."""
    tested = [c for c in found if c.p is not None]
    qs = dict(zip(map(id, tested), benjamini_hochberg([c.p for c in tested])))
    return [replace(c, q=qs[id(c)]) if id(c) in qs else c for c in found]


def cpu_counts_apart(trials: tuple[list[TrialRecord], list[TrialRecord]]) -> str:
    """Why cells of two runs may not meet, if their CPU counts differ (a cell
    at one count is another cell at another); '' where they are the same."""
    counts = [sorted({t.cell.cpus for t in side}) for side in trials]
    if counts[0] == counts[1]:
        return ""
    before, after = (", ".join(str(k) if k else "unconfined" for k in side) or "none" for side in counts)
    return (
        f"the runs ran at different CPU counts (before: {before}; after: {after}): "
        "a cell meets only its own count in the other run (concbench run --cpus)"
    )


def refuse_other_machines(runs: tuple[RunInfo, RunInfo], trials: tuple[list[TrialRecord], list[TrialRecord]]) -> None:
    """Another machine is not a code change: two runs are compared only
    where one machine ran every trial of both (workers may
    have drained a run on several)."""
    machines = [_machines(run, found) for run, found in zip(runs, trials)]
    if len(set().union(*machines)) < 2:
        return
    if all(len(m) == 1 for m in machines):
        where = f"runs {runs[0].id} and {runs[1].id} ran on different machines, " + " and ".join(
            next(iter(m)) for m in machines
        )
    else:
        run, mixed = next((run, m) for run, m in zip(runs, machines) if len(m) > 1)
        where = f"run {run.id}'s trials ran on {len(mixed)} machines, {', '.join(sorted(mixed))}"
    raise UserError(
        f"{where}: another machine is not a code change, so no cell is called slower or faster "
        "(--across-machines compares them anyway)"
    )


def _machines(run, trials: list[TrialRecord]) -> set[str]:
    """The machines that ran a run's trials, as people name them; the run's own
    where its trials predate machines (none where it does too: any machine)."""
    named = {f"{t.machine} ({t.machine_id})" for t in trials if t.machine_id}
    if named or not run.environment.get("machine_id"):
        return named
    return {environment.machine_text(run.environment)}
