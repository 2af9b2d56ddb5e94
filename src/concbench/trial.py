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
from collections.abc import Callable
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
# The longest line of a trial's stdout relayed to the process beside it: an
# address, with room to spare.
RELAYED_LINE_LIMIT = 4096
# The descriptor on which the process beside a trial finds the trial's
# scratch folder, opened by the harness before the trial started.
SCRATCH_FD = 4
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
    timed_out: bool  # killed at its time limit (not stopped earlier because the process beside it failed)
    stdout: bytes  # the last STDOUT_LIMIT bytes
    stdout_size: int  # all the bytes written to stdout, kept or not
    stderr: str  # the last STDERR_LIMIT bytes
    strays: int | None = None  # processes still running after the trial exited (killed); None: unknown
    limit_hit: str = ""  # the resource limit that stopped the trial, or ''
    beside: "Exit | None" = None  # the process started beside the trial (Beside), if it was


def aslr_kept() -> bool:
    value = os.environ.get(ASLR_VARIABLE, "off")
    if value not in ("on", "off"):
        raise UserError(f"{ASLR_VARIABLE} is on or off, not {value!r}")
    return value == "on"


def conditions() -> str:
    """What every trial runs under, as the run's fingerprint records it."""
    return ", ".join([f"ASLR {'on' if aslr_kept() else 'off'}", *(f"{k}={v}" for k, v in FIXED_SEEDS.items())])


@dataclass(frozen=True)
class Beside:
    """A process the harness starts beside a trial, under the same custody,
    caps and deadline, once the trial says something for it: a served
    workload's load generator (docs/protocol.md, "Servers under load").
    relay(line, scratch) maps a line of the trial's stdout to the line to write
    to its stdin, or None for a line not meant for it. Its stdin closes when
    the trial exits; if it exits first, it failed, and the trial is stopped:
    what the trial waits for will not come. It finds the trial's scratch
    folder open on descriptor SCRATCH_FD, opened before the trial started: a
    folder the trial swaps for a link later is not the one it finds there.
    Its stdin starts with `opening`: a secret it must not get on its command
    line, which /proc shows to every process of the user."""

    argv: list[str]
    relay: Callable[[str, str], str | None]
    opening: bytes = b""


def run(
    argv: list[str],
    request: dict,
    timeout: float,
    caps: limits.Limits | None = None,
    beside: Beside | None = None,
    cpus: list[int] | None = None,
) -> Exit:
    """Run one trial with a fresh scratch directory and, unless caps is None,
    cgroups that hold it to them; both removed afterwards. Given cpus, the
    trial and all it starts run on those CPUs only (the process beside it
    does not: it is no part of what is measured). It waits for its
    turn on the machine: no other concbench's trial runs beside it. The
    process beside it, if any, gets cgroups of its own, and its exit is the
    trial's `beside`."""
    with machine_lock.trial_turn():
        return _run_alone(argv, request, timeout, caps, beside, cpus)


