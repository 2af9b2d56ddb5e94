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

import pytest
from conftest import ROOT, concbench

from concbench import runtimes

RUBY = ROOT / "runtimes" / "ruby"


def rubies():
    """Debian's Ruby, and every runtime that runs the Ruby kit on another
    CRuby (ruby34), where it is here; skipped with how to get it where not."""
    found = []
    for rt in runtimes.load_all().values():
        if rt.kit != RUBY or not rt.manifest.mechanisms.get("uring"):
            continue  # not the kit's, or a Ruby without the scheduler (JRuby)
        missing = None if rt.toolchain.ok else f"{rt.name} is not here ({rt.toolchain_hint})"
        found.append(pytest.param(rt.name, id=rt.name, marks=[pytest.mark.skip(reason=missing)] if missing else []))
    return found


@pytest.mark.parametrize("name", rubies())
def test_the_scheduler_passes_its_own_tests_on_both_back_ends(name):
    rt = runtimes.load_all()[name]
    rt.build()  # as a run builds it: in the machine's turn, never beside another build of the kit
    assert rt.build_error is None, rt.build_error
    ruby = rt.expand(["{interpreter}"])[0]
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
