"""Progress of a run on the terminal: what it will take, how far it is, and
how its time was spent. Rich's
own refresh thread would wake the harness ten times a second during a
trial, so this display redraws only between trials, when nothing is being
measured."""

import time

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from .cpus import counted
from .display import printable
from .formatting import duration_text
from .plan import Cell, Plan
from .records import TrialRecord
from .schedule import Outcome, Schedule
from .status import Status
from .warmup import MOST as MOST_WARMUPS
from .warmup import STEADY

NAMED = 10  # unsettled cells named at the end of a run, the noisiest


def extent_text(plan: Plan, profile: str) -> str:
    """What a run will take: cells (at which CPU counts), trials, runs and
    warm-ups, profile and budget."""
    s = plan.settings
    single = sorted({c.workload.id for c in plan.cells if c.workload.one_run_per_process})
    exception = f"; one run for {', '.join(single)}, whose peak memory is one run's" if single else ""
    trials = (
        f"{s.trials} to {s.max_trials} trials (until the ratio's 95% interval is within ±{s.target * 100:g}%)"
        if s.target is not None
        else f"{s.trials} trials"
    )
    calibrated = f" of at least {s.min_run * 1000:g} ms" if s.min_run else ""
    runs = f"{s.runs} timed run{'s' * (s.runs > 1)}{calibrated} each"
    runs = f"{runs}{_runtime_warmups(plan)}" if s.warmup is None else f"{s.warmup} warm-up + {runs}"
    budget = f", budget {duration_text(s.budget)}" if s.budget else ""
    return f"{len(plan.cells)} cells{_cpu_counts(plan)} x {trials} ({runs}{exception}), {profile} profile{budget}"


def _cpu_counts(plan: Plan) -> str:
    """' at 1, 2 CPUs' where the cells are confined; '' where they are not."""
    counts = sorted({c.cpus for c in plan.cells if c.cpus})
    return f" at {', '.join([*map(str, counts[:-1]), counted(counts[-1])])}" if counts else ""


def _runtime_warmups(plan: Plan) -> str:
    """The warm-ups each runtime's trials take where the plan leaves them to
    the runtime, a mechanism named where it differs from its runtime."""
    names: dict[str, set[str]] = {}
    for cell in plan.cells:
        if not cell.workload.one_run_per_process:
            own = cell.runtime.manifest.mechanisms[cell.mechanism].warmup is not None
            name = f"{cell.runtime.name}/{cell.mechanism}" if own else cell.runtime.name
            warmups = plan.settings_for(cell).warmup
            shown = f"until steady (at most {MOST_WARMUPS})" if warmups == STEADY else str(warmups)
            names.setdefault(shown, set()).add(name)
    ordered = sorted(names.items(), key=lambda item: (len(item[0]), item[0]))  # counts by size, then "until"
    counts = "; ".join(f"{shown} for {', '.join(sorted(found))}" for shown, found in ordered)
    return f", after the warm-ups each runtime needs: {counts}" if counts else ""


def to_go_text(schedule: Schedule) -> str:
    to_go = schedule.planned - schedule.taken
    return f"at least {to_go}" if schedule.settings.target is not None else str(to_go)


def budget_text(schedule: Schedule) -> str:
    """What the least trials should take of the budget, as earlier runs tell."""
    least_ns, unknown = schedule.least_ns()
    budget = schedule.settings.budget
    if least_ns:
        unmeasured = f" and {unknown} cells not measured before" if unknown else ""
        least = f"every cell's least trials should take about {duration_text(least_ns / 1e9)}{unmeasured}"
    else:
        least = "no earlier run tells how long every cell's least trials take"
    text = f"budget {duration_text(budget)}: {least}; the rest goes to the widest intervals"
    if least_ns > budget * 1e9:
        text += "; the budget cannot hold them: the cells it stops short are named at the end"
    return text


def plan_progress_text(progress) -> str:
    """How far the workers have taken a stored plan."""
    held = f", {len(progress.claimed)} held by workers" if progress.claimed else ""
    again = f"; {progress.reclaimed} claimed again after a worker's lease lapsed" if progress.reclaimed else ""
    return f"plan: {progress.done} of {progress.planned} trials done{held}, {progress.waiting} waiting{again}"


class ProgressDisplay:
    def __init__(self, console: Console, schedule: Schedule):
        self.console = console
        self.schedule = schedule
        # Names come from manifests and specs: never read as markup.
        self.progress = Progress(
            TextColumn("{task.description}", markup=False),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[budget]}", markup=False),
            console=console,
            auto_refresh=False,
            transient=True,
        )
        self.task = self.progress.add_task("", total=schedule.planned, budget=self._budget())
        self.started_at = time.monotonic()

    def __enter__(self):
        self.progress.start()
        return self

    def __exit__(self, *exc):
        self.progress.stop()

    def _budget(self) -> str:
        budget = self.schedule.settings.budget
        return f"of {duration_text(budget)}" if budget else ""

    def started(self, cell: Cell, index: int, calibrating: bool) -> None:
        key = cell.key
        how = ", calibrating: its work once a run" if calibrating else ""
        self.progress.update(
            self.task,
            description=printable(f"{key.workload} {key.row} #{index + 1}{how}"),
            total=self.schedule.planned,
        )
        self.progress.refresh()

    def finished(self, record: TrialRecord) -> None:
        if record.status != Status.OK:
            # The detail is a trial's own text: shown as it is, never as markup or terminal codes.
            self.console.print(
                Text.assemble(
                    (record.status.upper(), "bold red"),
                    printable(f" {record.cell.workload} {record.cell.row} #{record.trial + 1}: {record.detail}"),
                )
            )
        self.progress.advance(self.task)
        self.progress.refresh()


def schedule_lines(schedule: Schedule) -> list[str]:
    """How a finished run spent its time, and how its cells ended."""
    spent = schedule.spent
    budget = schedule.settings.budget
    lines = [
        f"{schedule.taken} trials in {duration_text(schedule.elapsed_ns / 1e9)}"
        + (f" of a {duration_text(budget)} budget" if budget else "")
        + f": least trials {duration_text(spent['least'] / 1e9)}, "
        f"more trials {duration_text(spent['adaptive'] / 1e9)}"
    ]
    outcomes = schedule.outcomes()
    lines.append("cells: " + ", ".join(f"{n} {outcome}" for outcome, n in outcomes.most_common()))
    unsettled = sorted(schedule.unsettled(), key=lambda pair: -pair[1])
    if unsettled:
        named = ", ".join(f"{_name(cell)} (cv {cv:.0%})" for cell, cv in unsettled[:NAMED])
        more = f", and {len(unsettled) - NAMED} more, marked wide in the tables" if len(unsettled) > NAMED else ""
        lines.append(f"not within ±{schedule.settings.target * 100:g}%, noisiest first: {named}{more}")
    short = schedule.short()
    if short:
        lines.append(f"short of {schedule.settings.trials} trials: {', '.join(map(_name, short))}")
    if outcomes[Outcome.BUDGET] and budget:
        lines.append("a larger --budget, or fewer cells, gives those stopped at the budget more trials")
    return lines


def _name(cell: Cell) -> str:
    return " ".join(part for part in (cell.key.workload, cell.key.row, cell.key.params_text) if part)
