"""What the kits fetch is pinned and checked before use (issue 46, item 8):
the Maven plugin that copies the jars, the linters' jars, and npm's installs
without the packages' scripts. Each test runs the real Makefile or script on
a copy under tmp_path, with fake programs (mvn, java, npm) on the PATH that
record what they were asked, so nothing here reaches a registry."""

import os
import re
import shutil
import subprocess

import pytest
from conftest import ROOT

RUNTIMES = ROOT / "runtimes"


def fake_program(folder, name, script="exit 0"):
    """A program on the PATH that appends its arguments to NAME.calls, then runs SCRIPT."""
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / name
    program.write_text(f'#!/bin/sh\necho "$*" >> "{folder / name}.calls"\n{script}\n')
    program.chmod(0o755)
    return folder / f"{name}.calls"


def environment(tmp_path, **extra):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    home = tmp_path / "my home"  # a space, as in /home/John Smith
    home.mkdir(exist_ok=True)
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": str(home), **extra}


def run(command, env):
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)


def copy_runtime(tmp_path, name, files):
    folder = tmp_path / "runtimes" / name
    folder.mkdir(parents=True)
    for file in files:
        shutil.copy2(RUNTIMES / name / file, folder / file)
    return folder


def copy_java_scripts(tmp_path):
    return copy_runtime(
        tmp_path, "java", ["fetch-libraries", "maven-fetch", "maven-plugin.lock", "find-jdk", "archive.mk"]
    )


def plugin_file(home, extension="jar"):
    """Where Maven keeps the pinned dependency plugin's jar (or pom) under HOME."""
    version = re.search(
        r"^org\.apache\.maven\.plugins:maven-dependency-plugin:([^:\s]+):jar ",
        (RUNTIMES / "java" / "maven-plugin.lock").read_text(),
        re.M,
    )[1]
    folder = home / ".m2/repository/org/apache/maven/plugins/maven-dependency-plugin" / version
    return folder / f"maven-dependency-plugin-{version}.{extension}", version


def test_maven_fetch_runs_the_pinned_plugin_and_refuses_a_jar_it_loaded_that_differs(tmp_path):
    env = environment(tmp_path)
    jar, version = plugin_file(tmp_path / "my home")
    # A Maven that "downloads" a plugin other than the one pinned.
    calls = fake_program(tmp_path / "bin", "mvn", f'mkdir -p "{jar.parent}" && echo other > "{jar}"')
    java = copy_java_scripts(tmp_path)

    done = run(["sh", str(java / "maven-fetch"), "org.example:lib:1.0", str(tmp_path / "out")], env)

    argv = calls.read_text()
    assert f"org.apache.maven.plugins:maven-dependency-plugin:{version}:copy" in argv
    assert " -C " in f" {argv} "  # Maven's own strict checksums too
    assert done.returncode == 1, done
    assert f"not the file {java / 'maven-plugin.lock'} pins: {jar}: FAILED" in done.stderr


# Its jar is its code; its pom names the jars Maven loads with it.
@pytest.mark.parametrize("extension", ["jar", "pom"])
def test_maven_fetch_does_not_run_a_tampered_plugin_already_in_the_local_repository(tmp_path, extension):
    env = environment(tmp_path)
    planted, _ = plugin_file(tmp_path / "my home", extension)
    planted.parent.mkdir(parents=True)
    planted.write_text("planted")
    calls = fake_program(tmp_path / "bin", "mvn")
    java = copy_java_scripts(tmp_path)

    done = run(["sh", str(java / "maven-fetch"), "org.example:lib:1.0", str(tmp_path / "out")], env)

    assert done.returncode == 1, done
    assert f"{planted}: FAILED" in done.stderr and "remove those files" in done.stderr
    assert not calls.exists()  # Maven never ran it


def test_a_tampered_ktlint_jar_is_refused_removed_and_not_run(tmp_path):
    # A fake JDK that find-jdk accepts, whose java records being run.
    jdk = tmp_path / "jdk"
    java_calls = fake_program(jdk / "bin", "java")
    fake_program(jdk / "bin", "javac")
    fake_program(jdk / "bin", "jar")
    (jdk / "release").write_text('JAVA_VERSION="25"\n')
    mvn_calls = fake_program(tmp_path / "bin", "mvn", "exit 1")
    env = environment(tmp_path, JAVA_HOME=str(jdk))
    copy_java_scripts(tmp_path)
    kotlin = copy_runtime(tmp_path, "kotlin", ["Makefile", "lint.lock", "compiler.lock", "libraries.lock"])
    ktlint = kotlin / "build/maven/ktlint-cli-1.8.0-all.jar"
    ktlint.parent.mkdir(parents=True)
    ktlint.write_text("not ktlint")

    done = run(["make", "-s", "-C", str(kotlin), "lint"], env)

    assert done.returncode != 0, done
    assert "build/maven/ktlint-cli-1.8.0-all.jar: its checksum is not the one lint.lock pins; removed" in done.stderr
    assert not ktlint.exists()
    assert not java_calls.exists() and not mvn_calls.exists()


def test_the_linters_jars_are_checked_before_each_use(tmp_path):
    for runtime, checker in (("java", "formatter"), ("kotlin", "ktlint")):
        done = run(["make", "-n", "-C", str(RUNTIMES / runtime), "lint"], os.environ)
        assert done.returncode == 0, done
        commands = done.stdout.splitlines()
        check = next(i for i, line in enumerate(commands) if "fetch-libraries lint.lock" in line)
        assert check < next(i for i, line in enumerate(commands) if "-jar" in line), (checker, commands)


def test_npm_installs_the_engines_without_their_packages_scripts(tmp_path):
    calls = fake_program(tmp_path / "bin", "npm", "mkdir -p node_modules && touch node_modules/.package-lock.json")
    env = environment(tmp_path)
    copy_runtime(tmp_path, "node", ["npm-engine.mk"])
    for engine in ("bun", "deno"):
        folder = copy_runtime(tmp_path, engine, ["Makefile", "package.json", "package-lock.json"])
        done = run(["make", "-s", "-C", str(folder), "node_modules/.package-lock.json"], env)
        assert done.returncode == 0, done
    assert calls.read_text().splitlines() == ["ci --ignore-scripts --silent --no-audit --no-fund"] * 2


def test_every_npm_install_in_the_repository_ignores_scripts_and_no_lock_needs_one():
    makefiles = [ROOT / "Makefile", *RUNTIMES.glob("*/Makefile"), *RUNTIMES.glob("*/*.mk")]
    installs = [
        line for file in makefiles for line in file.read_text().splitlines() if re.search(r"npm (ci|install)", line)
    ]
    assert len(installs) == 2 and all("--ignore-scripts" in line for line in installs), installs
    for lock in RUNTIMES.glob("*/package-lock.json"):
        assert "hasInstallScript" not in lock.read_text(), lock
