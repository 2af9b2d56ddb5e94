"""The Ruby runtime's io_uring fiber scheduler (issue 15), tested on its own
by its minitest file: pipes and sockets of every size, partial reads, EOF, a
closed descriptor, sleeps, Mutex, Queue and ConditionVariable handoffs, an
unblock from another thread, a fiber that raises, and 10,000 fibers on 100
pipes with every byte checked."""

import subprocess

from conftest import ROOT

RUBY = ROOT / "runtimes" / "ruby"


def test_the_uring_scheduler_passes_its_own_tests():
    subprocess.run(["make", "-s", "-C", str(RUBY)], check=True, capture_output=True)
    assert (RUBY / "build" / "concbench_ring.so").exists(), "the extension was not built: apt-get install ruby-dev"
    done = subprocess.run(
        ["ruby", str(RUBY / "test" / "uring_scheduler_test.rb")], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert " 0 failures, 0 errors" in done.stdout
