"""The fingerprint stored with every run, and how reports show it."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, concbench

from concbench import environment, limits, runtimes


def test_the_fingerprint_reads_this_machine_and_the_trials_limits():
    env = environment.fingerprint([], limits.Limits(memory_bytes=3 << 30, tasks=100))
    assert env["cores"] >= 1 and env["memory_kb"] > 0 and len(env["load"]) == 3
    assert env["kernel"] and env["cpu"]
    assert {"governor", "cpu_mhz", "concbench", "runtimes", "libraries"} <= set(env)
    assert env["limits"].startswith("memory 3072 MiB (")
    assert env["limits"].endswith("per trial") and ", 100 processes and threads (" in env["limits"]
    assert environment.fingerprint([], limits.Limits(None, None))["limits"] == "no memory cap, no process cap per trial"


def test_the_fingerprint_says_what_every_trial_runs_under(monkeypatch):
    monkeypatch.setenv("CONCBENCH_ASLR", "on")
    env = environment.fingerprint([], limits.Limits(None, None))
    assert env["trials"] == "ASLR on, PYTHONHASHSEED=0"
    assert dict(environment.describe(env))["trial processes"] == "ASLR on, PYTHONHASHSEED=0"


ENV = {
    "cpu": "AMD EPYC",
    "cores": 2,
    "memory_kb": 24 * 1024**2,
    "kernel": "6.1",
    "load": [0.1, 0.2, 0.3],
    "governor": "performance",
    "cpu_mhz": 2400,
    "python": "3.11.7",
    "concbench": "abc1234",
    "runtimes": {"ruby": "3.1.7", "haskell": "9.0.2"},
    "libraries": {"ruby/fiber": "async 1.30.3"},
    "limits": "memory 12032 MiB (cgroup v1), 16384 processes and threads (cgroup v1) per trial",
}


def test_a_report_shows_versions_with_the_flags_the_trials_reported():
    lines = dict(
        environment.describe(
            ENV, [{"name": "ruby", "flags": []}, {"name": "ruby", "flags": ["--yjit"]}, {"name": "ruby", "flags": []}]
        )
    )
    assert lines["CPU"] == "AMD EPYC, 2 cores, 2400 MHz, governor performance"
    assert lines["memory"] == "24.0 GiB"
    assert lines["ruby"] == "3.1.7, no flags or flags --yjit"
    assert lines["haskell"] == "9.0.2"  # no trial of it: no flags known
    assert lines["ruby/fiber"] == "async 1.30.3"
    assert lines["concbench"] == "abc1234"
    assert lines["limits"].startswith("memory 12032 MiB")


def test_differences_name_what_changed_but_not_the_load():
    after = {**ENV, "load": [2.0, 2.0, 2.0], "cpu_mhz": 3000, "libraries": {"ruby/fiber": "async 2.0"}}
    assert environment.differences(ENV, after) == ["library ruby/fiber: async 1.30.3 -> async 2.0"]


def test_flags_every_trial_had_are_said_once_and_then_what_the_others_added():
    tokio = {"name": "rust", "flags": ["release", "tokio 1.54", "tokio multi_thread"]}
    plain = {"name": "rust", "flags": ["release", "tokio 1.54"]}
    monoio = {"name": "rust", "flags": ["release", "tokio 1.54", "monoio entries=1024"]}
    env = {**ENV, "runtimes": {"rust": "1.95.0"}}
    lines = dict(environment.describe(env, [tokio, plain, monoio]))
    assert (
        lines["rust"]
        == "1.95.0, flags release tokio 1.54, plus nothing or one of: tokio multi_thread | monoio entries=1024"
    )
    assert dict(environment.describe(env, [tokio, monoio]))["rust"].endswith(
        "plus one of: tokio multi_thread | monoio entries=1024"
    )


def test_a_run_records_the_loader_variables_its_trials_inherited(fake_env, tmp_path):
    """A shadow gem folder on GEM_PATH changes what every Ruby trial loads:
    the run says so, as given, and show and the report print it."""
    shadow = str(tmp_path / "shadow gems")
    env = {**fake_env, "GEM_PATH": shadow, "RUBYOPT": "-W0"}
    env.pop("LD_PRELOAD", None)
    done = concbench("run", "-r", "fake", "-m", "honest", "-w", "triangle", "--trials", "1", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    record = json.loads(concbench("report", "--format", "json", env=env).stdout)
    loader = record["run"]["environment"]["loader"]
    assert loader["GEM_PATH"] == shadow and loader["RUBYOPT"] == "-W0"
    assert "LD_PRELOAD" not in loader  # only those set
    assert f"GEM_PATH: {shadow}" in concbench("report", "--format", "md", env=env).stdout


def test_a_100_kb_loader_variable_is_stored_and_shown_bounded(fake_env, tmp_path):
    """The probe: a 100 KB GEM_PATH was stored, and printed by show and report, in full."""
    huge = "/g" * 50_000
    env = {**fake_env, "GEM_PATH": huge}
    done = concbench("run", "-r", "fake", "-m", "honest", "-w", "triangle", "--trials", "1", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    stored = json.loads(concbench("report", "--format", "json", env=env).stdout)["run"]["environment"]["loader"]
    assert stored["GEM_PATH"] == huge[:1000] + "... [99000 characters cut]"
    shown = concbench("show", "1", env=env).stdout
    assert "GEM_PATH" in shown and "[99000 characters cut]" in shown and huge[:1002] not in shown


def test_a_run_records_loader_variables_without_their_secrets(fake_env, tmp_path):
    """The probe: a password in JAVA_TOOL_OPTIONS, a token in NODE_OPTIONS and a
    URL's password in LD_LIBRARY_PATH were stored and printed as given. Nor is
    the database's own location recorded."""
    secrets = {
        "JAVA_TOOL_OPTIONS": "-Xmx1g -Djavax.net.ssl.trustStorePassword=hunter2",
        "NODE_OPTIONS": "--require x --auth-token=abc123",
        "LD_LIBRARY_PATH": "/usr/lib:https://u:pw@h/x",
    }
    env = {**fake_env, **secrets}
    done = concbench("run", "-r", "fake", "-m", "honest", "-w", "triangle", "--trials", "1", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    record = concbench("report", "--format", "json", env=env).stdout
    assert json.loads(record)["run"]["environment"]["loader"] == {
        "JAVA_TOOL_OPTIONS": "-Xmx1g -Djavax.net.ssl.trustStorePassword=***",
        "NODE_OPTIONS": "--require x --auth-token=***",
        "LD_LIBRARY_PATH": "/usr/lib:https://u:***@h/x",
    }
    printed = record + concbench("show", "1", env=env).stdout + concbench("report", "--format", "md", env=env).stdout
    for secret in ("hunter2", "abc123", ":pw@", fake_env["CONCBENCH_DB"]):
        assert secret not in printed


@pytest.mark.parametrize(
    "given, stored",
    [
        ("-Dproxy.PASSWD='a b' -Dx=1", "-Dproxy.PASSWD=*** -Dx=1"),  # quoted: up to its closing quote
        ("-Dx=1,client_secret=s:/lib", "-Dx=1,client_secret=***"),  # within another setting's value
        ("API_KEY=k CREDENTIALS_FILE=/c tok=en", "API_KEY=*** CREDENTIALS_FILE=*** tok=en"),
        ("http://h/db?sslpassword=k&x=1 ftp://u@h", "http://h/db?sslpassword=*** ftp://u@h"),
        ("/usr/lib/x86_64-linux-gnu:/opt/lib", "/usr/lib/x86_64-linux-gnu:/opt/lib"),
    ],
)
def test_what_looks_like_a_secret_is_masked_and_the_rest_kept(given, stored):
    assert environment.recorded(given) == stored


def test_differences_name_a_loader_variable_that_changed():
    after = {**ENV, "loader": {"GEM_PATH": "/tmp/shadow"}}
    assert environment.differences(ENV, after) == ["variable GEM_PATH: - -> /tmp/shadow"]


RUBY = shutil.which("ruby")


def _ruby_probe(mechanism: str):
    return runtimes.load_all([ROOT / "runtimes" / "ruby"])["ruby"].probe_requirement(mechanism)


@pytest.mark.skipif(not RUBY or not Path("/usr/share/rubygems-integration/all/gems").is_dir(), reason="no Debian ruby")
def test_a_gems_probe_says_the_folder_it_was_loaded_from():
    found = _ruby_probe("fiber")
    if not found.ok:
        pytest.skip(f"ruby-async is not installed: {found.output}")
    version, _, place = found.output.partition(" from ")
    assert version.startswith("async ") and Path(place).is_dir(), found.output
    assert Path(place).name == "async-" + version.split()[1]


@pytest.mark.skipif(not RUBY, reason="no ruby")
def test_a_shadow_gem_on_gem_path_is_named_by_the_probe(tmp_path, monkeypatch):
    """The probe of issue 46: a gem folder on GEM_PATH shadowed Debian's async,
    and the run recorded only its version."""
    shadow = tmp_path / "shadow gems"
    (shadow / "specifications").mkdir(parents=True)
    (shadow / "gems" / "async-99.0.0" / "lib").mkdir(parents=True)
    (shadow / "specifications" / "async-99.0.0.gemspec").write_text(
        'Gem::Specification.new { |s| s.name = "async"; s.version = "99.0.0"; s.summary = "shadow"; s.authors = ["x"] }\n'
    )
    (shadow / "gems" / "async-99.0.0" / "lib" / "async.rb").write_text('module Async; VERSION = "99.0.0"; end\n')
    monkeypatch.setenv("GEM_PATH", f"{shadow}:")  # the shadow first, then the default path
    assert _ruby_probe("fiber").output == f"async 99.0.0 from {shadow}/gems/async-99.0.0"


@pytest.mark.skipif(not RUBY, reason="no ruby")
def test_a_library_on_rubylib_is_named_by_its_file(tmp_path, monkeypatch):
    (tmp_path / "celluloid.rb").write_text('module Celluloid; VERSION = "0.0.1"; end\n')
    monkeypatch.setenv("RUBYLIB", str(tmp_path))
    assert _ruby_probe("celluloid").output == f"celluloid 0.0.1 from {tmp_path}/celluloid.rb"


@pytest.mark.skipif(not (shutil.which("ghc") and shutil.which("ghc-pkg")), reason="no ghc")
def test_the_haskell_kit_says_which_package_database_its_streamly_came_from(tmp_path):
    """streamly in a package database on GHC_PACKAGE_PATH (a fake one, with
    a space and a quote in its path): the kit's --library line names it."""
    db = tmp_path / "my dbs" / 'streamly"db'
    db.parent.mkdir()
    subprocess.run(["ghc-pkg", "init", db], check=True)
    conf = tmp_path / "streamly.conf"
    conf.write_text("name: streamly\nversion: 0.10.1\nid: streamly-0.10.1-x\nkey: streamly-0.10.1-x\nexposed: True\n")
    subprocess.run(["ghc-pkg", "--package-db", db, "register", "--force", conf], check=True, capture_output=True)
    kit = tmp_path / "kit"  # the Makefile alone: its Libraries module needs no compile of the kit
    kit.mkdir()
    shutil.copy(ROOT / "runtimes" / "haskell" / "Makefile", kit)
    env = {**os.environ, "GHC_PACKAGE_PATH": f"{db}:"}
    subprocess.run(["make", "-s", "-C", kit, "build/gen/Libraries.hs"], env=env, check=True)
    (kit / "Say.hs").write_text('import Libraries\nmain = mapM_ (\\(p, v) -> putStrLn (p ++ " " ++ v)) libraries\n')
    said = subprocess.run(["runghc", f"-i{kit}/build/gen", kit / "Say.hs"], capture_output=True, text=True, check=True)
    assert said.stdout == f"streamly 0.10.1 from {db}\n"
