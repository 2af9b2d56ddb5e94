"""The Ruby runtime's fiber scheduler (issue 15), on io_uring and on epoll,
tested on its own by its minitest file: pipes and sockets of every size,
partial reads, EOF, a closed descriptor, sleeps, timeouts, Mutex, Queue and
ConditionVariable handoffs, an unblock from another thread, a fiber that
raises, a close with fibers waiting, a deadlock, the direct path, and 10,000
fibers on 100 pipes with every byte checked."""

import subprocess

from conftest import ROOT

RUBY = ROOT / "runtimes" / "ruby"


def test_the_scheduler_passes_its_own_tests_on_both_back_ends():
    subprocess.run(["make", "-s", "-C", str(RUBY)], check=True, capture_output=True)
    assert (RUBY / "build" / "concbench_events.so").exists(), "the extension was not built: apt-get install ruby-dev"
    done = subprocess.run(
        ["ruby", str(RUBY / "test" / "scheduler_test.rb")], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert " 0 failures, 0 errors" in done.stdout
