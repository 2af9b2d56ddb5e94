"""From stored trials to cells and tables: what every report format shows."""

from dataclasses import dataclass
from functools import cached_property

from .. import pairs, warmup
from ..formatting import percent
from ..records import CellKey, Note, Skipped, TrialRecord
from ..results import CellResult
from ..stats import T_LEAST, Summary
from ..workloads import Workload
from . import latency
from .figures import count_text, units_text

# A cell is marked where fewer than this share of its events went the
# concurrent way (acquisitions contended, pushes and pops blocked, ...).
MARK_BELOW = 0.01


@dataclass(frozen=True)
class Observed:
    """One evidence of a cell over its timed runs: how many of its events went
    the concurrent way."""

    name: str
    count: int | None  # None: the mechanism cannot observe it
    of: int
    share_text: str  # "of acquisitions found the lock held"
    mark: str  # the word for a cell where almost none did

    @property
    def share(self) -> float | None:
        return self.count / self.of if self.count is not None and self.of else None

    @property
    def marked(self) -> bool:
        return self.share is not None and self.share < MARK_BELOW

    def describe(self) -> str:
        if self.share is None:
            return f"{self.name} not observable"
        return f"{percent(self.share)} {self.share_text} ({self.count:,} of {self.of:,})"


@dataclass(frozen=True)
class Mark:
    word: str  # serial, uncontended, unblocked, ...
    seen: str  # what was observed


