"""The machine lock cannot be turned against the machine: what another user
plants in its place is refused in one line, never followed, changed or
waited on. Every test here uses a lock folder of its own, or a private
mount namespace whose /run is empty, never the live lock."""

import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, assert_one_line_error, concbench

from concbench import machine_lock, runtimes
from concbench.errors import UserError

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="root's lock: the tests run as root in CI")
NOBODY = 65534


@pytest.fixture
def shared(tmp_path, monkeypatch):
    folder = tmp_path / "run" / "concbench"
    monkeypatch.setattr(machine_lock, "SHARED", folder)
    return folder


def without_taking_turns(env):
    """env, its trials taking turns as a user's do (conftest lets them not)."""
    return {k: v for k, v in env.items() if k != machine_lock.TAKE_TURNS}


def take_turn():
    with machine_lock.machine_turn():
        pass


def take_turn_when(told: threading.Event):
    def waiting_for_it():
        with machine_lock.machine_turn(told.set):
            pass

    return waiting_for_it


@as_root
def test_root_makes_its_lock_readable_by_all_and_writable_by_none_else(shared):
    take_turn()
    lock = shared / machine_lock.LOCK_NAME
    assert stat.S_IMODE(lock.stat().st_mode) == 0o644 and lock.stat().st_uid == 0
    assert stat.S_IMODE(shared.stat().st_mode) == 0o755
    take_turn()  # and takes it again


@as_root
def test_a_link_planted_at_the_lock_is_refused_and_its_target_left_alone(shared, tmp_path):
    shadow = tmp_path / "shadow"
    shadow.write_text("secret")
    shadow.chmod(0o600)
    shared.mkdir(parents=True)
    (shared / machine_lock.LOCK_NAME).symlink_to(shadow)
    with pytest.raises(UserError, match="symbolic link"):
        take_turn()
    assert stat.S_IMODE(shadow.stat().st_mode) == 0o600


@as_root
def test_a_dangling_link_creates_nothing_where_it_points(shared, tmp_path):
    shared.mkdir(parents=True)
    (shared / machine_lock.LOCK_NAME).symlink_to(tmp_path / "made-by-root")
    with pytest.raises(UserError, match="symbolic link"):
        take_turn()
    assert not (tmp_path / "made-by-root").exists()


@as_root
def test_a_fifo_at_the_lock_is_refused_at_once(shared):
    shared.mkdir(parents=True)
    os.mkfifo(shared / machine_lock.LOCK_NAME)
    with pytest.raises(UserError, match="not a regular file"):
        take_turn()


@as_root
def test_a_folder_at_the_lock_is_refused(shared):
    (shared / machine_lock.LOCK_NAME).mkdir(parents=True)
    with pytest.raises(UserError, match="machine lock .* directory"):
        take_turn()


@as_root
def test_a_lock_folder_another_user_owns_or_can_write_is_refused(shared):
    shared.mkdir(parents=True)
    os.chown(shared, NOBODY, NOBODY)
    with pytest.raises(UserError, match=f"owned by uid {NOBODY}"):
        take_turn()
    os.chown(shared, 0, 0)
    shared.chmod(0o777)
    with pytest.raises(UserError, match="writable by others"):
        take_turn()


@as_root
def test_a_lock_file_another_user_owns_is_refused(shared):
    shared.mkdir(parents=True)
    (shared / machine_lock.LOCK_NAME).touch()
    os.chown(shared / machine_lock.LOCK_NAME, NOBODY, NOBODY)
    with pytest.raises(UserError, match=f"owned by uid {NOBODY}"):
        take_turn()


def test_without_roots_folder_a_user_takes_turns_in_a_private_one(shared, tmp_path, monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: os.getuid() + 1 if os.getuid() == 0 else os.getuid())
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "runtime"))
    (tmp_path / "runtime").mkdir(mode=0o700)
    assert machine_lock.lock_path() == tmp_path / "runtime" / "concbench" / machine_lock.LOCK_NAME


