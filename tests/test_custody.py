"""Through the command line: nothing a trial starts outlives it or its
harness, and the caps on a trial's memory and processes stop a runaway with
a status that says so, without breaking runtimes that reserve address space."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import assert_one_line_error, concbench

from concbench import limits, orphans

needs_cgroups = pytest.mark.skipif(
    any(isinstance(c, str) for c in limits.controllers().values()),
    reason=f"no writable cgroups here: {limits.controllers()}",
)


class OwnCgroups:
    """Cgroups of one test's own, one for each limit where cgroups can be
    made, which the harnesses it starts join first: their trials' cgroups are
    made inside them, where another concbench beside this test (pytest -n 2
    runs another file at once), sweeping what dead harnesses left in its own
    cgroup, neither takes what this test's dead harness left before this
    test's run can, nor leaves its own for that run to find."""

    def __init__(self, name: str):
        found = [c for c in limits.controllers().values() if not isinstance(c, str)]
        self.folders = list(dict.fromkeys(c.parent / name for c in found))
        for folder in self.folders:
            folder.mkdir()
        for c in found:  # a v1 cpuset takes no process until it has CPUs and memory nodes
            if c.kind == "cpuset" and c.version == 1:
                for setting in ("cpuset.cpus", "cpuset.mems"):
                    (c.parent / name / setting).write_text((c.parent / setting).read_text())

    def join(self) -> None:
        """In the harness's process, before it runs (preexec_fn)."""
        for folder in self.folders:
            (folder / "cgroup.procs").write_text(str(os.getpid()))

    def trials(self) -> list[Path]:
        return [trial for folder in self.folders for trial in folder.glob(f"{orphans.SCRATCH_PREFIX}*")]

    def remove(self) -> None:
        for folder in [*self.trials(), *self.folders]:
            limits.remove(folder)


@pytest.fixture
def own_cgroups():
    cgroups = OwnCgroups(f"concbench-tests-{os.getpid()}")
    yield cgroups
    cgroups.remove()


def records(env) -> list[dict]:
    return [json.loads(line) for line in concbench("show", "--json", env=env).stdout.splitlines()]


def stored_request(env) -> dict:
    return json.loads(concbench("report", "--format", "json", env=env).stdout)["run"]["request"]


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def pid_when_written(path: Path, timeout: float = 20) -> int:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} was never written"
        time.sleep(0.02)
    return int(path.read_text())


def test_a_trial_that_leaves_a_process_running_is_stray_and_the_process_is_killed(fake_env, tmp_path):
    env = {**fake_env, "FAKE_PIDS": str(tmp_path / "pids")}
    done = concbench("run", "-w", "triangle", "-m", "escaper", "--profile", "smoke", env=env)
    assert done.returncode == 1
    assert "fake/escaper trial 1: STRAY: left 1 process running when it exited (killed)" in done.stdout
    (record,) = records(env)
    assert record["status"] == "stray" and record["process"]["strays"] == 1
    assert not alive(pid_when_written(tmp_path / "pids"))


def test_a_helper_that_exits_by_itself_just_after_the_trial_is_no_stray(fake_env):
    assert concbench("run", "-w", "triangle", "-m", "winder", "--profile", "smoke", env=fake_env).returncode == 0
    assert records(fake_env)[0]["process"]["strays"] == 0


def test_an_honest_trial_has_no_strays(fake_env):
    assert concbench("run", "-w", "triangle", "-m", "honest", "--profile", "smoke", env=fake_env).returncode == 0
    assert records(fake_env)[0]["process"]["strays"] == 0


def test_a_timed_out_trial_takes_what_left_its_session_with_it(fake_env, tmp_path):
    env = {**fake_env, "FAKE_PIDS": str(tmp_path / "pids")}
    concbench("run", "-w", "triangle", "-m", "hang", "--profile", "smoke", "--timeout", "1", env=env)
    assert records(env)[0]["status"] == "timeout"
    assert not alive(pid_when_written(tmp_path / "pids"))


def test_a_harness_killed_with_its_spawner_is_cleaned_up_after_by_the_next_run(fake_env, tmp_path, own_cgroups):
    """The worst case: the harness and the spawner SIGKILLed at once, so that no
    one is left to clean up. The trial dies with its spawner; what left its
    session, its scratch directory and its cgroups go at the next run."""
    pids, scratch = tmp_path / "pids", tmp_path / "tmp"
    scratch.mkdir()
    env = {**fake_env, "FAKE_PIDS": str(pids), "TMPDIR": str(scratch)}
    harness = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "concbench",
            "run",
            "-w",
            "triangle",
            "-m",
            "hang",
            "--profile",
            "smoke",
            "--timeout",
            "3",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=own_cgroups.join,
    )
    orphan = pid_when_written(pids)
    spawner = int(Path(f"/proc/{orphan}/stat").read_text().rsplit(")", 1)[1].split()[1])  # its reaper
    os.kill(spawner, signal.SIGSTOP)  # so that it cannot clean up when the harness dies
    harness.kill()
    harness.wait()
    os.kill(spawner, signal.SIGKILL)
    time.sleep(0.2)
    assert alive(orphan) and len(list(scratch.iterdir())) == 1
    capped = [f for f in own_cgroups.folders if "cpuset" not in f.parts]  # unconfined: no cpuset of its own
    assert len(own_cgroups.trials()) == len(capped)  # its trial's, one for each limit
    pids.unlink()

    done = concbench("run", "--resume", env=env, preexec_fn=own_cgroups.join)
    assert "cleaned up after a concbench that died mid-trial: 1 process" in done.stdout, done.stdout
    assert "1 scratch directory" in done.stdout
    assert not alive(orphan) and not list(scratch.iterdir()) and not own_cgroups.trials()
    assert records(env)[0]["status"] == "timeout"  # and the run finished
    assert not alive(pid_when_written(pids))