@dataclass(frozen=True, kw_only=True)
class Table:
    """One workload with one parameter set: a row per mechanism."""

    workload: str
    title: str
    params_text: str  # as the titles print it: "groups=10 messages=5000"
    rows: tuple[CellResult, ...]
    skipped: tuple[Skipped, ...]
    baseline: CellResult | None
    rate_format: str | None = None  # set for rate workloads: "executions" or "ips"
    work: str | None = None  # the kind of work, for the diagnosis
    delay: float = 0.0  # seconds every unit sleeps by design (spawn's delay_ms)
    spec: Workload | None = None
    notes: tuple[Note, ...] = ()
    floors: tuple[tuple[str, int | None], ...] = ()  # (runtime, kB) of the rows' kits doing nothing
    target: float | None = None  # an adaptive run's: the spread of a median it gave trials to narrow
    # The machine whose trials the table holds, where a run's came from several
    # (tables(by_machine=True)); None where they came from one, which goes unsaid.
    machine: str | None = None

    @property
    def served(self) -> bool:
        """Whether its workload is served: a server under a load, whose real
        time is the load's length for every row (its figures are latencies)."""
        return bool(self.spec and self.spec.load)

    @property
    def machine_text(self) -> str:
        """'on NAME' for a table of one of several machines; '' otherwise."""
        return "" if self.machine is None else f"on {machine_name(self.machine)}"

    @property
    def label(self) -> str:
        """The table in a line: 'triangle n=100', 'triangle n=100 on alpha'."""
        return " ".join(part for part in (self.workload, self.params_text, self.machine_text) if part)

    @property
    def params(self) -> dict[str, int | float | str]:
        """The parameters with their types, from the rows ({} for a table of
        skipped cells only, whose parameters are known as text)."""
        return dict(self.rows[0].key.params) if self.rows else {}

    @property
    def cpus(self) -> int:
        """The CPUs its rows' trials were confined to (0: unconfined, or a
        table of skipped cells only); its parameters leave it out."""
        return self.rows[0].key.cpus if self.rows else 0

    @property
    def evidence_names(self) -> list[str]:
        """The spec's [evidence] counts, the columns after live."""
        return list(self.spec.evidence) if self.spec else []

    def skipped_by_reason(self) -> dict[tuple[str, str], list[str]]:
        """The rows that did not run, by (kind, reason): those alike go on one line."""
        found: dict[tuple[str, str], list[str]] = {}
        for s in self.skipped:
            found.setdefault((s.kind, s.reason), []).append(s.row)
        return found

    def observed(self, cell: CellResult) -> tuple[Observed, ...]:
        """The spec's evidence, summed over the cell's timed runs."""
        if not self.spec or not cell.verified:
            return ()
        samples = [s for t in cell.verified for s in t.timed]
        params = dict(cell.key.params)
        found = []
        for name, evidence in self.spec.evidence.items():
            if any(name not in s.evidence for s in samples):
                continue  # stored before the spec declared it
            try:
                of = sum(self.spec.evidence_of(params, s.ops)[name] for s in samples)
            except (KeyError, ArithmeticError):
                continue  # the spec changed since: its events cannot be counted for these parameters
            counts = [s.evidence[name] for s in samples]
            found.append(Observed(name, None if None in counts else sum(counts), of, evidence.share, evidence.mark))
        return tuple(found)

    def observed_by_name(self, cell: CellResult) -> dict[str, Observed]:
        """observed(), looked up by evidence name: a column per name the spec declares."""
        return {o.name: o for o in self.observed(cell)}

    def units_and_live(self, cell: CellResult) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The units a row shows started and the most alive at once. A time-boxed
        run creates as many units as it had time for: a rate table shows those
        of its median sample, the sample whose count the row prints."""
        sample = cell.median_sample if self.rate_format else None
        if sample is None:
            return cell.units, cell.peaks
        return (sample.units,), (sample.peak_live,) if sample.peak_live is not None else ()

    def marks(self, cell: CellResult) -> tuple[Mark, ...]:
        """Where the cell's concurrency did not happen: units that never
        overlapped, a lock never contended, a queue never blocked, ..."""
        found = []
        if cell.units and cell.units[-1] > 1 and cell.peaks and cell.peaks[-1] <= 1:
            found.append(Mark("serial", f"at most 1 of {units_text(cell.units)} units alive at once"))
        elif turns := self._turns(cell):
            found.append(turns)
        found += [Mark(o.mark, o.describe()) for o in self.observed(cell) if o.marked]
        late = latency.late_text(cell) if self.served else ""
        if late:
            found.append(Mark(latency.LATE, late))
        if cell.unsteady:
            found.append(Mark("unsteady", self._unsteady(cell)))
        wide = "" if self.served else self._wide(cell)
        if wide:
            found.append(Mark("wide", wide))
        return tuple(found)

    def _turns(self, cell: CellResult) -> Mark | None:
        """The spec's mark where the units it keeps alive together took turns:
        fewer were ever alive at once than it says; None where they did not."""
        if not self.spec or not self.spec.together or not cell.peaks or not cell.units or cell.units[-1] <= 1:
            return None  # one unit, or none, has nobody to take turns with
        try:
            together = self.spec.live_together(dict(cell.key.params))
        except (KeyError, ArithmeticError):
            return None  # the spec changed since: these parameters no longer evaluate
        if together is None or together < 2 or cell.peaks[-1] >= together:
            return None
        return Mark(
            self.spec.together.mark,
            f"at most {count_text(cell.peaks[-1])} of the {count_text(together)} units the work keeps alive together "
            "were alive at once",
        )

    @staticmethod
    def _unsteady(cell: CellResult) -> str:
        trials = f"{cell.unsteady} of {len(cell.verified)} trials" if len(cell.verified) > 1 else "its trial"
        return (
            f"the last {warmup.WINDOW} warm-ups of {trials} still differed by more than "
            f"{percent(warmup.SPREAD)}: their runs may not have been warm"
        )

    def _wide(self, cell: CellResult) -> str:
        """Why the cell's interval (of its ratio, or of the baseline's median)
        did not narrow to an adaptive run's target; '' if it did."""
        shown = self.interval(cell)
        if self.target is None or not shown or (shown.ci is not None and shown.spread <= self.target):
            return ""
        what = "ratio" if self.ratio_summary(cell) else "median"
        if shown.ci is None:
            counted = "pairs of trials" if what == "ratio" else "timed runs"
            interval = f"its {shown.n} {counted} give its {what} no 95% interval ({T_LEAST} do)"
        else:
            interval = (
                f"its {what}'s 95% interval is ±{percent(shown.spread)}, wider than the ±{percent(self.target)} target"
            )
        return f"{interval} after {len(cell.trials)} trials (cv {percent(shown.cv)})"

    def remarks(self, repeats: bool = True) -> list[tuple[str, str]]:
        """Per row, what its marks say was observed, how often its runs repeat
        the work (unless not asked), and the notes its runtime gives it."""
        lines = [
            (cell.key.row, "; ".join(f"{m.word}: {m.seen}" for m in self.marks(cell)))
            for cell in self.rows
            if self.marks(cell)
        ]
        if repeats:
            lines += [
                (row, f"each timed run repeats the work {times}: its figures are per repetition")
                for row, times in self.repeated()
            ]
        return lines + [(note.row, f"note: {note.text}") for note in self.notes]

    def repeated(self) -> list[tuple[str, str]]:
        """The rows whose timed runs repeat the work, with how often ("3 times")."""
        return [(cell.key.row, _times(cell.repeats)) for cell in self.rows if cell.repeats and cell.repeats[-1] > 1]

    def floor_kb(self, cell: CellResult) -> int | None:
        """The memory floor of the cell's kit (its runtime with its options)."""
        return dict(self.floors).get(cell.key.runtime_label)

    def figure(self, cell: CellResult) -> Summary | None:
        """What ranks the rows: ops/s for a rate workload, else real time."""
        return cell.rate if self.rate_format else cell.real

    def values(self, cell: CellResult) -> list[float]:
        """That figure of every timed run of verified trials."""
        return cell.rates if self.rate_format else cell.reals

    def ratio(self, cell: CellResult) -> float | None:
        """real / real of the baseline; for a rate workload, ops/s / ops/s of the
        baseline: the median of its trials' ratios to their neighbours among the
        baseline's (pairs.py)."""
        if cell is self.baseline:
            return 1.0 if self.figure(cell) else None
        paired = self.ratio_summary(cell)
        return paired.median if paired else None

    @cached_property
    def _paired(self) -> dict[CellKey, Summary | None]:
        references = self.baseline.trials if self.baseline else ()
        return {
            r.key: None if r is self.baseline else pairs.summary(r.trials, references, bool(self.rate_format))
            for r in self.rows
        }

    def ratio_summary(self, cell: CellResult) -> Summary | None:
        """The cell's paired ratios to the baseline: their median and its
        interval; None for the baseline itself, or without a baseline trial."""
        return self._paired.get(cell.key)

    def interval(self, cell: CellResult) -> Summary | None:
        """What the interval column shows: the ratio's, where the row has one;
        the baseline's (or a row without a baseline figure) its median's."""
        return self.ratio_summary(cell) or self.figure(cell)

    def ranked(self) -> tuple[CellResult, ...]:
        """The rows with figures, best first: least time, or most ops/s."""
        rows = [r for r in self.rows if self.figure(r)]
        return tuple(sorted(rows, key=lambda r: self.figure(r).median, reverse=bool(self.rate_format)))

    def unsettled(self) -> list[tuple[CellResult, CellResult]]:
        """Neighbours in rank order whose intervals overlap: this run cannot
        say which of the two is faster (a served table ranks no real time: none). Their ratios' intervals where every
        row has one (the baseline's ratio is exactly 1), else their medians'."""
        if self.served:
            return []
        ranked = self.ranked()
        bounds = {r.key: self._ratio_bounds(r) for r in ranked}
        if None in bounds.values():
            bounds = {r.key: self.figure(r).bounds for r in ranked}
        return [(a, b) for a, b in zip(ranked, ranked[1:]) if _overlap(bounds[a.key], bounds[b.key])]

    def _ratio_bounds(self, cell: CellResult) -> tuple[float, float] | None:
        if cell is self.baseline:
            return (1.0, 1.0)
        paired = self.ratio_summary(cell)
        return paired.bounds if paired else None

    def overhead(self, cell: CellResult) -> float | None:
        """Real time minus the delay the units slept: what the concurrency cost."""
        return cell.real.median - self.delay if self.delay and cell.real else None