def _run_alone(
    argv: list[str],
    request: dict,
    timeout: float,
    caps: limits.Limits | None,
    beside: Beside | None,
    cpus: list[int] | None,
) -> Exit:
    name = f"{orphans.SCRATCH_PREFIX}{orphans.mark()}-{next(_trial_numbers)}"
    with contextlib.ExitStack() as cleanup:
        cgroups = {}
        for role, wanted in (("trial", True), ("beside", beside is not None)):
            if caps and wanted:
                # The mark stays the name's part before its last dash, as orphans.py reads it.
                confined = ",".join(map(str, cpus)) if cpus and role == "trial" else None
                cgroups[role] = limits.TrialCgroup(caps, name if role == "trial" else f"{name}.beside", confined)
                cleanup.callback(cgroups[role].close)
        scratch = cleanup.enter_context(
            tempfile.TemporaryDirectory(prefix=f"{orphans.SCRATCH_PREFIX}{orphans.mark()}-")
        )
        cleanup.callback(_unlink_if_link, scratch)  # before the directory's own removal
        folder = None
        if beside:
            folder = os.open(scratch, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
            cleanup.callback(os.close, folder)
        payload = json.dumps({**request, "scratch": scratch}).encode() + b"\n"
        procs = {role: group.procs_files for role, group in cgroups.items()}
        exits = _Watch(timeout, procs, beside, scratch, folder, cpus).run(argv, payload)
        hits = {role: group.limit_hit() for role, group in cgroups.items()}
    found = {role: dataclasses.replace(exit, limit_hit=hits.get(role, "")) for role, exit in exits.items()}
    return dataclasses.replace(found["trial"], beside=found.get("beside"))


def _unlink_if_link(scratch: str) -> None:
    """A trial that swapped its scratch for a link: the link goes, not what it points to."""
    if os.path.islink(scratch):
        os.unlink(scratch)


class _Process:
    """One trampoline and the child it runs: its pipes, what it wrote, when it exited."""

    def __init__(
        self,
        argv: list[str],
        payload: bytes,
        timeout: float,
        cgroups: list[str],
        keep_stdin: bool,
        folder: int | None,
        cpus: list[int] | None,
    ):
        trampoline = spawner.path()
        stdin_r, stdin_w = os.pipe()
        self.stdin: int | None = stdin_w  # None once closed
        self.stdout, stdout_w = os.pipe()
        self.stderr, stderr_w = os.pipe()
        self.report, report_w = os.pipe()
        options = ["-r", "3", "-t", str(max(1, round(timeout * 1000)))]
        options += [option for procs in cgroups for option in ("-c", procs)]
        options += ["-p", ",".join(map(str, cpus))] if cpus else []
        options += ["-a"] if aslr_kept() else []
        inherited = {name: value for name, value in os.environ.items() if name not in WITHHELD}
        environment = {**inherited, **FIXED_SEEDS, orphans.VARIABLE: orphans.mark()}
        self.start = time.monotonic_ns()
        try:
            self.pid = os.posix_spawn(
                trampoline,
                [trampoline, *options, *argv],
                environment,
                setpgroup=0,
                file_actions=[
                    (os.POSIX_SPAWN_DUP2, stdin_r, 0),
                    (os.POSIX_SPAWN_DUP2, stdout_w, 1),
                    (os.POSIX_SPAWN_DUP2, stderr_w, 2),
                    (os.POSIX_SPAWN_DUP2, report_w, 3),
                    *([(os.POSIX_SPAWN_DUP2, folder, SCRATCH_FD)] if folder is not None else []),
                ],
            )
        except BaseException:
            for fd in (self.stdin, self.stdout, self.stderr, self.report):
                os.close(fd)
            raise
        finally:
            for fd in (stdin_r, stdout_w, stderr_w, report_w):
                os.close(fd)
        self.pidfd = os.pidfd_open(self.pid)
        os.set_blocking(self.stdin, False)
        self.pending = bytearray(payload)
        self.keep_stdin = keep_stdin  # more to write later: close stdin only when told
        self.limits = {self.stdout: STDOUT_LIMIT, self.stderr: STDERR_LIMIT}
        self.output = {self.stdout: bytearray(), self.stderr: bytearray()}
        self.sizes = {self.stdout: 0, self.stderr: 0}
        self.exited_ns: int | None = None
        self.reaped = None

    def exit(self, stopped: bool, cut_short: bool) -> Exit:
        """What the trampoline reported, once the child is reaped; stopped: the
        harness killed it, cut_short: before its deadline (so not timed out)."""
        with os.fdopen(self.report, "rb") as report:
            fields = report.read().split()
        if len(fields) == 8:
            status, user_us, sys_us, maxrss_kb, voluntary, involuntary, timed_out, strays = map(int, fields)
        else:  # the spawner itself was killed: no figures
            status, timed_out = self.reaped[1], stopped
            user_us = sys_us = maxrss_kb = voluntary = involuntary = strays = None
        return Exit(
            wall_ns=(self.exited_ns or time.monotonic_ns()) - self.start,
            user_ns=None if user_us is None else user_us * 1000,
            sys_ns=None if sys_us is None else sys_us * 1000,
            maxrss_kb=maxrss_kb,
            voluntary_switches=voluntary,
            involuntary_switches=involuntary,
            exit_code=os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
            signal=os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
            timed_out=bool(timed_out or stopped) and not cut_short,
            stdout=bytes(self.output[self.stdout]),
            stdout_size=self.sizes[self.stdout],
            stderr=self.output[self.stderr].decode(errors="replace"),
            strays=strays,
        )

    def kill_group(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGKILL)

    def stop(self, alive: bool) -> None:
        """Ask the spawner to kill the trial and what it started; kill it if it cannot."""
        if alive:
            os.kill(self.pid, signal.SIGTERM)
            if not select.select([self.pidfd], [], [], STOP_GRACE_S)[0]:
                self.kill_group()


class _Watch:
    """Feeds each process its input and collects its output until every
    spawner has exited and every pipe is closed, sleeping in epoll between
    events. The trial's stdout lines that the process beside it takes are
    relayed to it as they come; the first starts it."""

    def __init__(
        self,
        timeout: float,
        cgroups: dict[str, list[str]],
        beside: Beside | None,
        scratch: str,
        folder: int | None,
        cpus: list[int] | None,
    ):
        self.timeout = timeout
        self.cpus = cpus
        self.cgroups = cgroups
        self.beside = beside
        self.scratch = scratch
        self.folder = folder
        self.processes: dict[str, _Process] = {}
        self.roles: dict[int, tuple[str, str]] = {}  # fd: (role, which pipe)
        self.selector = selectors.DefaultSelector()
        self.line = bytearray()  # the trial's stdout line being written
        self.overlong = False  # that line is too long to be relayed
        self.stopped = set()
        self.cut_short = set()  # stopped before the deadline

    def run(self, argv: list[str], payload: bytes) -> dict[str, Exit]:
        start = time.monotonic_ns()
        self.deadline_ns = start + int(self.timeout * 1e9)
        try:
            self._start("trial", argv, payload, self.timeout, keep_stdin=False)
            self._until_done(self.deadline_ns + BACKSTOP_NS)
        finally:
            self._close()  # on Ctrl-C too: each spawner cleans up, then is reaped
        return {
            role: process.exit(role in self.stopped, role in self.cut_short) for role, process in self.processes.items()
        }

    def _start(self, role: str, argv: list[str], payload: bytes, timeout: float, keep_stdin: bool) -> None:
        folder, cpus = (self.folder, None) if role == "beside" else (None, self.cpus)
        process = _Process(argv, payload, timeout, self.cgroups.get(role, []), keep_stdin, folder, cpus)
        self.processes[role] = process
        for fd, which in ((process.stdout, "stdout"), (process.stderr, "stderr"), (process.pidfd, "pidfd")):
            self.roles[fd] = (role, which)
            self.selector.register(fd, selectors.EVENT_READ)
        self.roles[process.stdin] = (role, "stdin")
        if payload:  # else it is registered once a line is relayed to it
            self.selector.register(process.stdin, selectors.EVENT_WRITE)

    def _until_done(self, backstop_ns: int) -> None:
        limit_ns = backstop_ns
        while self.selector.get_map():
            now = time.monotonic_ns()
            if limit_ns is not None and now >= limit_ns:
                if all(p.exited_ns is not None for p in self.processes.values()):
                    break  # something that escaped every kill still holds a pipe
                self._kill_all()  # then wait for the pidfds, however long it takes
                limit_ns = None
            wait = None if limit_ns is None else (limit_ns - now) / 1e9
            for key, _ in self.selector.select(wait):
                # An earlier event of the batch may have closed the fd, and
                # a pipe started since may have its number.
                if self.selector.get_map().get(key.fd) is key:
                    self._event(*self.roles[key.fd], key.fd)
            if all(p.exited_ns is not None for p in self.processes.values()) and limit_ns is not None:
                limit_ns = min(limit_ns, max(p.exited_ns for p in self.processes.values()) + DRAIN_GRACE_NS)

    def _event(self, role: str, which: str, fd: int) -> None:
        process = self.processes[role]
        if which == "pidfd":
            process.exited_ns = time.monotonic_ns()
            self._forget(fd)
            self._exited(role)
        elif which == "stdin":
            self._write(process)
        else:
            chunk = self._read(process, fd)
            if role == "trial" and which == "stdout" and self.beside:
                self._relay(chunk)

    def _exited(self, role: str) -> None:
        """The trial gone, the input of the process beside it ends; that
        process gone first, it failed, and the trial is stopped. Past the
        deadline, the trial was killed at it (the process beside it saw its
        connections reset): it timed out, whichever exit was seen first."""
        other = self.processes.get("beside" if role == "trial" else "trial")
        if other is None or other.exited_ns is not None:
            return
        if role == "trial":
            other.keep_stdin = False
            if not other.pending:
                self._close_stdin(other)
        else:
            self.stopped.add("trial")
            if time.monotonic_ns() < self.deadline_ns:
                self.cut_short.add("trial")
            other.stop(alive=True)

    def _relay(self, chunk: bytes) -> None:
        """Hands the process beside each complete line it takes. Only a line
        as short as a relayed one can be is looked at: of a longer one, the
        harness keeps nothing until its end."""
        *complete, rest = (self.line + chunk).split(b"\n")
        for index, line in enumerate(complete):
            if not (index == 0 and self.overlong) and len(line) <= RELAYED_LINE_LIMIT:
                self._relay_line(line.decode(errors="replace"))
        self.overlong = (self.overlong and not complete) or len(rest) > RELAYED_LINE_LIMIT
        self.line = bytearray() if self.overlong else rest

    def _relay_line(self, line: str) -> None:
        text = self.beside.relay(line, self.scratch)
        if text is None:
            return
        process = self.processes.get("beside")
        if process is None:
            remaining = (self.deadline_ns - time.monotonic_ns()) / 1e9
            self._start("beside", self.beside.argv, self.beside.opening, max(remaining, 0.01), keep_stdin=True)
            process = self.processes["beside"]
        if process.stdin is not None:
            if not process.pending:
                self.selector.register(process.stdin, selectors.EVENT_WRITE)
            process.pending += text.encode() + b"\n"

    def _read(self, process: _Process, fd: int) -> bytes:
        chunk = os.read(fd, READ_CHUNK)
        if not chunk:
            self._forget(fd)
            return chunk
        process.sizes[fd] += len(chunk)
        buffer = process.output[fd]
        buffer += chunk
        del buffer[: -process.limits[fd]]
        return chunk

    def _write(self, process: _Process) -> None:
        try:
            written = os.write(process.stdin, process.pending)
        except BrokenPipeError:  # the child did not read its input: its answer says why
            written = len(process.pending)
        del process.pending[:written]
        if not process.pending:
            if process.keep_stdin:
                self.selector.unregister(process.stdin)
            else:
                self._close_stdin(process)

    def _close_stdin(self, process: _Process) -> None:
        # Known closed by None, not by its number: a later pipe may have it.
        if process.stdin is not None:
            if process.stdin in self.selector.get_map():
                self.selector.unregister(process.stdin)
            del self.roles[process.stdin]
            os.close(process.stdin)
            process.stdin = None

    def _forget(self, fd: int) -> None:
        self.selector.unregister(fd)
        del self.roles[fd]
        os.close(fd)

    def _kill_all(self) -> None:
        for role, process in self.processes.items():
            if process.exited_ns is None:
                self.stopped.add(role)
                process.kill_group()

    def _close(self) -> None:
        for process in self.processes.values():
            if process.reaped is None:
                process.stop(alive=process.exited_ns is None)
                process.reaped = os.wait4(process.pid, 0)
            self._close_stdin(process)
        for fd in list(self.roles):
            if fd in self.selector.get_map():
                self.selector.unregister(fd)
            os.close(fd)
        self.roles.clear()
        self.selector.close()