def test_a_dead_harness_mark_in_concbench_environment_kills_only_what_that_harness_left(
    fake_env, tmp_path, own_cgroups
):
    """A mark copied into an environment (a concbench started inside a trial,
    a user's copied shell): pid 0, which is no process, is a dead harness.
    Nothing counts as its leftover unless it left a scratch directory (or a
    cgroup), and a concbench never kills itself or what it runs under."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**fake_env, "CONCBENCH_HARNESS": "0.0", "TMPDIR": str(scratch)}  # test_trial's dead one is 1.0
    bystander = subprocess.Popen(["sleep", "60"], env=env)
    try:
        done = concbench(
            "run", "-w", "triangle", "-m", "honest", "--profile", "smoke", env=env, preexec_fn=own_cgroups.join
        )
        assert done.returncode == 0, done.stderr
        assert "cleaned up" not in done.stdout and alive(bystander.pid)

        (scratch / "concbench-trial-0.0-abcdefgh").mkdir()  # that harness did die mid-trial here
        done = concbench(
            "run", "-w", "triangle", "-m", "honest", "--profile", "smoke", env=env, preexec_fn=own_cgroups.join
        )
        assert done.returncode == 0, done.stderr  # itself spared; the bystander was that harness's
        assert "cleaned up after a concbench that died mid-trial: 1 process, 1 scratch directory" in done.stdout
    finally:
        bystander.kill()


@needs_cgroups
def test_a_runaway_stops_at_the_memory_limit_with_a_status_that_says_so(fake_env):
    env = {**fake_env, "FAKE_MIB": "400"}
    done = concbench("run", "-w", "triangle", "-m", "hog", "--profile", "smoke", "--memory-limit", "200M", env=env)
    assert done.returncode == 1
    assert (
        "fake/hog trial 1: LIMIT: the kernel stopped it at the memory cap of 200 MiB (an OOM kill in its cgroup)"
    ) in done.stdout
    assert records(env)[0]["status"] == "limit"
    assert stored_request(env)["memory_limit"] == 200 << 20


@needs_cgroups
def test_a_go_like_reservation_of_64_gib_runs_under_a_300_mib_limit(fake_env):
    done = concbench(
        "run", "-w", "triangle", "-m", "reserve", "--profile", "smoke", "--memory-limit", "300MiB", env=fake_env
    )
    assert done.returncode == 0, done.stdout
    assert records(fake_env)[0]["process"]["maxrss_kb"] > 100_000


@needs_cgroups
def test_a_fork_past_the_process_limit_stops_the_trial_with_a_status_that_says_so(fake_env):
    env = {**fake_env, "FAKE_CHILDREN": "40"}
    done = concbench("run", "-w", "triangle", "-m", "forks", "--profile", "smoke", "--process-limit", "16", env=env)
    assert (
        "fake/forks trial 1: LIMIT: a fork or thread was refused at the cap of 16 processes and threads" in done.stdout
    )
    assert stored_request(env)["process_limit"] == 16


def test_limits_are_on_by_default_recorded_with_the_run_and_can_be_turned_off(fake_env):
    concbench("run", "-w", "triangle", "-m", "honest", "--profile", "smoke", env=fake_env)
    request = stored_request(fake_env)
    assert request["memory_limit"] == limits.default_memory_bytes()
    assert request["process_limit"] == limits.DEFAULT_TASKS
    concbench(
        "run",
        "-w",
        "triangle",
        "-m",
        "honest",
        "--profile",
        "smoke",
        "--memory-limit",
        "off",
        "--process-limit",
        "off",
        env=fake_env,
    )
    request = stored_request(fake_env)
    assert request["memory_limit"] == 0 and request["process_limit"] == 0
    shown = concbench("show", env=fake_env).stdout
    assert "no memory cap, no process cap per trial" in shown


@pytest.mark.parametrize(
    "args",
    [
        ["--memory-limit", "1K"],
        ["--memory-limit", "-5"],
        ["--memory-limit", "2X"],
        ["--memory-limit", "1.5G"],
        ["--memory-limit", "9999999T"],
        ["--process-limit", "3"],
        ["--process-limit", "10k"],
        ["--process-limit", ""],
    ],
)
def test_a_bad_limit_gets_one_line(fake_env, args):
    assert_one_line_error(concbench("run", *args, env=fake_env), args[0], "expected 'off' or")
