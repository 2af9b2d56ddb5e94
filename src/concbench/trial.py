"""One trial: a fresh child process, its request, its output and its cost.

The harness sleeps in epoll on the child's pipes and a pidfd while the child
runs, so it uses no CPU beside the measurement. The child is started by a
small trampoline (spawner/spawn.c) that reaps it with wait4 and reports its
CPU time and peak RSS: spawned from Python directly, the child's peak RSS
would include the harness's own. The trampoline also keeps the time limit
and, as a child subreaper, kills everything the trial started, even what
left its process group, so nothing a trial started outlives it; it dies
with the harness. The trial runs in cgroups of its own that cap its memory
and its processes (limits.py), without address-space layout randomisation
and with fixed hash seeds (conditions())."""

import contextlib
import dataclasses
import itertools
import json
import os
import select
import selectors
import signal
import tempfile
import time
from dataclasses import dataclass

from . import limits, machine_lock, orphans, spawner
from .errors import UserError

STDOUT_LIMIT = 1 << 20
STDERR_LIMIT = 64 << 10
READ_CHUNK = 1 << 16
DRAIN_GRACE_NS = 2_000_000_000
# The spawner keeps the time limit; the harness steps in only if the spawner
# itself stops answering (a trial can stop its parent).
BACKSTOP_NS = 5_000_000_000
STOP_GRACE_S = 2  # for the spawner to clean up when the harness is interrupted
_trial_numbers = itertools.count()
# Hash seeds that an environment variable fixes, so that a trial's tables
# are laid out as in every other trial (docs/protocol.md, "Trials hold still").
FIXED_SEEDS = {"PYTHONHASHSEED": "0"}
# The database's password: a trial has no use for it, and what it prints is
# stored and reported.
WITHHELD = ("CONCBENCH_DB", "PGPASSWORD")
# on: trials keep the kernel's address-space layout randomisation, to measure
# what turning it off changes; off (the default): the trampoline turns it off.
ASLR_VARIABLE = "CONCBENCH_ASLR"


@dataclass(frozen=True)
class Exit:
    """What the operating system says about a finished child."""

    wall_ns: int  # from spawn to exit, seen by the harness
    user_ns: int | None  # wait4 of the trial process (None if it was killed with the spawner)
    sys_ns: int | None
    maxrss_kb: int | None  # the largest single process of the tree
    # Context switches of the trial and the children it waited for (wait4):
    # voluntary ones are waits (a lock, a queue, I/O), involuntary ones preemption.
    voluntary_switches: int | None
    involuntary_switches: int | None
    exit_code: int | None
    signal: int | None
    timed_out: bool
    stdout: bytes  # the last STDOUT_LIMIT bytes
    stdout_size: int  # all the bytes written to stdout, kept or not
    stderr: str  # the last STDERR_LIMIT bytes
    strays: int | None = None  # processes still running after the trial exited (killed); None: unknown
    limit_hit: str = ""  # the resource limit that stopped the trial, or ''


def aslr_kept() -> bool:
    value = os.environ.get(ASLR_VARIABLE, "off")
    if value not in ("on", "off"):
        raise UserError(f"{ASLR_VARIABLE} is on or off, not {value!r}")
    return value == "on"


def conditions() -> str:
    """What every trial runs under, as the run's fingerprint records it."""
    return ", ".join([f"ASLR {'on' if aslr_kept() else 'off'}", *(f"{k}={v}" for k, v in FIXED_SEEDS.items())])


def run(argv: list[str], request: dict, timeout: float, caps: limits.Limits | None = None) -> Exit:
    """Run one trial with a fresh scratch directory and, unless caps is None,
    cgroups that hold it to them; both removed afterwards. It waits for its
    turn on the machine: no other concbench's trial runs beside it."""
    with machine_lock.machine_turn():
        return _run_alone(argv, request, timeout, caps)


def _run_alone(argv: list[str], request: dict, timeout: float, caps: limits.Limits | None) -> Exit:
    name = f"{orphans.SCRATCH_PREFIX}{orphans.mark()}-{next(_trial_numbers)}"
    cgroup = limits.TrialCgroup(caps, name) if caps else None
    try:
        with tempfile.TemporaryDirectory(prefix=f"{orphans.SCRATCH_PREFIX}{orphans.mark()}-") as scratch:
            payload = json.dumps({**request, "scratch": scratch}).encode() + b"\n"
            exit = _run_process(argv, payload, timeout, cgroup.procs_files if cgroup else [])
        return dataclasses.replace(exit, limit_hit=cgroup.limit_hit()) if cgroup else exit
    finally:
        if cgroup:
            cgroup.close()