@as_root
def test_another_user_takes_turns_by_roots_lock_without_writing_to_it(monkeypatch):
    """flock needs no write access: a user's concbench waits for root's trial."""
    shared = Path(tempfile.mkdtemp()) / "concbench"  # where another user can reach it
    shared.parent.chmod(0o755)
    monkeypatch.setattr(machine_lock, "SHARED", shared)
    take_turn()
    go, going = os.pipe()
    told, said = os.pipe()
    user = os.fork()  # before the turn is taken: a child would hold it too
    if user == 0:  # as nobody, with this interpreter's modules (it cannot read root's)
        os.setgid(NOBODY)
        os.setuid(NOBODY)
        os.read(go, 1)
        with machine_lock.machine_turn(lambda: os.write(said, b"waiting ")):
            os.write(said, f"took {machine_lock.lock_path()}".encode())
        os._exit(0)
    with machine_lock.machine_turn():
        os.write(going, b"!")
        assert os.read(told, 100) == b"waiting "
    _, status = os.waitpid(user, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert os.read(told, 1000).decode() == f"took {shared / machine_lock.LOCK_NAME}"
    shutil.rmtree(shared.parent)


def test_a_turn_held_by_another_process_is_waited_for(shared, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    told = threading.Event()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from concbench import machine_lock; "
            f"machine_lock.SHARED = Path({str(shared)!r}); "
            "held = machine_lock.machine_turn(); held.__enter__(); print('held', flush=True); sys.stdin.read()",
        ],
        env={**os.environ, "PYTHONPATH": str(ROOT / "src"), "XDG_RUNTIME_DIR": str(tmp_path)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline().strip() == "held"
    waiter = threading.Thread(target=take_turn_when(told))
    waiter.start()
    assert told.wait(timeout=30)
    holder.stdin.close()
    waiter.join(timeout=30)
    assert not waiter.is_alive()


def test_a_build_takes_the_machines_turn_whoever_asks_for_it(shared, tmp_path, monkeypatch):
    """doctor's builds too, not only a run's: two builds of one kit at once would
    break each other's files, and a build beside a trial would measure in it."""
    shutil.copytree(FIXTURES / "runtimes" / "fake", tmp_path / "fake")
    manifest = tmp_path / "fake" / "runtime.toml"
    manifest.write_text('build = ["true"]\n' + manifest.read_text())
    held = []
    monkeypatch.setattr(runtimes, "_in_own_group", lambda argv, timeout: held.append(machine_lock._held) or (0, ""))
    runtimes.load_all([tmp_path / "fake"])["fake"].build()
    assert held == [True] and not machine_lock._held


@pytest.mark.skipif(not shutil.which("unshare") or os.geteuid() != 0, reason="needs unshare and root")
def test_a_run_beside_a_planted_link_says_so_in_one_line(fake_env, tmp_path):
    """The live path, in a mount namespace of the test's own whose /run is empty."""
    target = tmp_path / "sudoers"
    target.write_text("root ALL=(ALL) ALL\n")
    target.chmod(0o440)
    plant = (
        'mount -t tmpfs none /run && mkdir -m 755 /run/concbench && ln -s "$0" /run/concbench/machine.lock && exec "$@"'
    )
    done = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", plant, str(target)]
        + [sys.executable, "-m", "concbench", "run", "--profile", "smoke"],
        env=without_taking_turns(fake_env),
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert_one_line_error(done, "machine lock", "symbolic link")
    assert stat.S_IMODE(target.stat().st_mode) == 0o440


def test_time_waiting_for_the_turn_is_not_on_the_own_clock(shared, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    told = threading.Event()
    with machine_lock.machine_turn():
        waiter = threading.Thread(target=take_turn_when(told))
        own, wall = machine_lock.own_clock_ns(), time.monotonic_ns()
        machine_lock._held = False  # the waiter is another concbench
        waiter.start()
        assert told.wait(timeout=30)
        time.sleep(1)
    waiter.join(timeout=30)
    waited = (time.monotonic_ns() - wall) - (machine_lock.own_clock_ns() - own)
    assert waited >= 1e9


# Holds the live lock of a mount namespace of its own (its /run empty) for 3 s,
# while the run it starts has a budget of 1 s.
HOLD_THE_TURN = """
import subprocess, sys, threading
subprocess.run(["mount", "-t", "tmpfs", "none", "/run"], check=True)
from concbench import machine_lock
turn = machine_lock.machine_turn()
turn.__enter__()
threading.Timer(3, turn.__exit__, (None, None, None)).start()
done = subprocess.run([sys.executable, "-m", "concbench", *sys.argv[1:]], capture_output=True, text=True)
print(done.stdout, done.stderr, file=sys.stderr)
sys.exit(done.returncode)
"""


@pytest.mark.skipif(not shutil.which("unshare") or os.geteuid() != 0, reason="needs unshare and root")
def test_a_budget_is_not_spent_waiting_for_another_concbench(fake_env, tmp_path):
    """A short ab in CI, beside a long test that held the machine, once ended
    with no trial at all."""
    done = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", sys.executable, "-c", HOLD_THE_TURN]
        + ["run", "-w", "triangle", "-m", "honest", "--budget", "1s"],
        env={**without_taking_turns(fake_env), "PYTHONPATH": str(ROOT / "src")},
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    taken = re.search(r"(\d+) trials in ", done.stderr)
    assert taken and int(taken[1]) > 0, done.stderr


@pytest.mark.parametrize("value", ["build", "no", "Builds"])
def test_an_unknown_take_turns_setting_is_refused_not_read_as_the_default(fake_env, value):
    done = concbench("run", "-w", "triangle", env={**fake_env, machine_lock.TAKE_TURNS: value})
    assert_one_line_error(done, f"CONCBENCH_TAKE_TURNS={value!r}", "expected 'builds'")
    assert not Path(fake_env["CONCBENCH_DB"]).exists()
