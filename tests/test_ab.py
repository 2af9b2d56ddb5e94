"""concbench ab end to end: two versions in one run, each B trial beside an A
trial, a verdict per cell and an exit code for CI; with the fake runtime's
sleeper, whose runs take the time they report."""

import contextlib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import FIXTURES, assert_one_line_error, concbench

from concbench import paths, versions
from concbench.errors import UserError


def ab(env, *args, wall_ms=5, noise=0.02):
    return concbench(
        "ab",
        "-w",
        "triangle",
        "-m",
        "sleeper",
        *args,
        env={**env, "FAKE_WALL_NS": str(wall_ms * 1_000_000), "FAKE_NOISE": str(noise)},
    )


def rows(env) -> list[tuple[str, str, int]]:
    with sqlite3.connect(env["CONCBENCH_DB"]) as db:
        return db.execute("SELECT runtime, options, count(*) FROM trials GROUP BY runtime, options").fetchall()


def test_a_version_against_itself_is_no_change_and_each_side_has_rows_of_its_own(fake_env):
    done = ab(fake_env, "--trials", "8")
    assert done.returncode == 0, done.stderr
    assert "a: this checkout" in done.stdout and "b: this checkout" in done.stdout
    assert "A real" in done.stdout and "B real" in done.stdout
    line = next(line for line in done.stdout.splitlines() if line.startswith("fake/sleeper"))
    assert "slower" not in line and "faster" not in line
    found = {runtime: count for runtime, _, count in rows(fake_env)}
    assert set(found) == {"fake@a", "fake@b"} and found["fake@a"] == found["fake@b"] == 8
    with sqlite3.connect(fake_env["CONCBENCH_DB"]) as db:
        request = json.loads(db.execute("SELECT request FROM runs").fetchone()[0])
    assert request["ab"] == {"a": "this checkout", "b": "this checkout", "a_options": "", "b_options": ""}


def test_the_order_turns_round_every_other_pair(fake_env):
    assert ab(fake_env, "--trials", "6").returncode == 0
    with sqlite3.connect(fake_env["CONCBENCH_DB"]) as db:
        order = [runtime for (runtime,) in db.execute("SELECT runtime FROM trials ORDER BY id")]
    assert order[:6] == ["fake@a", "fake@b", "fake@b", "fake@a", "fake@a", "fake@b"]


def test_a_known_slowdown_is_called_slower_and_fails_the_ci_gate(fake_env):
    """B's option makes every run 20% longer: called slower, and exit 1 with
    --fail-on-regression 10."""
    done = ab(fake_env, "--b-option", "slower", "--trials", "8", "--fail-on-regression", "10")
    assert done.returncode == 1, done.stderr
    assert "slower: " in done.stdout
    assert "regression triangle n=100 fake/sleeper" in done.stdout
    assert {(runtime, options) for runtime, options, _ in rows(fake_env)} == {("fake", "[]"), ("fake", '["slower"]')}


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--b", "nonsense"], "--b 'nonsense': expected current, dir:PATH"),
        (["--a", "dir:/no/such/folder"], "/no/such/folder is not a folder"),
        (["--b", "git:no-such-revision"], "git rev-parse 'no-such-revision^{commit}' failed"),
        (["--b-option", "nosuch"], "unknown option"),
        (["-w", "nosuch"], "unknown workload"),
    ],
)
def test_bad_versions_are_one_line_errors(fake_env, args, fragment):
    assert_one_line_error(concbench("ab", *args, env=fake_env), fragment)


def test_an_ab_run_is_not_resumed_by_run(fake_env):
    assert ab(fake_env, "--trials", "6").returncode == 0
    with sqlite3.connect(fake_env["CONCBENCH_DB"]) as db:
        db.execute("UPDATE runs SET state = 'interrupted'")
    assert_one_line_error(concbench("run", "--resume", env=fake_env), "is an A/B run, which cannot be resumed")


def test_a_git_revision_is_unpacked_and_built_apart(fake_env, tmp_path):
    """git:HEAD: the C kit of this checkout's last commit, built in a folder
    of its own, against the working tree's."""
    env = {**fake_env, "CONCBENCH_BUILTINS": "on", "CONCBENCH_DB": str(tmp_path / "git.db")}
    done = concbench("ab", "-r", "c", "-m", "c/none", "-w", "invoke", "--b", "git:HEAD", "--trials", "6", env=env)
    assert done.returncode == 0, done.stderr
    assert "b: git HEAD (" in done.stdout
    with sqlite3.connect(env["CONCBENCH_DB"]) as db:
        assert {r for (r,) in db.execute("SELECT DISTINCT runtime FROM trials")} == {"c@a", "c@b"}


