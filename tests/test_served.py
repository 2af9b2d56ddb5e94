"""A served workload (docs/protocol.md, "Servers under load"): the harness
starts concbench's load generator beside the server trial once it announces
its address, and a trial counts only if the generator verified every echoed
byte of every run. What the generator measured is stored with each run."""

import json

import pytest
from conftest import FIXTURES, ROOT, concbench

from concbench import served

SMALL = ["-p", "connections=3", "-p", "rate=400", "-p", "duration_ms=100", "-p", "size=32"]


@pytest.fixture
def served_env(fake_env):
    """The fake user's environment, its suite the echo workload and the fixture's echo servers."""
    return {**fake_env, "CONCBENCH_WORKLOADS": str(ROOT / "workloads"), "CONCBENCH_RUNTIMES": str(FIXTURES / "served")}


def trials(env, mechanisms, *args):
    concbench("run", "--profile", "smoke", "-w", "echo", "-m", f"server/{mechanisms}", *SMALL, *args, env=env)
    shown = concbench("show", "--json", env=env)
    return [json.loads(line) for line in shown.stdout.splitlines()]


@pytest.mark.parametrize("transport", ["tcp", "unix"])
def test_an_honest_server_is_verified_with_its_latency_stored_for_every_run(served_env, transport):
    (found,) = trials(served_env, "honest", "-p", f"transport={transport}", "--runs", "2")
    assert found["status"] == "ok", found
    for run in found["runs"]:
        latency = run["latency"]
        assert latency["requests"] == 40 and latency["rate"] == 400 and latency["connections"] == 3
        assert 0 < latency["latency_ns"]["p50"] <= latency["latency_ns"]["max"]
        assert latency["distribution"][0][0] == 0.0 and latency["distribution"][-1][0] == 100.0


@pytest.mark.parametrize(
    "mechanism, detail",
    [
        ("liar", "the load generator: connection 0, request 0: echoed byte 0 differs"),
        ("wanderer", 'refused: "tcp:192.0.2.1:7" is not on 127.0.0.1'),
        ("mute", "announced no address: no load was served"),
    ],
)
def test_a_server_that_lies_wanders_or_serves_nothing_is_invalid(served_env, mechanism, detail):
    (found,) = trials(served_env, mechanism)
    assert found["status"] == "invalid" and detail in found["detail"], found


def test_only_loopback_ports_and_sockets_in_the_scratch_directory_are_relayed(tmp_path):
    scratch = str(tmp_path)
    assert served.relay('{"listening": "tcp:127.0.0.1:8080"}', scratch) == "tcp:127.0.0.1:8080"
    assert served.relay(f'{{"listening": "unix:{scratch}/echo.sock"}}', scratch) == f"unix:{scratch}/echo.sock"
    assert served.relay('{"ok": true}', scratch) is None and served.relay("listening", scratch) is None
    for address in ["tcp:10.0.0.1:80", "tcp:127.0.0.1:99999", "unix:/run/other.sock", f"unix:{scratch}/../x.sock"]:
        assert served.relay(json.dumps({"listening": address}), scratch).startswith("refused: "), address
    assert served.relay('{"listening": 7}', scratch).startswith("refused: ")


def test_a_server_that_hangs_past_its_deadline_times_out_every_time(served_env):
    """Killed at the deadline, the server resets the generator's connections:
    the trial is TIMEOUT, never the INVALID of what the generator saw then."""
    found = trials(served_env, "sleeper", "--trials", "5", "--timeout", "1")
    assert [trial["status"] for trial in found] == ["timeout"] * 5, found
    assert {trial["detail"] for trial in found} == {"killed at its time limit"}


def test_a_served_table_shows_the_rate_sustained_and_the_latencies_and_marks_a_server_that_fell_behind(served_env):
    trials(served_env, "honest,laggard")
    shown = concbench("show", env=served_env).stdout.splitlines()
    header = next(line for line in shown if " p99.9 " in line)
    assert header.split()[-6:] == ["rate", "p50", "p99", "p99.9", "max", "trials"]
    rates = {line.split()[0]: line.split()[-6] for line in shown if line.startswith("server/")}
    assert rates["server/honest"].endswith("/s") and rates["server/laggard"].endswith("/s!")
    markdown = concbench("report", "--format", "md", env=served_env).stdout
    assert "| rate | p50 | p99 | p99.9 | max |" in markdown and "| ratio |" not in markdown
