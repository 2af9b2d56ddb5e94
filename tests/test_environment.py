"""The fingerprint stored with every run, and how reports show it."""

import json

from conftest import concbench

from concbench import environment, limits


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


def test_differences_name_a_loader_variable_that_changed():
    after = {**ENV, "loader": {"GEM_PATH": "/tmp/shadow"}}
    assert environment.differences(ENV, after) == ["variable GEM_PATH: - -> /tmp/shadow"]
