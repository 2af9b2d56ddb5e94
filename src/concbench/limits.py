"""Per-trial resource limits: a memory cap, and a cap on the processes and
threads a trial may have at once.

Both are enforced by a cgroup of the trial's own, which the spawner joins
before it starts the trial, so everything the trial starts is inside it. A
cgroup caps the memory a process tree really uses (resident and cached
pages), not the address space it reserves: Go, the JVM and GHC reserve tens
of gigabytes they never touch, which RLIMIT_AS would refuse. The kernel's
OOM killer ends a trial over its memory cap; a fork or thread past the task
cap fails. Both leave a count in the cgroup's events, which is how a trial
stopped by a limit is told from one that crashed.

A trial confined to some CPUs (--cpus) gets a cpuset cgroup of its own
too, holding it and all it starts to those CPUs: unlike the affinity mask
the spawner also sets, which a process may widen again, a cpuset cannot be
left from inside.

cgroup v2 is used where the unified hierarchy has the controller, else the
v1 hierarchy of that controller; where neither can be written (no
privilege, no delegation), the limit is not enforced and the run says so
(a confined trial then has its affinity mask alone)."""

import os
import re
import signal
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

DEFAULT_TASKS = 16384  # 10,000 threads of the spawn workload, with room for the runtimes' own
MiB = 1 << 20


@dataclass(frozen=True)
class Limits:
    memory_bytes: int | None  # None: no cap
    tasks: int | None  # processes and threads at once; None: no cap


def default_memory_bytes() -> int:
    """Half the machine's memory: far above any workload's, and low enough that a
    runaway trial leaves the harness and the machine alive."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2


@dataclass(frozen=True)
class _Controller:
    """Where one kind of limit is set and counted: the harness's own cgroup of
    that controller, and the files that hold the cap and the times it was hit."""

    kind: str  # "memory", "pids" or "cpuset"
    version: int  # of cgroups: 1 or 2
    parent: Path  # the harness's cgroup; trials' cgroups go inside it
    cap_file: str
    events_file: str
    hit_event: str


_FILES = {  # (version, kind): cap file, events file, the event that counts hits
    (2, "memory"): ("memory.max", "memory.events", "oom_kill"),
    (2, "pids"): ("pids.max", "pids.events", "max"),
    (1, "memory"): ("memory.limit_in_bytes", "memory.oom_control", "oom_kill"),
    (1, "pids"): ("pids.max", "pids.events", "max"),
    (2, "cpuset"): ("cpuset.cpus", "", ""),  # a confinement, never hit
    (1, "cpuset"): ("cpuset.cpus", "", ""),
}


@cache
def controllers() -> dict[str, _Controller | str]:
    """Each kind of limit: where it is enforced, or why it cannot be."""
    return {kind: _find(kind) for kind in ("memory", "pids", "cpuset")}


def _find(kind: str) -> _Controller | str:
    mounts, memberships = _mounts(), _memberships()
    for version, key in ((2, ""), (1, kind)):
        mount = mounts.get(key)
        if mount is None or key not in memberships:
            continue
        root, point = mount
        parent = point / os.path.relpath(memberships[key], root)
        if version == 2 and not _delegated(parent, kind):
            continue
        if _writable(parent):
            return _Controller(kind, version, parent, *_FILES[version, kind])
        return f"cannot create cgroups in {parent}"
    return f"no {kind} cgroup controller here"


def _mounts() -> dict[str, tuple[str, Path]]:
    """Cgroup hierarchies by controller ('' for v2): their root and mount point."""
    found = {}
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        separator = fields.index("-")
        fstype, options = fields[separator + 1], fields[separator + 3].split(",")
        if fstype == "cgroup2":
            found.setdefault("", (fields[3], Path(fields[4])))
        elif fstype == "cgroup":
            for option in options:
                found.setdefault(option, (fields[3], Path(fields[4])))
    return found


def _memberships() -> dict[str, str]:
    """The harness's cgroup path in each hierarchy, by controller ('' for v2)."""
    found = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        for name in names.split(",") if names else [""]:
            found[name] = path
    return found


