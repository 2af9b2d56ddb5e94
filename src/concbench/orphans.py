"""What a harness that died in the middle of a trial may have left: the
trial's processes, its scratch directory and its cgroups. The spawner
normally cleans up as the harness dies; this is for when it could not (both
killed at once, the machine's OOM killer). Everything a harness starts
carries its mark, its pid and start time, in the environment variable
CONCBENCH_HARNESS and in the names of its scratch directories and cgroups,
so the next run can tell what belongs to a harness that is gone."""

import contextlib
import os
import shutil
import signal
import stat
import tempfile
from functools import cache
from pathlib import Path

from . import limits

VARIABLE = "CONCBENCH_HARNESS"
SCRATCH_PREFIX = "concbench-trial-"
AB_PREFIX = "concbench-ab-"  # an A/B run's unpacked versions, built there


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
    """Kill and remove what dead harnesses left; what it found, e.g. ['2 processes'].
    A harness that died mid-trial left its scratch directory or its cgroups,
    which only it could have made: a process counts as left by it only then,
    so that a mark copied into another environment kills nothing."""
    scratch = _dead_scratch()
    cgroups = limits.stale(SCRATCH_PREFIX, is_dead)
    dead = {_mark_in(directory.name) for directory in [*scratch, *cgroups]}
    found = (
        (_kill_processes(dead), "process", "processes"),
        (_remove_cgroups(cgroups), "cgroup", "cgroups"),
        (_remove_scratch(scratch), "scratch directory", "scratch directories"),
    )
    return [f"{n} {one if n == 1 else many}" for n, one, many in found if n]


def end_own() -> int:
    """Kill what this harness started that still runs, however it left its
    process group (setsid): only between trials, such as after a build, when
    nothing of its own should be running. How many it killed."""
    return _kill_processes({mark()})


def _mark_in(name: str) -> str:
    """The harness's mark in a scratch directory's or cgroup's name."""
    return name.removeprefix(SCRATCH_PREFIX).removeprefix(AB_PREFIX).rsplit("-", 1)[0]


def _kill_processes(dead: set[str]) -> int:
    """This user's processes that carry one of these harnesses' marks, but
    never this process or those it runs under (a concbench started inside a trial)."""
    if not dead:
        return 0
    spared = _ancestry()
    killed = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) in spared or _harness_of(entry) not in dead:
            continue
        try:
            if entry.stat().st_uid == os.geteuid():
                os.kill(int(entry.name), signal.SIGKILL)
                killed += 1
        except (ProcessLookupError, FileNotFoundError):
            pass
    return killed


def _harness_of(process: Path) -> str | None:
    """The mark in a process's environment, if it has one and it is ours to read."""
    try:
        environment = (process / "environ").read_bytes().split(b"\0")
    except OSError:
        return None
    prefix = VARIABLE.encode() + b"="
    return next((v[len(prefix) :].decode(errors="replace") for v in environment if v.startswith(prefix)), None)


def _ancestry() -> set[int]:
    """This process and every process above it."""
    found, pid = set(), os.getpid()
    while pid > 0 and pid not in found:
        found.add(pid)
        try:
            pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])  # field 4: ppid
        except (OSError, IndexError, ValueError):
            break
    return found


def _dead_scratch() -> list[Path]:
    """Scratch directories of dead harnesses: real directories of this user's."""
    found = []
    temporary = Path(tempfile.gettempdir())
    for directory in [*temporary.glob(SCRATCH_PREFIX + "*"), *temporary.glob(AB_PREFIX + "*")]:
        with contextlib.suppress(OSError):
            status = directory.lstat()
            if stat.S_ISDIR(status.st_mode) and status.st_uid == os.geteuid() and is_dead(_mark_in(directory.name)):
                found.append(directory)
    return found


def _remove_scratch(directories: list[Path]) -> int:
    for directory in directories:
        shutil.rmtree(directory, ignore_errors=True)
    return len(directories)


def _remove_cgroups(stale: list[Path]) -> int:
    for directory in stale:
        limits.remove(directory)
    return len(stale)