def _run_process(argv: list[str], payload: bytes, timeout: float, cgroups: list[str]) -> Exit:
    trampoline = spawner.path()
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    stderr_r, stderr_w = os.pipe()
    report_r, report_w = os.pipe()
    options = ["-r", "3", "-t", str(max(1, round(timeout * 1000)))]
    options += [option for procs in cgroups for option in ("-c", procs)]
    options += ["-a"] if aslr_kept() else []
    inherited = {name: value for name, value in os.environ.items() if name not in WITHHELD}
    environment = {**inherited, **FIXED_SEEDS, orphans.VARIABLE: orphans.mark()}
    start = time.monotonic_ns()
    try:
        pid = os.posix_spawn(
            trampoline,
            [trampoline, *options, *argv],
            environment,
            setpgroup=0,
            file_actions=[
                (os.POSIX_SPAWN_DUP2, stdin_r, 0),
                (os.POSIX_SPAWN_DUP2, stdout_w, 1),
                (os.POSIX_SPAWN_DUP2, stderr_w, 2),
                (os.POSIX_SPAWN_DUP2, report_w, 3),
            ],
        )
    finally:
        for fd in (stdin_r, stdout_w, stderr_w, report_w):
            os.close(fd)
    watch = _Watch(pid, stdin_w, stdout_r, stderr_r, payload)
    try:
        stopped, exited_ns = watch.until_done(start + int(timeout * 1e9) + BACKSTOP_NS)
    finally:
        watch.close()  # on Ctrl-C too: the spawner cleans up, then is reaped
        with os.fdopen(report_r, "rb") as report:
            fields = report.read().split()
    if len(fields) == 8:
        status, user_us, sys_us, maxrss_kb, voluntary, involuntary, timed_out, strays = map(int, fields)
    else:  # the spawner itself was killed: no figures
        status, user_us, sys_us, maxrss_kb, voluntary, involuntary, timed_out, strays = (
            watch.reaped[1],
            None,
            None,
            None,
            None,
            None,
            stopped,
            None,
        )
    return Exit(
        wall_ns=exited_ns - start,
        user_ns=None if user_us is None else user_us * 1000,
        sys_ns=None if sys_us is None else sys_us * 1000,
        maxrss_kb=maxrss_kb,
        voluntary_switches=voluntary,
        involuntary_switches=involuntary,
        exit_code=os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
        signal=os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
        timed_out=bool(timed_out or stopped),
        stdout=bytes(watch.output[stdout_r]),
        stdout_size=watch.sizes[stdout_r],
        stderr=watch.output[stderr_r].decode(errors="replace"),
        strays=strays,
    )


class _Watch:
    """Feeds the spawner's child its request and collects its output until the
    spawner exits and every pipe is closed, sleeping in epoll between events."""

    def __init__(self, pid: int, stdin: int, stdout: int, stderr: int, payload: bytes):
        self.pid = pid
        self.pidfd = os.pidfd_open(pid)
        self.pending = memoryview(payload)
        self.limits = {stdout: STDOUT_LIMIT, stderr: STDERR_LIMIT}
        self.output = {stdout: bytearray(), stderr: bytearray()}
        self.sizes = {stdout: 0, stderr: 0}
        self.reaped = None
        self.selector = selectors.DefaultSelector()
        for fd in (stdout, stderr, self.pidfd):
            self.selector.register(fd, selectors.EVENT_READ)
        os.set_blocking(stdin, False)
        self.selector.register(stdin, selectors.EVENT_WRITE)

    def until_done(self, deadline_ns: int) -> tuple[bool, int]:
        """Whether the harness had to kill the spawner, and when it exited."""
        stopped, exited_ns, limit_ns = False, None, deadline_ns
        while self.selector.get_map():
            now = time.monotonic_ns()
            if limit_ns is not None and now >= limit_ns:
                if exited_ns is not None:
                    break  # something that escaped every kill still holds a pipe
                stopped, limit_ns = True, None
                self._kill_group()  # then wait for the pidfd, however long it takes
            wait = None if limit_ns is None else (limit_ns - now) / 1e9
            for key, _ in self.selector.select(wait):
                if key.fd == self.pidfd:
                    exited_ns = time.monotonic_ns()
                    limit_ns = exited_ns + DRAIN_GRACE_NS
                    self._forget(key.fd)
                elif key.fd in self.output:
                    self._read(key.fd)
                else:
                    self._write(key.fd)
        return stopped, exited_ns

    def _read(self, fd: int) -> None:
        chunk = os.read(fd, READ_CHUNK)
        if not chunk:
            self._forget(fd)
            return
        self.sizes[fd] += len(chunk)
        buffer = self.output[fd]
        buffer += chunk
        del buffer[: -self.limits[fd]]

    def _write(self, fd: int) -> None:
        try:
            written = os.write(fd, self.pending)
        except BrokenPipeError:  # the child did not read its request: its answer says why
            written = len(self.pending)
        self.pending = self.pending[written:]
        if not self.pending:
            self._forget(fd)

    def _forget(self, fd: int) -> None:
        self.selector.unregister(fd)
        os.close(fd)

    def _kill_group(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGKILL)

    def close(self) -> None:
        if self.reaped is None:
            self._stop()
            self.reaped = os.wait4(self.pid, 0)
        for key in list(self.selector.get_map().values()):
            self._forget(key.fd)
        self.selector.close()

    def _stop(self) -> None:
        """Ask the spawner to kill the trial and what it started; kill it if it cannot."""
        if self.pidfd in self.selector.get_map():
            os.kill(self.pid, signal.SIGTERM)
            if not select.select([self.pidfd], [], [], STOP_GRACE_S)[0]:
                self._kill_group()
