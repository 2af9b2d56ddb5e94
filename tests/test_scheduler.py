"""The Ruby runtime's fiber scheduler (issues 15 and 34), on io_uring (its
core in C) and on epoll, tested on its own by its minitest file on each Ruby
built here: pipes and sockets of every size, partial reads, EOF, a closed
descriptor, sleeps, timeouts, Mutex, Queue and ConditionVariable handoffs,
an unblock from another thread, a fiber that raises, a close with fibers
waiting, a deadlock, positioned reads and writes, the direct path with the
core's own Mutex and Queue, 10,000 fibers on 100 pipes with every byte
checked, and the C loop's own cases: a fiber resumed by something else,
buffers and fibers held by nothing but the ring, a completion for a closed
descriptor, and pipes under GC.stress."""

import ctypes
import os
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, concbench

RUBY = ROOT / "runtimes" / "ruby"


def rubies():
    """Ruby 3.1 (Debian's `ruby`), and Ruby 3.4 where it has been built: the
    interpreter CONCBENCH_RUBY34 names, else the ruby34 runtime's link."""
    found = [pytest.param("ruby", id="3.1")]
    ruby34 = os.environ.get("CONCBENCH_RUBY34") or ROOT / "runtimes" / "ruby34" / "build" / "ruby"
    if Path(ruby34).exists():
        found.append(pytest.param(str(Path(ruby34).resolve()), id="3.4"))
    return found


@pytest.mark.parametrize("ruby", rubies())
def test_the_scheduler_passes_its_own_tests_on_both_back_ends(ruby):
    subprocess.run(["make", "-s", "-C", str(RUBY), f"RUBY={ruby}"], check=True, capture_output=True)
    version = subprocess.run([ruby, "-e", "print RbConfig::CONFIG['ruby_version']"], capture_output=True, text=True)
    assert (RUBY / "build" / version.stdout / "concbench_events.so").exists(), (
        "the extension was not built: apt-get install ruby-dev"
    )
    done = subprocess.run([ruby, str(RUBY / "test" / "scheduler_test.rb")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert " 0 failures, 0 errors" in done.stdout


class SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(SockFilter))]


IO_URING_SETUP = 425  # the system call's number on x86-64 and arm64 alike
ENOSYS = 38
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2


def without_io_uring():
    """In the child: io_uring_setup(2) fails with ENOSYS, as on a kernel built
    without io_uring, for the process and all it starts (a seccomp filter)."""
    load_number, jump_if_equal, give = 0x20, 0x15, 0x06
    errno, allow = 0x00050000, 0x7FFF0000
    program = (SockFilter * 4)(
        (load_number, 0, 0, 0),
        (jump_if_equal, 0, 1, IO_URING_SETUP),
        (give, 0, 0, errno | ENOSYS),
        (give, 0, 0, allow),
    )
    libc = ctypes.CDLL(None, use_errno=True)
    fprog = ctypes.byref(SockFprog(len(program), program))
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) or libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, fprog, 0, 0):
        os._exit(90)


def test_without_io_uring_the_uring_rows_are_unavailable_and_epoll_still_runs(tmp_path):
    done = concbench(
        "run", "-r", "ruby", "-m", "uring,epoll,uring_direct", "-w", "pipe", "--profile", "smoke",
        "--db", tmp_path / "db", preexec_fn=without_io_uring,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    for row in ("ruby/uring ", "ruby/uring_direct "):
        assert f"{row.strip()} is unusable: Function not implemented - io_uring_queue_init" in done.stdout, row
    verified = [line for line in done.stdout.splitlines() if line.startswith("ruby/epoll ") and "1/1" in line]
    assert verified, done.stdout