def _times(repeats: tuple[int, ...]) -> str:
    return " or ".join("once" if n == 1 else f"{n:,} times" for n in repeats)


def machine_name(name: str) -> str:
    """A machine as the reports name it: trials stored before machines were recorded have no name."""
    return name or "an unrecorded machine"


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    (a_low, a_high), (b_low, b_high) = a, b
    return a_low <= b_high and b_low <= a_high


def tables(
    trials: list[TrialRecord],
    skipped: list[Skipped],
    specs: dict[str, Workload],
    notes: list[Note] | None = None,
    floors: dict[str, int | None] | None = None,
    target: float | None = None,
    by_machine: bool = False,
) -> list[Table]:
    """Tables in the order their trials were planned; the baseline row first.
    by_machine: where the trials come from several machines, a table per
    machine, each machine's tables after each other: a figure (and a ratio)
    of one machine's trials, never of a mix."""
    split = by_machine and len({t.machine for t in trials}) > 1
    cells: dict[tuple[CellKey, str | None], list[TrialRecord]] = {}
    for t in trials:
        cells.setdefault((t.cell, t.machine if split else None), []).append(t)
    groups: dict[tuple[str, str, str | None], list[CellResult]] = {}
    for (key, machine), cell_trials in cells.items():
        groups.setdefault((key.workload, key.params_text, machine), []).append(CellResult(key, tuple(cell_trials)))
    ran = list(dict.fromkeys(workload for workload, _, _ in groups))  # in plan order
    for s in skipped:  # a parameter set of a workload that ran elsewhere shows why it did not
        if s.workload in ran and s.params and not any(group[:2] == (s.workload, s.params) for group in groups):
            groups[s.workload, s.params, None] = []
    sets = list(dict.fromkeys((workload, params) for workload, params, _ in groups))
    result = []
    for (workload, params, machine), rows in sorted(
        groups.items(), key=lambda item: (ran.index(item[0][0]), sets.index(item[0][:2]), item[0][2] or "")
    ):
        spec = specs.get(workload)
        baseline = next((r for r in rows if spec and r.key.row == spec.baseline), None)
        if baseline is None:  # not in this run: compare with the first row that has figures
            baseline = next((r for r in rows if r.real is not None), None)
        rate_format = spec.rate_format if spec else ("executions" if any(r.rate for r in rows) else None)
        # The baseline, then its runtime's other rows, then the rest, each in plan order.
        ordered = (
            sorted(rows, key=lambda r: (r is not baseline, r.key.runtime != baseline.key.runtime)) if baseline else rows
        )
        delay = spec.delay_ns(dict(rows[0].key.params)) / 1e9 if spec and rows else 0.0
        row_names = {r.key.row for r in rows}
        runtimes = dict.fromkeys(r.key.runtime_label for r in ordered)
        result.append(
            Table(
                workload=workload,
                title=spec.title if spec else workload,
                params_text=params,
                rows=tuple(ordered),
                skipped=tuple(s for s in skipped if s.workload == workload and s.params in ("", params)),
                baseline=baseline,
                rate_format=rate_format,
                work=spec.work if spec else None,
                delay=delay,
                spec=spec,
                notes=tuple(n for n in notes or () if n.workload == workload and n.row in row_names),
                floors=tuple((r, floors[r]) for r in runtimes if r in (floors or {})),
                target=target,
                machine=machine,
            )
        )
    return result


