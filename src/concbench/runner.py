"""Runs the trials of a plan one after another, as its schedule says,
verifies each and stores it the moment it finishes. Display is the
observer's business."""

import dataclasses
import time
from typing import Protocol

from . import calibration, noise, protocol, trial, verify, warmup
from .limits import Limits
from .plan import BOUNDS, Cell, Plan, Settings
from .protocol import Response
from .records import Calibration, Machine, TrialRecord
from .schedule import Schedule
from .status import Status
from .store import Store
from .verify import Expectations

FLOOR_TIMEOUT = 60


class Observer(Protocol):
    def started(self, cell: Cell, index: int, calibrating: bool) -> None: ...
    def finished(self, record: TrialRecord) -> None: ...


def execute(plan: Plan, schedule: Schedule, store: Store, run_id: int, observer: Observer, machine: Machine) -> None:
    meter = noise.Meter.started(store, run_id)
    measure_floors(plan, store, run_id)
    known_calibrations(plan, schedule, store, run_id)
    while (step := schedule.next()) is not None:
        cell, index = step
        settings = plan.settings_for(cell)
        known = schedule.states[cell.key.id].calibration
        calibrating = known is None and calibration.calibrated(cell, settings)
        observer.started(cell, index, calibrating)
        start = time.monotonic_ns()
        record = run_trial(cell, index, settings, plan.caps, machine, known.repeat if known else 1)
        store.add_trial(run_id, record)
        if calibrating and (found := calibration.from_trial(record, settings)):
            schedule.calibrated(cell, store.add_calibration(run_id, cell.key.id, found))
        schedule.record(record, time.monotonic_ns() - start)
        observer.finished(record)
        meter.between()


def known_calibrations(plan: Plan, schedule: Schedule, store: Store, run_id: int) -> None:
    """Each cell's repetitions where they are known: a resumed run keeps its
    own; a cell measured in an earlier run keeps its run's length (its
    repetitions follow this run's settings). The others' first trials run
    their work once a run, and tell it."""
    stored = store.calibrations(run_id)
    earlier = store.earlier_calibrations(run_id)
    for cell in plan.cells:
        settings = plan.settings_for(cell)
        if not calibration.calibrated(cell, settings):
            continue
        found = stored.get(cell.key.id)
        if found is None and (found := reused(earlier.get(cell.key.id), settings)):
            found = store.add_calibration(run_id, cell.key.id, found)
        if found is not None:
            schedule.calibrated(cell, found)


def reused(known: Calibration | None, settings: Settings) -> Calibration | None:
    if known is None:
        return None
    return dataclasses.replace(known, repeat=calibration.repeat_for(known.run_ns, settings))


def measure_floors(plan: Plan, store: Store, run_id: int) -> None:
    """Each runtime's kit answering a request to do nothing, once per run: its
    peak RSS is the memory floor that every row of the runtime carries."""
    stored = store.floors(run_id)
    for cell in plan.cells:
        row = cell.key.row.split("/")[0]
        if row in stored:
            continue
        maxrss_kb, detail = floor(cell, plan.caps)
        store.add_floor(run_id, row, maxrss_kb, detail)
        stored[row] = maxrss_kb


def floor(cell: Cell, caps: Limits) -> tuple[int | None, str]:
    request = {"workload": "", "kind": "floor", "mechanism": "", "params": {}, "warmup": 0, "runs": 0}
    try:
        exit = trial.run(cell.runtime.trial_command(cell.options), request, FLOOR_TIMEOUT, caps)
    except OSError as e:
        return None, f"cannot start: {e}"
    answer = protocol.parse_floor(exit.stdout)
    if exit.limit_hit or exit.exit_code != 0 or answer:
        return None, exit.limit_hit or answer or f"exit status {exit.exit_code}, signal {exit.signal}"
    return exit.maxrss_kb, ""


def expectations(cell: Cell, settings: Settings, repeat: int = 1) -> Expectations:
    """What the trial must show; a calibrated one repeats the work `repeat`
    times in each timed sample and each warm-up sample alike."""
    units = cell.runtime.manifest.mechanisms[cell.mechanism].units
    warmups, steady = warmup.asked(settings.warmup, repeat, BOUNDS["warmup"][1])
    return cell.workload.expectations(cell.params, warmups, settings.runs * repeat, units, steady)


def _request(cell: Cell, expect: Expectations) -> dict:
    request = {
        "workload": cell.workload.id,
        "kind": cell.workload.kind,
        "mechanism": cell.mechanism,
        "params": cell.params,
        "warmup": expect.warmup,
        "runs": expect.runs,
    }
    if expect.steady:
        request["steady"] = expect.steady.request()
    return request


def run_trial(
    cell: Cell, index: int, settings: Settings, caps: Limits, machine: Machine, repeat: int = 1
) -> TrialRecord:
    """One trial on this machine; a calibrated one asks for repeat runs per timed sample."""
    expect = expectations(cell, settings, repeat)
    try:
        exit = trial.run(cell.runtime.trial_command(cell.options), _request(cell, expect), settings.timeout, caps)
    except OSError as e:
        return TrialRecord(
            cell.key,
            index,
            Status.ERROR,
            f"cannot start: {e}",
            expect.stored_result(None),
            machine=machine.name,
            machine_id=machine.id,
        )
    answer = protocol.parse(exit)
    status, detail = verify.verdict(exit, answer, expect)
    response = answer if isinstance(answer, Response) else None
    return TrialRecord(
        cell.key,
        index,
        status,
        detail,
        expect.stored_result(response),
        wall_ns=exit.wall_ns,
        user_ns=exit.user_ns,
        sys_ns=exit.sys_ns,
        maxrss_kb=exit.maxrss_kb,
        exit_code=exit.exit_code,
        signal=exit.signal,
        voluntary_switches=exit.voluntary_switches,
        involuntary_switches=exit.involuntary_switches,
        strays=exit.strays,
        tree_rss_kb=response.tree_rss_kb if response else None,
        runtime_info=response.runtime.model_dump() if response else {},
        stderr=exit.stderr,
        samples=calibration.samples(response.runs, repeat) if response else (),
        machine=machine.name,
        machine_id=machine.id,
    )
