"""Files and names a stranger's runtime folder or workload folder can hold:
refused in one line before anything runs (issue 46, items 2 and 4)."""

import os
import shutil

import pytest
from conftest import FIXTURES, assert_one_line_error, concbench

HOSTILE = "-oDPkg::Pre-Invoke::=touch /tmp/x"
LOGGER = '#!/bin/sh\nprintf "%s\\n" "$(basename "$0")" "$@" >> "$FAKE_LOG"\necho END >> "$FAKE_LOG"\n'
# The package lists' names, as apt-cache pkgnames prints them.
KNOWN = "nothing-real gcc libc6-dev python3 python3-venv openssh-server coreutils g++"


def runtime_folder(tmp_path, packages):
    """A copy of the fake runtime whose manifest names packages."""
    folder = tmp_path / "from-elsewhere"
    shutil.copytree(FIXTURES / "runtimes" / "fake", folder / "fake")
    manifest = folder / "fake" / "runtime.toml"
    text = manifest.read_text().replace('packages = ["python3"]', f"packages = {packages!r}".replace("'", '"'))
    manifest.write_text(text)
    return folder


@pytest.fixture
def package_manager(tmp_path, fake_env):
    """Fake apt-get, dpkg-query and sudo first on PATH, logging each argv."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("apt-get", "dpkg-query", "sudo"):
        (bin_dir / name).write_text(LOGGER)
        (bin_dir / name).chmod(0o755)
    (bin_dir / "apt-cache").write_text(LOGGER + f"printf '%s\\n' {KNOWN}\n")
    (bin_dir / "apt-cache").chmod(0o755)
    log = tmp_path / "argv.log"
    env = {k: v for k, v in fake_env.items() if k != "CONCBENCH_RUNTIMES"}
    env |= {"PATH": f"{bin_dir}:{os.environ['PATH']}", "FAKE_LOG": str(log)}
    return env, log


@pytest.mark.parametrize("command", [["setup"], ["list"], ["doctor"]])
@pytest.mark.parametrize("given", ["option", "variable"])
def test_a_package_name_that_is_an_option_is_refused(tmp_path, package_manager, command, given):
    env, log = package_manager
    folder = runtime_folder(tmp_path, [HOSTILE])
    if given == "option":
        done = concbench(*command, "--runtimes", folder, env=env)
    else:
        done = concbench(*command, env={**env, "CONCBENCH_RUNTIMES": str(folder)})
    assert_one_line_error(done, "runtime.toml", HOSTILE, "not a Debian package name")
    assert not log.exists() or HOSTILE not in log.read_text()


def test_package_names_follow_a_double_dash(tmp_path, package_manager):
    env, log = package_manager
    done = concbench("setup", "--runtimes", runtime_folder(tmp_path, ["python3-venv"]), env=env)
    assert done.returncode == 0, done
    calls = [call.splitlines() for call in log.read_text().split("END\n") if call]
    names = [argv for argv in calls if "python3-venv" in argv]
    assert {argv[0] for argv in names} == {"dpkg-query", "apt-get"}, calls
    for argv in names:
        assert argv.index("--") < argv.index("python3-venv"), argv


@pytest.mark.parametrize("name", ["openssh-server-", "coreutils-", "python3.", "gcc+"])
def test_a_name_apt_would_read_as_an_order_or_a_pattern_never_reaches_it(tmp_path, package_manager, name):
    """Debian names all, but none a package's: apt-get would remove
    openssh-server, or install every package python3. matches."""
    env, log = package_manager
    done = concbench("setup", "--runtimes", runtime_folder(tmp_path, [name]), env=env)
    assert_one_line_error(done, "not in apt's package lists", name, "nothing installed")
    installs = [call for call in log.read_text().split("END\n") if call.startswith("apt-get\ninstall")]
    assert installs == []


def test_a_manifest_linked_to_dev_zero_is_refused(tmp_path, fake_env):
    folder = runtime_folder(tmp_path, ["python3"])
    manifest = folder / "fake" / "runtime.toml"
    manifest.unlink()
    manifest.symlink_to("/dev/zero")
    assert_one_line_error(concbench("list", "--runtimes", folder, env=fake_env), "runtime.toml", "not a regular file")


def test_a_fifo_among_the_workloads_is_refused_without_hanging(tmp_path, fake_env):
    folder = tmp_path / "workloads"
    folder.mkdir()
    os.mkfifo(folder / "waiting.toml")
    done = concbench("list", "--workloads", folder, env=fake_env, timeout=60)
    assert_one_line_error(done, "waiting.toml", "not a regular file")


@pytest.mark.parametrize("kind", ["runtimes", "workloads"])
def test_a_folder_where_a_file_belongs_is_refused(tmp_path, fake_env, kind):
    folder = runtime_folder(tmp_path, ["python3"]) if kind == "runtimes" else tmp_path / "workloads"
    target = folder / "fake" / "runtime.toml" if kind == "runtimes" else folder / "x.toml"
    if target.exists():
        target.unlink()
    target.mkdir(parents=True)
    done = concbench("list", f"--{kind}", folder, env=fake_env)
    assert_one_line_error(done, target.name, "not a regular file")


@pytest.mark.parametrize("kind", ["runtimes", "workloads"])
def test_a_folder_option_that_names_no_folder_is_refused(tmp_path, fake_env, kind):
    os.mkfifo(tmp_path / "fifo")
    done = concbench("list", f"--{kind}", tmp_path / "fifo", env=fake_env, timeout=60)
    assert_one_line_error(done, f"--{kind}", "is not a folder")


def test_a_spec_over_a_mebibyte_is_refused(tmp_path, fake_env):
    folder = tmp_path / "workloads"
    folder.mkdir()
    (folder / "big.toml").write_text("#" * (2 << 20) + "\n")
    done = concbench("list", "--workloads", folder, env=fake_env)
    assert_one_line_error(done, "big.toml", "larger than 1024 KiB")