def _delegated(parent: Path, kind: str) -> bool:
    """In v2 a cgroup's children have a controller only if it is in its subtree_control."""
    try:
        if kind in (parent / "cgroup.subtree_control").read_text().split():
            return True
        (parent / "cgroup.subtree_control").write_text(f"+{kind}")
        return True
    except OSError:
        return False


def _writable(parent: Path) -> bool:
    probe = parent / f"concbench-probe-{os.getpid()}"
    try:
        probe.mkdir()
        probe.rmdir()
        return True
    except OSError:
        return False


def describe(limits: Limits) -> str:
    """The caps on each trial and how they are enforced here, for the run's record."""
    memory = f"memory {limits.memory_bytes / MiB:.0f} MiB" if limits.memory_bytes else "no memory cap"
    tasks = f"{limits.tasks} processes and threads" if limits.tasks else "no process cap"
    return f"{memory}{_how('memory', limits.memory_bytes)}, {tasks}{_how('pids', limits.tasks)} per trial"


def confinement() -> str:
    """How a trial confined to some CPUs is held to them here, for the run's record."""
    found = controllers()["cpuset"]
    return f"affinity only ({found})" if isinstance(found, str) else f"affinity and cpuset (cgroup v{found.version})"


def _how(kind: str, cap: int | None) -> str:
    found = controllers()[kind]
    if cap is None:
        return ""
    return f" (not enforced: {found})" if isinstance(found, str) else f" (cgroup v{found.version})"


class TrialCgroup:
    """The cgroups of one trial, with its caps set; removed by close()."""

    def __init__(self, limits: Limits, name: str, cpus: str | None = None):
        """cpus: the CPUs to confine it to, as cpuset.cpus takes them ('0,1'); None: all."""
        self.caps = {"memory": limits.memory_bytes, "pids": limits.tasks, "cpuset": cpus}
        self.controllers = [
            c for kind, c in controllers().items() if self.caps[kind] is not None and not isinstance(c, str)
        ]
        self.dirs = list(dict.fromkeys(c.parent / name for c in self.controllers))
        for directory in self.dirs:
            directory.mkdir()
        for c in self.controllers:
            if c.kind == "cpuset" and c.version == 1:  # a v1 cpuset takes no task until it has memory nodes
                (c.parent / name / "cpuset.mems").write_text((c.parent / "cpuset.mems").read_text())
            (c.parent / name / c.cap_file).write_text(str(self.caps[c.kind]))
        self.name = name

    @property
    def procs_files(self) -> list[str]:
        return [str(d / "cgroup.procs") for d in self.dirs]

    def limit_hit(self) -> str:
        """What limit stopped the trial, or '' if none did."""
        for c in self.controllers:
            if c.events_file and _event_count(c.parent / self.name / c.events_file, c.hit_event):
                return _hit_text(c.kind, self.caps[c.kind])
        return ""

    def close(self) -> None:
        for directory in self.dirs:
            remove(directory)


def _event_count(path: Path, event: str) -> int:
    match = re.search(rf"^{event} (\d+)$", path.read_text(), re.MULTILINE)
    return int(match.group(1)) if match else 0


def _hit_text(kind: str, cap: int) -> str:
    if kind == "memory":
        return f"the kernel stopped it at the memory cap of {cap / MiB:.0f} MiB (an OOM kill in its cgroup)"
    return f"a fork or thread was refused at the cap of {cap} processes and threads"


def remove(directory: Path) -> int:
    """Kill what is left in a cgroup and remove it; the number of processes killed."""
    killed = set()
    deadline = time.monotonic() + 5
    while True:
        try:
            procs = (directory / "cgroup.procs").read_text()
        except FileNotFoundError:  # removed meanwhile, by its own harness
            return len(killed)
        for pid in map(int, procs.split()):
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except ProcessLookupError:
                pass
        try:
            directory.rmdir()
            return len(killed)
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.001)  # the killed are still exiting


def stale(prefix: str, is_dead) -> list[Path]:
    """Trial cgroups left by harnesses that died: those named prefix, then a mark that is_dead."""
    found = []
    for c in controllers().values():
        if isinstance(c, str):
            continue
        for directory in c.parent.glob(f"{prefix}*"):
            if is_dead(directory.name.removeprefix(prefix).rsplit("-", 1)[0]):
                found.append(directory)
    return list(dict.fromkeys(found))
