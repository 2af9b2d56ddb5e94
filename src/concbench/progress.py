"""Progress of a run on the terminal. Rich's own refresh thread would wake
the harness ten times a second during a trial, so this display redraws only
between trials, when nothing is being measured."""

import time

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from .plan import Cell
from .protocol import Status
from .records import TrialRecord


class ProgressDisplay:
    def __init__(self, console: Console, total: int):
        self.console = console
        self.progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), TimeElapsedColumn(),
                                 console=console, auto_refresh=False, transient=True)
        self.task = self.progress.add_task("", total=total)
        self.started_at = time.monotonic()

    def __enter__(self):
        self.progress.start()
        return self

    def __exit__(self, *exc):
        self.progress.stop()

    def started(self, cell: Cell, index: int) -> None:
        key = cell.key
        self.progress.update(self.task, description=f"{key.workload} {key.row} #{index + 1}")
        self.progress.refresh()

    def finished(self, record: TrialRecord) -> None:
        if record.status != Status.OK:
            self.console.print(f"[bold red]{record.status.upper()}[/] {record.cell.workload} "
                               f"{record.cell.row} #{record.trial + 1}: {record.detail}",
                               markup=True, highlight=False)
        self.progress.advance(self.task)
        self.progress.refresh()
