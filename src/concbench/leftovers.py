"""What a harness that died in the middle of a trial may have left: the
trial's processes, its scratch directory and its cgroups. The spawner
normally cleans up as the harness dies; this is for when it could not (both
killed at once, the machine's OOM killer). Everything a harness starts
carries its mark, its pid and start time, in the environment variable
CONCBENCH_HARNESS and in the names of its scratch directories and cgroups,
so the next run can tell what belongs to a harness that is gone."""

import os
import shutil
import signal
import tempfile
from functools import cache
from pathlib import Path

from . import limits

VARIABLE = "CONCBENCH_HARNESS"
SCRATCH_PREFIX = "concbench-trial-"


@cache
def mark() -> str:
    """This harness: its pid and start time, which no later process shares."""
    return f"{os.getpid()}.{_start_time(os.getpid())}"


def _start_time(pid: int) -> str | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]  # field 22: start time in clock ticks since boot


def is_dead(harness: str) -> bool:
    pid, _, started = harness.partition(".")
    return not pid.isdigit() or _start_time(int(pid)) != started


def clean() -> list[str]:
    """Kill and remove what dead harnesses left; what it found, e.g. ['2 processes']."""
    found = (
        (_kill_processes(), "process", "processes"),
        (_remove_cgroups(), "cgroup", "cgroups"),
        (_remove_scratch(), "scratch directory", "scratch directories"),
    )
    return [f"{n} {one if n == 1 else many}" for n, one, many in found if n]


def _kill_processes() -> int:
    killed = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environment = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue  # gone, or not ours to read
        for variable in environment:
            name, _, value = variable.partition(b"=")
            if name == VARIABLE.encode() and is_dead(value.decode(errors="replace")):
                try:
                    os.kill(int(entry.name), signal.SIGKILL)
                    killed += 1
                except ProcessLookupError:
                    pass
                break
    return killed


def _remove_scratch() -> int:
    removed = 0
    for directory in Path(tempfile.gettempdir()).glob(SCRATCH_PREFIX + "*"):
        if directory.is_dir() and is_dead(directory.name.removeprefix(SCRATCH_PREFIX).rsplit("-", 1)[0]):
            shutil.rmtree(directory, ignore_errors=True)
            removed += 1
    return removed


def _remove_cgroups() -> int:
    stale = limits.stale(SCRATCH_PREFIX, is_dead)
    for directory in stale:
        limits.remove(directory)
    return len(stale)
