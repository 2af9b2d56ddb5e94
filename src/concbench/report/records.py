"""One JSON record per trial, for `concbench show --json`."""

from dataclasses import asdict

from ..records import TrialRecord
from ..store import RunInfo


def trial_record(run: RunInfo, t: TrialRecord) -> dict:
    return {
        "run": run.id,
        "workload": t.cell.workload,
        "runtime": t.cell.runtime,
        "mechanism": t.cell.mechanism,
        "options": list(t.cell.options),
        "params": dict(t.cell.params),
        "trial": t.trial,
        "status": str(t.status),
        "detail": t.detail,
        "expected": t.expected,
        "process": {"wall_ns": t.wall_ns, "user_ns": t.user_ns, "sys_ns": t.sys_ns,
                    "maxrss_kb": t.maxrss_kb, "exit_code": t.exit_code, "signal": t.signal},
        "peak_kb": t.peak_kb,
        "memory_method": t.memory_method,
        "tree_rss_kb": t.tree_rss_kb,
        "runtime_info": t.runtime_info,
        "runs": [asdict(s) for s in t.samples],
        "stderr": t.stderr,
    }
