"""Where concbench finds its workloads, runtimes and database.

The defaults are the project checkout's own folders; the environment
variables CONCBENCH_WORKLOADS and CONCBENCH_RUNTIMES (folders, separated by
':') and CONCBENCH_DB replace them, e.g. for the tests' deliberately bad
runtime."""

import os
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]


def _dirs(variable: str, default: Path) -> list[Path]:
    value = os.environ.get(variable)
    return [Path(p) for p in value.split(":") if p] if value else [default]


def workload_dirs() -> list[Path]:
    return _dirs("CONCBENCH_WORKLOADS", PROJECT / "workloads")


def runtime_dirs() -> list[Path]:
    return _dirs("CONCBENCH_RUNTIMES", PROJECT / "runtimes")


def default_db() -> Path:
    return Path(os.environ.get("CONCBENCH_DB") or PROJECT / "results" / "concbench.db")
