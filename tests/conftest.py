import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

# The smoke run's tests live in tests/smoke.py, which two test files import
# (its docstring says why): their asserts say what they compared, as a test
# file's do.
pytest.register_assert_rewrite("smoke")

ROOT = Path(__file__).resolve().parents[1]

# The tests press Ctrl-C by sending SIGINT to the concbench they start. A
# shell that starts a job in the background (make test &, a CI runner's
# step) ignores SIGINT in it, and an ignored signal stays ignored across
# exec: concbench would never see the Ctrl-C. A handler of our own is reset
# to the default at exec, so every command the tests start can be
# interrupted, as a user's would be.
signal.signal(signal.SIGINT, signal.default_int_handler)
FIXTURES = ROOT / "tests" / "fixtures"

# The tests' trials check results and measure nothing: the two test processes
# (pytest-xdist) run theirs side by side instead of a trial at a time (builds
# still take turns). The tests of taking turns remove this.
os.environ["CONCBENCH_TAKE_TURNS"] = "builds"


def concbench(*args, env=None, timeout=300, preexec_fn=None):
    """Run the real command line, as a user would (preexec_fn: what the
    machine is made to lack first, in the child)."""
    return subprocess.run(
        [sys.executable, "-m", "concbench", *map(str, args)],
        env=env,
        preexec_fn=preexec_fn,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def fake_env(tmp_path):
    """The environment of a user whose suite is the fake runtime and the triangle workload."""
    return {
        **os.environ,
        "CONCBENCH_BUILTINS": "off",
        "CONCBENCH_WORKLOADS": str(FIXTURES / "workloads"),
        "CONCBENCH_RUNTIMES": str(FIXTURES / "runtimes"),
        "CONCBENCH_DB": str(tmp_path / "test.db"),
    }


def assert_one_line_error(done, *fragments):
    assert done.returncode == 2, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("concbench: error: "), done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    for fragment in fragments:
        assert fragment in lines[0]
