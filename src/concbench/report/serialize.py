"""The records of the machine-readable formats: one per trial (`concbench
show --json`, and the trials of `report --format json|csv`) and one per cell
(the cells of `report --format json`). docs/formats.md documents every field."""

from dataclasses import asdict

from ..records import PROCESS_FIGURES, CellKey, RunInfo, TrialRecord
from ..results import CellResult
from ..stats import Summary
from . import latency
from .aggregate import Table
from .scaling import Speedup


def trial_record(run: RunInfo, t: TrialRecord) -> dict:
    return {
        "run": run.id,
        **_key(t.cell),
        "trial": t.trial,
        "machine": t.machine,
        "machine_id": t.machine_id,
        "cpu_set": t.cpu_set,
        "status": str(t.status),
        "detail": t.detail,
        "expected": t.expected,
        "process": {name: getattr(t, name) for name in PROCESS_FIGURES},
        "peak_kb": t.peak_kb,
        "memory_method": t.memory_method,
        "tree_rss_kb": t.tree_rss_kb,
        "runtime_info": t.runtime_info,
        "late_generator": latency.late(t),
        "runs": [asdict(s) for s in t.samples],
        "stderr": t.stderr,
    }


def cell_record(table: Table, cell: CellResult, speedup: Speedup | None) -> dict:
    """What the cell's row of its table shows, from the timed runs of its
    verified trials, and its speed-up against its row's cpus=1 cell (None: it has none)."""
    memory = cell.memory_kb
    return {
        **_key(cell.key),
        "row": cell.key.row,
        "machine": cell.trials[0].machine,
        "baseline": cell is table.baseline,
        "figure": "rate" if table.rate_format else "real",
        "real_s": _summary(cell.real),
        "user_s": _summary(cell.user),
        "sys_s": _summary(cell.system),
        "rate_per_s": _summary(cell.rate),
        "ratio": table.ratio(cell),
        "ratio_paired": _summary(table.ratio_summary(cell)),
        "speedup": _summary(speedup.factor) if speedup else None,
        "efficiency": _summary(speedup.efficiency) if speedup else None,
        "overhead_s": table.overhead(cell),
        "peak_kb": memory.median if memory else None,
        "memory_method": ("tree" if cell.memory_is_tree else "wait4") if memory else None,
        "floor_kb": table.floor_kb(cell),
        "units": list(cell.units),
        "peak_live": list(cell.peaks),
        "latency": _latency(cell) if table.served else None,
        "evidence": {o.name: {"count": o.count, "of": o.of, "share": o.share} for o in table.observed(cell)},
        "marks": [{"word": m.word, "seen": m.seen} for m in table.marks(cell)],
        "notes": [n.text for n in table.notes if n.row == cell.key.row],
        "trials": len(cell.trials),
        "verified": len(cell.verified),
        "failures": {str(status): n for status, n in sorted(cell.failures.items())},
    }


def _key(key: CellKey) -> dict:
    return {
        "workload": key.workload,
        "runtime": key.runtime,
        "mechanism": key.mechanism,
        "options": list(key.options),
        "params": dict(key.params),
        "cpus": key.cpus,
    }


def _summary(s: Summary | None) -> dict | None:
    if s is None:
        return None
    method = ("t" if s.by_t else "order") if s.ci else None
    return {
        "n": s.n,
        "median": s.median,
        "ci": list(s.ci) if s.ci else None,
        "ci_method": method,
        "min": s.min,
        "max": s.max,
        "cv": s.cv,
    }


def _latency(cell: CellResult) -> dict | None:
    """A served row's figures, the medians over its timed runs, in ns; None without a load."""
    if not latency.timed_loads(cell):
        return None
    figures = {
        f"{key}_ns": latency.run_median(cell, lambda load, key=key: load["latency_ns"][key])
        for _, key in latency.PERCENTILES
    }
    return {
        "rate_per_s": latency.run_median(cell, latency.achieved),
        **figures,
        "send_lag_ns": latency.run_median(cell, lambda load: load["send_lag_ns"]),
    }