@dataclass(frozen=True)
class Sweep:
    """Tables of one workload whose parameter sets differ in one numeric
    parameter only: how the figures scale with it (the seeds' N = 1, 5, 10...).
    Its tables share their CPUs: how a row scales with CPUs is its speed-up
    (scaling.py), each k paired with its own cpus=1, never a line of medians."""

    workload: str
    title: str
    param: str
    fixed: str  # the other parameters, as text, the CPUs first as titles print them
    tables: tuple[Table, ...]  # ordered by the value of param
    values: tuple[int | float, ...]  # param's value in each table

    @property
    def machine_text(self) -> str:
        return self.tables[0].machine_text


def sweeps(tables: list[Table]) -> list[Sweep]:
    """Every sweep among the tables, per workload and numeric parameter, in
    plan order. A table of a grid of two parameters is in a sweep of each;
    tables of several machines, or CPU counts, make a sweep per machine and count."""
    found = []
    for workload in dict.fromkeys(t.workload for t in tables):
        ran = [t for t in tables if t.workload == workload and t.rows]  # no rows: nothing to plot
        if not ran:
            continue
        numeric = [k for k, v in ran[0].params.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
        for param in numeric:
            lines: dict[tuple, list[Table]] = {}
            for t in ran:
                cpus = (("cpus", t.cpus),) if t.cpus else ()
                fixed = cpus + tuple((k, v) for k, v in t.params.items() if k != param)
                lines.setdefault((t.machine, fixed), []).append(t)
            for (_, fixed), line in lines.items():
                if len(line) > 1:
                    line.sort(key=lambda t: t.params[param])
                    found.append(
                        Sweep(
                            workload,
                            line[0].title,
                            param,
                            " ".join(f"{k}={v}" for k, v in fixed),
                            tuple(line),
                            tuple(t.params[param] for t in line),
                        )
                    )
    return found
