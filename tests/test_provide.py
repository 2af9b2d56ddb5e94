"""Issue 46, item 1: a provided toolchain (runtimes/ruby34's provide) deletes
only what it made, keeps its cache private, never truncates through a link,
and rebuilds a Ruby that no longer runs. Every attack runs against folders
under tmp_path, with a fake apt-get first on PATH that fails at once: the
real build never starts and the machine's apt and cache are untouched."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, concbench

VERSION = "3.4.5"
MARKER = ".concbench-ruby34-build"


@pytest.fixture
def kit(tmp_path):
    """A copy of the ruby and ruby34 runtimes (detect links build/ruby in its folder, not the repository's)."""
    folder = tmp_path / "runtimes"
    for name in ("ruby", "ruby34"):
        shutil.copytree(ROOT / "runtimes" / name, folder / name, ignore=shutil.ignore_patterns("build"))
    return folder


@pytest.fixture
def env(tmp_path, kit):
    """A user whose cache path holds a space, with a fake apt-get that fails at once."""
    fakes = tmp_path / "bin"
    fakes.mkdir()
    apt = fakes / "apt-get"
    apt.write_text("#!/bin/sh\necho 'fake apt-get: not here' >&2\nexit 100\n")
    apt.chmod(0o755)
    return {
        **os.environ,
        "PATH": f"{fakes}:{os.environ['PATH']}",
        "XDG_CACHE_HOME": str(tmp_path / "x" / "my cache"),
        "HOME": str(tmp_path / "home"),
        "CONCBENCH_BUILTINS": "off",
        "CONCBENCH_RUNTIMES": str(kit),
        "CONCBENCH_WORKLOADS": str(ROOT / "workloads"),
        "CONCBENCH_DB": str(tmp_path / "test.db"),
    }


def prefix(env) -> Path:
    return Path(env["XDG_CACHE_HOME"]) / "concbench" / f"ruby-{VERSION}"


def provide(kit, prefix_path) -> subprocess.CompletedProcess:
    """The script itself, as the Makefile runs it, with this PREFIX."""
    return subprocess.run(
        ["sh", "provide", VERSION, "3.4.5-1~exp1", str(prefix_path)],
        cwd=kit / "ruby34",
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": f"{kit.parent / 'bin'}:{os.environ['PATH']}"},
        stdin=subprocess.DEVNULL,
    )


def canary(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "keep").write_text("mine")
    return folder / "keep"


def test_a_cache_path_with_a_space_deletes_nothing_outside_its_own_folder(tmp_path, env):
    kept = canary(tmp_path / "x" / "my")  # what the unquoted $(PREFIX) used to delete
    done = concbench("setup", "--provide", "ruby34", env=env)
    assert done.returncode != 0 and "fake apt-get: not here" in done.stderr, done
    assert kept.read_text() == "mine"
    assert (prefix(env) / MARKER).is_file()  # the folder it made, marked first
    assert (prefix(env).parent.stat().st_mode & 0o777) == 0o700


def test_a_prefix_not_ending_in_concbench_ruby_version_is_refused(tmp_path, kit, env):
    kept = canary(tmp_path / "elsewhere")
    done = provide(kit, kept.parent)
    assert done.returncode != 0 and f"must be an absolute path ending in concbench/ruby-{VERSION}" in done.stderr
    assert kept.read_text() == "mine"


def test_a_folder_the_build_did_not_make_is_not_deleted(kit, env):
    kept = canary(prefix(env))  # no marker: someone else's folder at PREFIX
    done = provide(kit, prefix(env))
    assert done.returncode != 0 and "this build did not make it" in done.stderr, done.stderr
    assert kept.read_text() == "mine"


def test_a_link_planted_at_the_lock_is_refused_and_its_target_keeps_its_bytes(tmp_path, kit, env):
    target = canary(tmp_path / "target")
    prefix(env).parent.mkdir(parents=True)
    Path(f"{prefix(env)}.lock").symlink_to(target)
    done = provide(kit, prefix(env))
    assert done.returncode != 0 and "it is a link" in done.stderr
    assert target.read_text() == "mine"


def test_a_fifo_planted_at_the_lock_is_refused_without_hanging(kit, env):
    prefix(env).parent.mkdir(parents=True)
    os.mkfifo(f"{prefix(env)}.lock")
    done = provide(kit, prefix(env))  # opening a FIFO to write would wait for a reader for ever
    assert done.returncode != 0 and "it is not a plain file" in done.stderr


def test_a_cache_folder_that_is_a_link_is_refused_and_its_target_left_alone(tmp_path, kit, env):
    target = tmp_path / "victim"
    target.mkdir(mode=0o755)
    prefix(env).parent.parent.mkdir(parents=True)
    prefix(env).parent.symlink_to(target)
    done = provide(kit, prefix(env))
    assert done.returncode != 0 and "it is a link" in done.stderr
    assert (target.stat().st_mode & 0o777) == 0o755 and list(target.iterdir()) == []


def test_a_dollar_in_the_cache_path_is_a_path_not_make_text(tmp_path, kit, env):
    """make would expand $(shell ...) in a variable it took from the environment."""
    planted = tmp_path / "planted"
    cache = tmp_path / f"c$(shell touch {planted})$HOME"
    done = subprocess.run(
        ["make", "-s", "-C", kit / "ruby34", "detect"],
        capture_output=True,
        text=True,
        env={**env, "XDG_CACHE_HOME": str(cache)},
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode != 0 and not planted.exists()
    assert "not built here" in done.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user takes root")
def test_a_cache_folder_of_another_user_is_refused(kit, env):
    cache = prefix(env).parent
    cache.mkdir(parents=True)
    os.chown(cache, 65534, 65534)
    done = provide(kit, prefix(env))
    assert done.returncode != 0 and "is not yours" in done.stderr
    assert not prefix(env).exists()


def test_a_stamped_ruby_that_no_longer_runs_is_rebuilt_and_doctor_says_why(env):
    ruby = prefix(env) / "bin" / "ruby"
    ruby.parent.mkdir(parents=True)
    (prefix(env) / MARKER).touch()
    (prefix(env) / "concbench-provided").write_text("ruby3.4\n")
    ruby.write_text("#!/bin/sh\necho 'libruby.so.3.4: cannot open shared object file' >&2\nexit 127\n")
    ruby.chmod(0o755)

    doctor = concbench("doctor", env=env)
    line = next(line for line in doctor.stdout.splitlines() if " ruby34 " in line)
    said = "does not run: libruby.so.3.4: cannot open shared object file (concbench setup --provide ruby34"
    assert said in line, doctor.stdout
    run = concbench("run", "-r", "ruby34", "-w", "spawn", "--profile", "smoke", env=env)
    assert f"unavailable: ruby34 is missing: Ruby {VERSION} in" in run.stdout and said in run.stdout, run.stdout

    done = concbench("setup", "--provide", "ruby34", env=env)
    assert "building Ruby 3.4.5" in done.stderr and "fake apt-get: not here" in done.stderr, done
    assert done.returncode != 0
