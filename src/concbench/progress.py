"""Progress of a run on the terminal. Rich's own refresh thread would wake
the harness ten times a second during a trial, so this display redraws only
between trials, when nothing is being measured."""

import time

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from .display import printable
from .plan import Cell
from .protocol import Status
from .records import TrialRecord


class ProgressDisplay:
    def __init__(self, console: Console, total: int):
        self.console = console
        # Names come from manifests and specs: never read as markup.
        self.progress = Progress(
            TextColumn("{task.description}", markup=False),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            auto_refresh=False,
            transient=True,
        )
        self.task = self.progress.add_task("", total=total)
        self.started_at = time.monotonic()

    def __enter__(self):
        self.progress.start()
        return self

    def __exit__(self, *exc):
        self.progress.stop()

    def started(self, cell: Cell, index: int) -> None:
        key = cell.key
        self.progress.update(self.task, description=printable(f"{key.workload} {key.row} #{index + 1}"))
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
