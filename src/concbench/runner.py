"""Runs the trials of a plan one after another, verifies each and stores it
the moment it finishes. Display is the observer's business."""

import functools
from typing import Protocol

from . import protocol, trial
from .limits import Limits
from .plan import Cell, Plan, Settings
from .protocol import Expectations, Response, Status
from .records import Sample, TrialRecord
from .store import Store

FLOOR_TIMEOUT = 60


class Observer(Protocol):
    def started(self, cell: Cell, index: int) -> None: ...
    def finished(self, record: TrialRecord) -> None: ...


def execute(plan: Plan, store: Store, run_id: int, observer: Observer) -> None:
    measure_floors(plan, store, run_id)
    for cell, index in plan.trials(store.finished_trials(run_id)):
        observer.started(cell, index)
        record = run_trial(cell, index, plan.settings_for(cell), plan.caps)
        store.add_trial(run_id, record)
        observer.finished(record)


def measure_floors(plan: Plan, store: Store, run_id: int) -> None:
    """Each runtime's kit answering a request to do nothing, once per run: its
    peak RSS is the memory floor that every row of the runtime carries."""
    stored = store.floors(run_id)
    for cell in plan.cells:
        row = cell.key.row.split("/")[0]
        if row in stored:
            continue
        maxrss_kb, detail = _floor(cell, plan.caps)
        store.add_floor(run_id, row, maxrss_kb, detail)
        stored[row] = maxrss_kb


def _floor(cell: Cell, caps: Limits) -> tuple[int | None, str]:
    request = {"workload": "", "kind": "floor", "mechanism": "", "params": {}, "warmup": 0, "runs": 0}
    try:
        exit = trial.run(cell.runtime.trial_command(cell.options), request, FLOOR_TIMEOUT, caps)
    except OSError as e:
        return None, f"cannot start: {e}"
    answer = protocol.parse_floor(exit.stdout)
    if exit.limit_hit or exit.exit_code != 0 or answer:
        return None, exit.limit_hit or answer or f"exit status {exit.exit_code}, signal {exit.signal}"
    return exit.maxrss_kb, ""


def expectations(cell: Cell, settings: Settings) -> Expectations:
    workload, params = cell.workload, cell.params
    return Expectations(
        result=functools.partial(workload.expected, params),
        warmup=settings.warmup,
        runs=settings.runs,
        batch=params["batch"] if workload.kind == "rate" else None,
        delay_ns=workload.delay_ns(params),
        least_units=functools.partial(workload.least_units, params),
        fixed_units=cell.runtime.manifest.mechanisms[cell.mechanism].units,
        evidence=functools.partial(workload.evidence_of, params),
    )


def run_trial(cell: Cell, index: int, settings: Settings, caps: Limits) -> TrialRecord:
    expect = expectations(cell, settings)
    request = {
        "workload": cell.workload.id,
        "kind": cell.workload.kind,
        "mechanism": cell.mechanism,
        "params": cell.params,
        "warmup": settings.warmup,
        "runs": settings.runs,
    }
    try:
        exit = trial.run(cell.runtime.trial_command(cell.options), request, settings.timeout, caps)
    except OSError as e:
        return TrialRecord(cell.key, index, Status.ERROR, f"cannot start: {e}", _shown(expect))
    answer = protocol.parse(exit)
    status, detail = protocol.verdict(exit, answer, expect)
    response = answer if isinstance(answer, Response) else None
    return TrialRecord(
        cell.key,
        index,
        status,
        detail,
        _shown(expect, response),
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
        samples=tuple(Sample(**sample.model_dump()) for sample in response.runs) if response else (),
    )


def _shown(expect: Expectations, response: Response | None = None) -> dict[str, int]:
    """The expectation stored with a trial: a rate workload's is that of its last
    run, and unknown without one."""
    if expect.batch is None:
        return expect.result(None)
    ops = response.runs[-1].ops if response else None
    return expect.known_result(ops) if ops is not None else {}
