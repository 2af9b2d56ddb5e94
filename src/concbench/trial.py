"""One trial: a fresh child process, its request, its output and its cost.

The harness sleeps in epoll on the child's pipes and a pidfd while the child
runs, so it uses no CPU beside the measurement. The child is started by a
small trampoline (spawner/spawn.c) that reaps it with wait4 and reports its
CPU time and peak RSS: spawned from Python directly, the child's peak RSS
would include the harness's own. The whole process group is killed at the
timeout and after the trial exits, so nothing a trial started outlives it."""

import json
import os
import selectors
import signal
import tempfile
import time
from dataclasses import dataclass

from . import spawner

STDOUT_LIMIT = 1 << 20
STDERR_LIMIT = 64 << 10
READ_CHUNK = 1 << 16
DRAIN_GRACE_NS = 2_000_000_000


@dataclass(frozen=True)
class Exit:
    """What the operating system says about a finished child."""
    wall_ns: int          # from spawn to exit, seen by the harness
    user_ns: int | None   # wait4 of the trial process (None if it was killed with the spawner)
    sys_ns: int | None
    maxrss_kb: int | None  # the largest single process of the tree
    # Context switches of the trial and the children it waited for (wait4):
    # voluntary ones are waits (a lock, a queue, I/O), involuntary ones preemption.
    voluntary_switches: int | None
    involuntary_switches: int | None
    exit_code: int | None
    signal: int | None
    timed_out: bool
    stdout: bytes         # the last STDOUT_LIMIT bytes
    stderr: str           # the last STDERR_LIMIT bytes


def run(argv: list[str], request: dict, timeout: float) -> Exit:
    """Run one trial with a fresh scratch directory, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="concbench-trial-") as scratch:
        payload = json.dumps({**request, "scratch": scratch}).encode() + b"\n"
        return _run_process(argv, payload, timeout)


def _run_process(argv: list[str], payload: bytes, timeout: float) -> Exit:
    trampoline = spawner.path()
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    stderr_r, stderr_w = os.pipe()
    report_r, report_w = os.pipe()
    start = time.monotonic_ns()
    try:
        pid = os.posix_spawn(trampoline, [trampoline, "3", *argv], os.environ, setpgroup=0,
                             file_actions=[(os.POSIX_SPAWN_DUP2, stdin_r, 0),
                                           (os.POSIX_SPAWN_DUP2, stdout_w, 1),
                                           (os.POSIX_SPAWN_DUP2, stderr_w, 2),
                                           (os.POSIX_SPAWN_DUP2, report_w, 3)])
    finally:
        for fd in (stdin_r, stdout_w, stderr_w, report_w):
            os.close(fd)
    watch = _Watch(pid, stdin_w, stdout_r, stderr_r, payload)
    try:
        timed_out, exited_ns = watch.until_done(start + int(timeout * 1e9))
    finally:
        watch.close()  # on Ctrl-C too: kill the group, reap the child
        with os.fdopen(report_r, "rb") as report:
            fields = report.read().split()
    status, user_us, sys_us, maxrss_kb, voluntary, involuntary = map(int, fields) if len(fields) == 6 else (
        watch.reaped[1], None, None, None, None, None)  # the spawner itself was killed: no figures
    return Exit(
        wall_ns=exited_ns - start,
        user_ns=None if user_us is None else user_us * 1000,
        sys_ns=None if sys_us is None else sys_us * 1000,
        maxrss_kb=maxrss_kb,
        voluntary_switches=voluntary,
        involuntary_switches=involuntary,
        exit_code=os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
        signal=os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
        timed_out=timed_out,
        stdout=bytes(watch.output[stdout_r]),
        stderr=watch.output[stderr_r].decode(errors="replace"),
    )


class _Watch:
    """Feeds the child its request and collects its output until it exits and
    every pipe is closed, sleeping in epoll between events."""

    def __init__(self, pid: int, stdin: int, stdout: int, stderr: int, payload: bytes):
        self.pid = pid
        self.pidfd = os.pidfd_open(pid)
        self.pending = memoryview(payload)
        self.limits = {stdout: STDOUT_LIMIT, stderr: STDERR_LIMIT}
        self.output = {stdout: bytearray(), stderr: bytearray()}
        self.reaped = None
        self.selector = selectors.DefaultSelector()
        for fd in (stdout, stderr, self.pidfd):
            self.selector.register(fd, selectors.EVENT_READ)
        os.set_blocking(stdin, False)
        self.selector.register(stdin, selectors.EVENT_WRITE)

    def until_done(self, deadline_ns: int) -> tuple[bool, int]:
        timed_out, exited_ns, limit_ns = False, None, deadline_ns
        while self.selector.get_map():
            now = time.monotonic_ns()
            if limit_ns is not None and now >= limit_ns:
                if exited_ns is not None:
                    break  # something that left the process group still holds a pipe
                timed_out, limit_ns = True, None
                self._kill_group()  # then wait for the pidfd, however long it takes
            wait = None if limit_ns is None else (limit_ns - now) / 1e9
            for key, _ in self.selector.select(wait):
                if key.fd == self.pidfd:
                    exited_ns = time.monotonic_ns()
                    limit_ns = exited_ns + DRAIN_GRACE_NS
                    self._forget(key.fd)
                    self._kill_group()  # stragglers would hold the pipes open
                elif key.fd in self.output:
                    self._read(key.fd)
                else:
                    self._write(key.fd)
        return timed_out, exited_ns

    def _read(self, fd: int) -> None:
        chunk = os.read(fd, READ_CHUNK)
        if not chunk:
            self._forget(fd)
            return
        buffer = self.output[fd]
        buffer += chunk
        del buffer[:-self.limits[fd]]

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
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def close(self) -> None:
        if self.reaped is None:
            self._kill_group()
            self.reaped = os.wait4(self.pid, 0)
        for key in list(self.selector.get_map().values()):
            self._forget(key.fd)
        self.selector.close()
