"""Runs the trials of a plan one after another, verifies each and stores it
the moment it finishes. Display is the observer's business."""

import functools
from typing import Protocol

from . import protocol, trial
from .plan import Cell, Plan, Settings
from .protocol import Response, Status
from .records import Sample, TrialRecord
from .store import Store


class Observer(Protocol):
    def started(self, cell: Cell, index: int) -> None: ...
    def finished(self, record: TrialRecord) -> None: ...


def execute(plan: Plan, store: Store, run_id: int, observer: Observer) -> None:
    for cell, index in plan.trials(store.finished_trials(run_id)):
        observer.started(cell, index)
        record = run_trial(cell, index, plan.settings_for(cell))
        store.add_trial(run_id, record)
        observer.finished(record)


def run_trial(cell: Cell, index: int, settings: Settings) -> TrialRecord:
    workload, params = cell.workload, cell.params
    expected = functools.partial(workload.expected, params)
    batch = params["batch"] if workload.kind == "rate" else None
    request = {"workload": workload.id, "kind": workload.kind, "mechanism": cell.mechanism,
               "params": params, "warmup": settings.warmup, "runs": settings.runs}
    try:
        exit = trial.run(cell.runtime.trial_command(cell.options), request, settings.timeout)
    except OSError as e:
        return TrialRecord(cell.key, index, Status.ERROR, f"cannot start: {e}", _shown(expected, batch))
    answer = protocol.parse(exit.stdout)
    status, detail = protocol.verdict(exit, answer, expected, settings.warmup, settings.runs, batch,
                                      workload.delay_ns(params))
    response = answer if isinstance(answer, Response) else None
    return TrialRecord(
        cell.key, index, status, detail, _shown(expected, batch, response),
        wall_ns=exit.wall_ns, user_ns=exit.user_ns, sys_ns=exit.sys_ns,
        maxrss_kb=exit.maxrss_kb, exit_code=exit.exit_code, signal=exit.signal,
        tree_rss_kb=response.tree_rss_kb if response else None,
        runtime_info=response.runtime.model_dump() if response else {},
        stderr=exit.stderr,
        samples=tuple(Sample(**run.model_dump()) for run in response.runs) if response else (),
    )


def _shown(expected, batch: int | None, response: Response | None = None) -> dict[str, int]:
    """The expectation stored with a trial: a rate workload's is that of its last
    run, and unknown without one."""
    if batch is None:
        return expected(None)
    ops = response.runs[-1].ops if response else None
    return expected(ops) if ops is not None else {}
