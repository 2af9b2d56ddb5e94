"""A fingerprint of the machine and toolchains, stored with every run."""

import os
import platform
import subprocess
from pathlib import Path

from . import paths
from .runtimes import Runtime


def fingerprint(runtimes: list[Runtime]) -> dict:
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "memory_kb": _meminfo_total_kb(),
        "kernel": platform.release(),
        "load": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(),
        "concbench": _commit(),
        "runtimes": {r.name: r.toolchain.output for r in runtimes if r.toolchain.ok},
    }


def _cpu_model() -> str:
    for line in _read("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def _meminfo_total_kb() -> int | None:
    for line in _read("/proc/meminfo").splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1])
    return None


def _commit() -> str:
    def git(*args):
        return subprocess.run(["git", "-C", str(paths.PROJECT), *args], capture_output=True,
                              text=True, stdin=subprocess.DEVNULL).stdout.strip()
    try:
        commit = git("rev-parse", "--short", "HEAD")
        return commit + ("-dirty" if commit and git("status", "--porcelain", "--untracked-files=no") else "")
    except OSError:
        return ""


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def differences(before: dict, after: dict) -> list[str]:
    """What differs between the fingerprints of two runs, 'what: before -> after'
    (the machine, or the toolchains, may explain a change as well as the code)."""
    def flat(env: dict) -> dict:
        runtimes = {f"runtime {k}": v for k, v in env.get("runtimes", {}).items()}
        return {**{k: v for k, v in env.items() if k not in ("load", "runtimes")}, **runtimes}
    a, b = flat(before), flat(after)
    return [f"{key}: {a.get(key, '-')} -> {b.get(key, '-')}"
            for key in dict.fromkeys([*a, *b]) if a.get(key) != b.get(key)]
