"""A checkout whose path holds a space ("/home/John Smith/concbench") builds
JVM launchers whose class path stays inside it: an absolute path that make
joined with ':' split "/tmp/a b/..." into "/tmp/a" and "b/...", so a folder
/tmp/a (another user's /home/John) came ahead of every library jar. Each test
runs the real Makefile on a copy of the runtimes under "a b", beside a folder
"a" holding a planted class, with a fake JDK (java prints its arguments) and
placeholder jars, so nothing here reaches Maven Central or needs a real JDK."""

import os
import shutil
import subprocess

import pytest
from conftest import ROOT

# The fake java prints its arguments, and as a training run writes the archive it is asked for.
FAKE_JAVA = (
    '#!/bin/sh\nfor arg in "$@"; do printf "%s\\n" "$arg"; case "$arg" in '
    '-XX:AOTCacheOutput=*) echo archive > "${arg#-XX:AOTCacheOutput=}";; esac; done\n'
)
# jar --create --file FILE ...: the jar javac's classes would make.
FAKE_JAR = '#!/bin/sh\nwhile [ "$1" != --file ]; do shift; done\ntouch "$2"\n'


@pytest.fixture
def checkout(tmp_path):
    """The runtimes and the workloads (a JVM kit's training run reads the
    specs) copied to "tmp/a b/concbench", beside "tmp/a" with a planted class."""
    planted = tmp_path / "a" / "concbench" / "kit"
    planted.mkdir(parents=True)
    (planted / "Main.class").write_bytes(b"planted")
    root = tmp_path / "a b" / "concbench"
    ignore = shutil.ignore_patterns("build", "node_modules")
    for name in ("java", "kotlin", "jruby", "ruby"):
        shutil.copytree(ROOT / "runtimes" / name, root / "runtimes" / name, ignore=ignore)
    shutil.copytree(ROOT / "workloads", root / "workloads")
    return root


@pytest.fixture
def jdk(tmp_path):
    """A fake JDK 25 under a path with a space, which find-jdk takes from JAVA_HOME."""
    home = tmp_path / "a b" / "jdk"
    (home / "bin").mkdir(parents=True)
    (home / "release").write_text('JAVA_VERSION="25.0.1"\n')
    for name, script in (("java", FAKE_JAVA), ("javac", "#!/bin/sh\n"), ("jar", FAKE_JAR)):
        (home / "bin" / name).write_text(script)
        (home / "bin" / name).chmod(0o755)
    return home


def seed_jars(runtime, lock, folder):
    """Placeholder jars for LOCK, newer than it, so make fetches nothing."""
    (runtime / folder).mkdir(parents=True, exist_ok=True)
    for line in (runtime / lock).read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            _, artifact, version = line.split()[0].split(":")[:3]
            jar = runtime / folder / f"{artifact}-{version}.jar"
            jar.touch()
            os.utime(jar, (os.stat(runtime / lock).st_mtime + 10,) * 2)


def make(runtime, jdk, *args):
    env = {**os.environ, "JAVA_HOME": str(jdk)}
    return subprocess.run(
        ["make", "-s", "-C", str(runtime), *args], env=env, capture_output=True, text=True, timeout=120
    )


def launcher_class_path(launcher):
    """The class path the launcher hands java, run from elsewhere (the fake java prints its arguments)."""
    argv = subprocess.run(
        [str(launcher)], capture_output=True, text=True, timeout=30, cwd="/", check=True
    ).stdout.splitlines()
    return argv[argv.index("-cp") + 1].split(":")


def assert_inside(entries, root):
    for entry in entries:
        assert os.path.isabs(entry), entry
        assert os.path.realpath(entry).startswith(f"{root}/"), entry
        assert os.path.isfile(entry), entry


def test_java_launcher_loads_only_the_checkouts_jars(checkout, jdk):
    runtime = checkout / "runtimes" / "java"
    seed_jars(runtime, "libraries.lock", "build/lib")
    done = make(runtime, jdk)
    assert done.returncode == 0, done.stderr
    entries = launcher_class_path(runtime / "build" / "concbench-java")
    assert entries[0] == str(runtime / "build" / "concbench.jar")
    assert len(entries) == 1 + len(list((runtime / "build" / "lib").iterdir()))
    assert_inside(entries, checkout)


def test_kotlin_launcher_loads_only_the_checkouts_jars(checkout, jdk):
    runtime = checkout / "runtimes" / "kotlin"
    seed_jars(runtime, "compiler.lock", "build/maven")
    seed_jars(runtime, "libraries.lock", "build/maven")
    done = make(runtime, jdk, "build/concbench-kotlin")
    assert done.returncode == 0, done.stderr
    entries = launcher_class_path(runtime / "build" / "concbench-kotlin")
    assert entries[0] == str(runtime / "build" / "concbench-kotlin.jar")
    assert_inside(entries, checkout)


@pytest.mark.parametrize("runtime", ["java", "kotlin"])
def test_compilers_class_paths_are_relative_and_quoted(checkout, jdk, runtime):
    """make -n: every class path the build hands a compiler names the checkout's
    own jars by relative paths, which no space in the checkout's path can split."""
    done = make(checkout / "runtimes" / runtime, jdk, "-n")
    assert done.returncode == 0, done.stderr
    assert str(checkout.parent.parent / "a") + ":" not in done.stdout
    compilers = [line for line in done.stdout.splitlines() if '-cp "' in line and not line.startswith("printf")]
    class_paths = [line.split('-cp "', 1)[1].split('"', 1)[0] for line in compilers]
    assert class_paths
    for entry in ":".join(class_paths).split(":"):
        assert entry.startswith("build/"), entry


def test_jruby_launcher_runs_the_jdk_whose_path_holds_a_space(checkout, jdk):
    runtime = checkout / "runtimes" / "jruby"
    seed_jars(runtime, "jruby.lock", "build")
    done = make(runtime, jdk)
    assert done.returncode == 0, done.stderr
    launcher = runtime / "build" / "concbench-jruby"
    assert f'exec "{jdk}/bin/java" ' in launcher.read_text()
    argv = subprocess.run(
        [str(launcher), "kit.rb"], capture_output=True, text=True, timeout=30, cwd="/", check=True
    ).stdout.splitlines()
    assert (
        argv[-2:] == ["--disable-gems", "kit.rb"] and f"{runtime}/build/jruby-complete" in argv[argv.index("-jar") + 1]
    )


def test_ruby_extension_runs_the_interpreter_whose_path_holds_a_space(checkout, tmp_path):
    """RUBY is ruby34's {dir}/build/ruby: unquoted, "/x/r b/ruby" ran /x/r with "b/ruby" as its script."""
    planted = tmp_path / "r"
    planted.write_text(f'#!/bin/sh\ntouch "{tmp_path}/planted-ran"\n')
    planted.chmod(0o755)
    ruby = tmp_path / "r b" / "ruby"
    ruby.parent.mkdir()
    ruby.write_text('#!/bin/sh\ncase "$*" in *ruby_version*) printf 3.4.0 ;; *) printf /none ;; esac\n')
    ruby.chmod(0o755)
    runtime = checkout / "runtimes" / "ruby"
    command = ["make", "-n", "-C", str(runtime), f"RUBY={ruby}", "build/3.4.0/concbench_events.so"]
    # make -n runs the line that calls $(MAKE), which fails here: only what it printed counts.
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert not (tmp_path / "planted-ran").exists()
    assert f'"{ruby}" "../../../ext/events/extconf.rb"' in done.stdout