def test_a_runtime_without_the_option_gets_its_sides_letters(fake_env, tmp_path):
    """slower is the fake runtime's only: C's rows of both sides would be one
    cell without their letters."""
    env = {**fake_env, "CONCBENCH_BUILTINS": "on", "CONCBENCH_DB": str(tmp_path / "mixed.db")}
    done = concbench(
        "ab",
        "-r",
        "fake,c",
        "-m",
        "c/none,fake/honest",
        "-w",
        "invoke,triangle",
        "--b-option",
        "slower",
        "--trials",
        "6",
        env=env,
    )
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(env["CONCBENCH_DB"]) as db:
        found = set(db.execute("SELECT DISTINCT runtime, options FROM trials"))
    assert found == {("fake", "[]"), ("fake", '["slower"]'), ("c@a", "[]"), ("c@b", "[]")}
    assert "c/none" in done.stdout and "fake/honest" in done.stdout


def version_with_build(tmp_path, build: list[str]):
    """A dir: version: the fake runtime with this build command."""
    folder = tmp_path / "version"
    shutil.copytree(FIXTURES / "runtimes" / "fake", folder / "fake")
    manifest = folder / "fake" / "runtime.toml"
    manifest.write_text(f"build = {json.dumps(build)}\n" + manifest.read_text())
    return folder


def build_processes(tag: str) -> list[str]:
    found = subprocess.run(["pgrep", "-f", tag], capture_output=True, text=True)
    return found.stdout.split()


def daemonizing(tag: str) -> str:
    """A shell line that starts `sleep TAG` in a session of its own (out of
    the build's process group) that ignores SIGTERM and SIGINT, as a daemon would."""
    return f"setsid sh -c \"trap '' TERM INT; exec {tag}\" &"


def test_a_failed_build_says_why(fake_env, tmp_path):
    folder = version_with_build(tmp_path, ["sh", "-c", "echo no compiler here >&2; exit 1"])
    done = ab(fake_env, "--b", f"dir:{folder}", "--trials", "6")
    assert_one_line_error(done, "fake of B: build failed", "no compiler here")


def test_a_hanging_build_meets_its_time_limit_and_leaves_nothing(fake_env, tmp_path):
    tag = f"sleep 300.{os.getpid()}1"
    folder = version_with_build(tmp_path, ["sh", "-c", f"{daemonizing(tag)} {tag}"])
    env = {**fake_env, "CONCBENCH_BUILD_TIMEOUT": "2", "TMPDIR": str(tmp_path)}
    done = ab(env, "--b", f"dir:{folder}", "--trials", "6")
    assert_one_line_error(done, "took longer than 2 s (CONCBENCH_BUILD_TIMEOUT)")
    assert build_processes(tag) == [] and not list(tmp_path.glob("concbench-ab-*"))


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_a_build_stopped_by_a_signal_is_ended_and_cleaned_up(fake_env, tmp_path, signum):
    tag = f"sleep 300.{os.getpid()}{signum}"
    started = tmp_path / "started"
    folder = version_with_build(tmp_path, ["sh", "-c", f'{daemonizing(tag)} touch "$0"; {tag}', str(started)])
    env = {**fake_env, "TMPDIR": str(tmp_path), "FAKE_WALL_NS": "5000000"}
    argv = [sys.executable, "-m", "concbench", "ab", "-w", "triangle", "-m", "sleeper", "--b", f"dir:{folder}"]
    with subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as harness:
        while not started.exists():
            assert harness.poll() is None, harness.stdout.read()
            time.sleep(0.1)
        harness.send_signal(signum)
        said = harness.communicate(timeout=60)[0]
    if signum == signal.SIGKILL:  # nothing of the harness's own: the next run sweeps what it left
        assert build_processes(tag) and list(tmp_path.glob("concbench-ab-*"))
        swept = concbench("run", "-w", "triangle", "-m", "honest", "--trials", "1", env=env)
        assert "cleaned up after a concbench that died" in swept.stdout + swept.stderr, swept
        assert build_processes(tag) == [] and not list(tmp_path.glob("concbench-ab-*"))
        return
    assert harness.returncode == 130, said
    assert "interrupted while the versions were built" in said and "Traceback" not in said
    assert build_processes(tag) == [] and not list(tmp_path.glob("concbench-ab-*"))


@pytest.mark.parametrize("given", ["0", "86401", "2147484", "1e-300", "5.5", "-5", " 5", "+5", "1_000", "\u0665"])
def test_a_build_timeout_is_a_whole_number_of_seconds_up_to_a_day(fake_env, tmp_path, given):
    folder = version_with_build(tmp_path, ["true"])
    done = ab({**fake_env, "CONCBENCH_BUILD_TIMEOUT": given}, "--b", f"dir:{folder}", "--trials", "6")
    assert_one_line_error(
        done, f"CONCBENCH_BUILD_TIMEOUT {given!r}: expected a whole number of seconds from 1 to 86400"
    )


