"""Progress of a run on the terminal, and how its time was spent. Rich's
own refresh thread would wake the harness ten times a second during a
trial, so this display redraws only between trials, when nothing is being
measured."""

import time

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from .display import printable
from .formatting import duration_text
from .plan import Cell
from .records import TrialRecord
from .schedule import Outcome, Schedule
from .status import Status

NAMED = 10  # unsettled cells named at the end of a run, the noisiest


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
