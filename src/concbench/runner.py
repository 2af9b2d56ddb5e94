"""Runs the trials of a plan one after another, as its schedule says,
verifies each and stores it the moment it finishes. Display is the
observer's business."""

import dataclasses
from typing import Protocol

from . import calibration, cpus, noise, protocol, served, trial, verify, warmup
from .errors import UserError
from .limits import Limits
from .plan import Cell, Plan
from .protocol import Response
from .records import Calibration, Machine, Sample, TrialRecord
from .schedule import Schedule
from .selection import BOUNDS, Settings
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
        start = schedule.clock()  # less any wait for the machine's turn, as the budget counts
        record = run_trial(cell, index, settings, plan.caps, machine, known.repeat if known else 1)
        store.add_trial(run_id, record)
        if calibrating and (found := measured_calibration(record, settings, store, run_id)):
            schedule.calibrated(cell, found)
        schedule.record(record, schedule.clock() - start)
        observer.finished(record)
        meter.between()


def known_calibrations(plan: Plan, schedule: Schedule, store: Store, run_id: int) -> None:
    """Each calibrated cell's repetitions where they are known (known_calibration).
    The others' first trials run their work once a run, and tell it."""
    this_run = store.calibrations(run_id)
    earlier = store.earlier_calibrations(run_id)
    for cell in plan.cells:
        settings = plan.settings_for(cell)
        if calibration.calibrated(cell, settings) and (
            found := known_calibration(cell, settings, store, run_id, this_run, earlier)
        ):
            schedule.calibrated(cell, found)


def known_calibration(
    cell: Cell,
    settings: Settings,
    store: Store,
    run_id: int,
    this_run: dict[str, Calibration],
    earlier: dict[str, Calibration],
) -> Calibration | None:
    """A calibrated cell's repetitions: this run's, whoever measured them
    first (a resumed run keeps its own); else, for a cell measured in an
    earlier run, that run's length with repetitions for this run's settings,
    stored as this run's; else None: its next trial measures them."""
    found = this_run.get(cell.key.id)
    if found is None and (found := calibration.reused(earlier.get(cell.key.id), settings)):
        found = store.add_calibration(run_id, cell.key.id, found)
    return found


def measured_calibration(record: TrialRecord, settings: Settings, store: Store, run_id: int) -> Calibration | None:
    """The repetitions a calibrating trial measured, as stored (another
    worker's where it stored them first); None if the trial did not verify."""
    found = calibration.from_trial(record, settings)
    return None if found is None else store.add_calibration(run_id, record.cell.id, found)


def measure_floors(plan: Plan, store: Store, run_id: int) -> None:
    """Each runtime's floor, once per run (measure_floor)."""
    stored = store.floors(run_id)
    for cell in plan.cells:
        if cell.key.runtime_label not in stored:
            stored[cell.key.runtime_label] = measure_floor(cell, plan.caps, store, run_id)


def measure_floor(cell: Cell, caps: Limits, store: Store, run_id: int) -> int | None:
    """The cell's runtime's kit answering a request to do nothing, stored: its
    peak RSS is the memory floor that every row of the runtime carries."""
    maxrss_kb, detail = floor(cell, caps)
    store.add_floor(run_id, cell.key.runtime_label, maxrss_kb, detail)
    return maxrss_kb


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
    warmups, steady = warmup.asked(settings.warmup, repeat, BOUNDS["warmup"][1], served=bool(cell.workload.load))
    expect = cell.workload.expectations(cell.params, warmups, settings.runs * repeat, units, steady)
    return dataclasses.replace(expect, cpus=cell.cpus)


def _request(cell: Cell, expect: Expectations) -> dict:
    request = {
        "workload": cell.workload.id,
        "kind": cell.workload.kind,
        "mechanism": cell.mechanism,
        "params": cell.params,
        "cpus": cell.cpus or len(cpus.usable()),
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
    load = served.seeded(expect.load) if expect.load else None
    beside = served.beside(load) if load else None
    try:
        confined = cpus.first(cell.cpus) if cell.cpus else None
        command = cell.runtime.trial_command(cell.options)
        exit = trial.run(command, _request(cell, expect), settings.timeout, caps, beside, confined)
    except (OSError, UserError) as e:
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
        samples=_samples(response, repeat, exit, load) if response else (),
        machine=machine.name,
        machine_id=machine.id,
        cpu_set=cpus.listed(confined) if confined else "",
    )


def _samples(response: Response, repeat: int, exit: trial.Exit, asked: dict | None) -> tuple[Sample, ...]:
    """The trial's samples; a served workload's each with the latency its (seeded) load met."""
    samples = calibration.samples(response.runs, repeat)
    loads = served.runs(exit.beside) if asked else []
    if isinstance(loads, str) or len(loads) != len(samples):
        return samples
    return tuple(dataclasses.replace(sample, latency=served.latency(run, asked)) for sample, run in zip(samples, loads))