def revision(tmp_path, monkeypatch, runtimes: dict[str, int | str]):
    """A repository of its own as the project, whose HEAD holds these files
    under runtimes/: a size makes a file of that many zeros (sparse), a
    string a link to it."""
    repo = tmp_path / "repo"
    for name, made in runtimes.items():
        path = repo / "runtimes" / "mine" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(made, str):
            path.symlink_to(made)
        else:
            with path.open("wb") as file:
                file.truncate(made)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "runtimes"], check=True)
    monkeypatch.setattr(paths, "PROJECT", repo)
    monkeypatch.setenv("CONCBENCH_BUILTINS", "off")


def unpacked_refused(match: str) -> list[tuple[str, int]]:
    """Unpack git:HEAD as --b, which must be refused so; the files it wrote, and their sizes."""
    with versions.Checkouts() as checkouts:
        with pytest.raises(UserError, match=match):
            checkouts.runtimes(versions.parse("b", "git:HEAD", ()))
        written = Path(checkouts._folder.name)
        return sorted((p.name, p.stat().st_size) for p in written.rglob("*") if p.is_file())


def git_children() -> list[str]:
    """This process's children that are git (a refused archive's, had it been left)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            comm, fields = stat.read_text().rsplit(")", 1)
            if int(fields.split()[1]) == os.getpid() and comm.endswith("(git"):
                found.append(stat.parent.name)
    return found


def test_a_git_revision_with_an_absolute_link_under_runtimes_is_refused(tmp_path, monkeypatch):
    revision(tmp_path, monkeypatch, {"passwd": "/etc/passwd"})
    unpacked_refused("--b 'git:HEAD'.*cannot be unpacked")


def test_a_git_revision_with_a_file_over_the_bound_is_refused_before_it_is_written(tmp_path, monkeypatch):
    revision(tmp_path, monkeypatch, {"big": 2**20, "small": 10})
    monkeypatch.setattr(versions, "FILE_MOST", 1000)
    written = unpacked_refused("--b 'git:HEAD': runtimes/mine/big holds 1048576 bytes, more than the .* MiB")
    assert ("big", 2**20) not in written and git_children() == []


def test_a_git_revision_over_the_total_bound_is_refused_before_it_is_written(tmp_path, monkeypatch):
    revision(tmp_path, monkeypatch, {"one": 600, "two": 600})
    monkeypatch.setattr(versions, "TOTAL_MOST", 1000)
    written = unpacked_refused("--b 'git:HEAD': runtimes/ holds more than .* MiB, runtimes/mine/two past it")
    assert written == [("one", 600)] and git_children() == []


def test_an_interrupted_ab_run_says_how_to_start_it_again(fake_env):
    argv = [sys.executable, "-m", "concbench", "ab", "-w", "triangle", "-m", "slow", "--trials", "6"]
    with subprocess.Popen(argv, env=fake_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as harness:
        said = [harness.stdout.readline()]
        while not said[-1].startswith("run "):
            assert said[-1], said
            said.append(harness.stdout.readline())
        while not rows(fake_env):  # a trial stored: the run is under way
            assert harness.poll() is None
            time.sleep(0.1)
        harness.send_signal(signal.SIGINT)
        said.append(harness.communicate(timeout=60)[0])
    assert harness.returncode == 130
    assert "start it again with: concbench ab -w triangle -m slow --trials 6" in "".join(said)
    assert "--resume" not in "".join(said)


def test_a_mechanism_one_version_lacks_names_that_version(fake_env, tmp_path):
    folder = version_with_build(tmp_path, ["true"])
    manifest = folder / "fake" / "runtime.toml"
    manifest.write_text(manifest.read_text().replace("[mechanisms.sleeper]", "[mechanisms.napper]"))
    done = ab(fake_env, "--b", f"dir:{folder}", "--trials", "6")
    assert_one_line_error(done, f"--b dir:{folder}: unknown mechanism 'sleeper'")


def test_the_trial_cost_tool_compares_whole_trials_side_by_side(fake_env):
    """docs/tools/ab_trial_cost.py, which docs/protocol.md quotes: sides told by options too."""
    assert ab(fake_env, "--b-option", "slower", "--trials", "6", "-p", "n=10,100").returncode == 0
    tool = Path(__file__).parents[1] / "docs" / "tools" / "ab_trial_cost.py"
    done = subprocess.run([sys.executable, tool, fake_env["CONCBENCH_DB"]], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert re.search(r"^fake\s+2\s+x\d\.\d\d \[\d\.\d\d, \d\.\d\d\]\s+x\d\.\d\d", done.stdout, re.M), done.stdout
