"""A worker: takes a stored plan's trials one at a time from a shared
database, runs each on this machine and stores it. The workers of many
machines drain one plan between them; a worker that dies leaves its trial to
be claimed again once its lease lapses."""

import os
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass

from . import calibration, machine_lock, runner
from .plan import Cell, Plan
from .records import Calibration, Machine, TrialRecord
from .selection import Settings
from .store import Store

# How long past a step's own timeout a claim is held: storing a trial, and a
# slow database, fit in it.
GRACE = 60
POLL = 2  # seconds between looks at a plan whose last trials other workers hold


@dataclass
class Worker:
    store: Store
    run_id: int
    plan: Plan
    machine: Machine
    grace: float = GRACE
    said: Callable[[str], None] = print  # what the worker tells its console

    def __post_init__(self):
        host = platform.node()
        where = self.machine.name if self.machine.name == host else f"{self.machine.name}@{host}"
        self.name = f"{where}:{os.getpid()}"  # which process of which machine holds a claim
        self.cells = {cell.key.id: cell for cell in self.plan.cells}
        # A claim first holds for the longest trial, until its first step renews it for its own.
        self.first_lease = self._lease(max(self.plan.settings_for(cell).timeout for cell in self.plan.cells))
        self.turns_said = False
        self.kept: list[TrialRecord] = []  # stored, or in the journal until the server is back

    def drain(self) -> None:
        """Claims and runs trials until every trial of the plan is done. While
        the rest are held by other workers it waits: one of them may die, and
        its trial come back once its lease lapses."""
        while True:
            with machine_lock.trial_turn(self._taking_turns):
                claimed = self.store.claim(self.run_id, self.name, self.first_lease)
                if claimed is not None:
                    record = self._run(self.cells[claimed[0]], claimed[1])
                    kept = self.store.add_trial(self.run_id, record, claim=self.name)
            if claimed is None:
                if not self.store.progress(self.run_id).claimed:
                    return
                time.sleep(POLL)
                continue
            self.said(_line(record, kept))
            if kept:
                self.kept.append(record)

    def stored(self) -> list[TrialRecord]:
        """Of the trials drain kept, those the database took: one kept in the
        journal while the server was away is refused when it is sent if its
        claim lapsed meanwhile and another worker took the trial."""
        lapsed = {(e.record.cell.id, e.record.trial) for e in self.store.lapsed if e.claim == self.name}
        for record in self.kept:
            if (record.cell.id, record.trial) in lapsed:
                self.said(_line(record, kept=False))
        self.kept = [record for record in self.kept if (record.cell.id, record.trial) not in lapsed]
        return self.kept

    def _taking_turns(self) -> None:
        if not self.turns_said:
            self.said("another concbench runs trials on this machine: taking turns with it, a trial at a time")
            self.turns_said = True

    def _lease(self, seconds: float) -> int:
        return round(seconds + self.grace)

    def _hold(self, cell: Cell, index: int, seconds: float) -> None:
        """The claim, held for the next step (a floor, a calibration, the trial)."""
        self.store.extend(self.run_id, cell.key.id, index, self.name, self._lease(seconds))

    def _run(self, cell: Cell, index: int) -> TrialRecord:
        settings = self.plan.settings_for(cell)
        if cell.key.runtime_label not in self.store.floors(self.run_id):
            self._hold(cell, index, runner.FLOOR_TIMEOUT)
            runner.measure_floor(cell, self.plan.caps, self.store, self.run_id)
        known = self._calibration(cell, settings) if calibration.calibrated(cell, settings) else Calibration(repeat=1)
        calibrating = known is None
        self._hold(cell, index, settings.timeout)
        record = runner.run_trial(cell, index, settings, self.plan.caps, self.machine, known.repeat if known else 1)
        if calibrating:
            runner.measured_calibration(record, settings, self.store, self.run_id)
        return record

    def _calibration(self, cell: Cell, settings: Settings) -> Calibration | None:
        """The cell's calibration as this run knows it now, whichever worker
        measured or reused it first (runner.known_calibration)."""
        this_run = self.store.calibrations(self.run_id)
        earlier = {} if cell.key.id in this_run else self.store.earlier_calibrations(self.run_id)
        return runner.known_calibration(cell, settings, self.store, self.run_id, this_run, earlier)


def _line(record: TrialRecord, kept: bool) -> str:
    cell = record.cell
    wall = f"{record.wall_ns / 1e6:.1f} ms" if record.wall_ns is not None else "no time"
    line = f"{record.status} {cell.workload} {cell.row} {cell.params_text} trial {record.trial + 1}: {wall}"
    if not kept:
        line += " (not stored: its claim lapsed and another worker took it)"
    return line
