"""A served workload (docs/protocol.md, "Servers under load"): the harness
starts concbench's load generator beside the server trial once it announces
its address, and a trial counts only if the generator verified every echoed
byte of every run. What the generator measured is stored with each run."""

import json
import os
import re
import socket
import threading

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
    seeds = {run["latency"]["seed"] for run in found["runs"]}
    assert len(seeds) == 1 and 0 <= seeds.pop() < 2**64  # the trial's own, drawn for it
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


def test_only_loopback_ports_and_plain_names_in_the_scratch_directory_are_relayed(tmp_path):
    scratch = str(tmp_path)
    assert served.relay('{"listening": "tcp:127.0.0.1:8080"}', scratch) == "tcp:127.0.0.1:8080"
    assert served.relay(f'{{"listening": "unix:{scratch}/echo.sock"}}', scratch) == "unix:echo.sock"
    assert served.relay('{"ok": true}', scratch) is None and served.relay("listening", scratch) is None
    for address in [
        "tcp:10.0.0.1:80",
        "tcp:127.0.0.1:99999",
        "unix:/run/other.sock",
        f"unix:{scratch}/../x.sock",
        f"unix:{scratch}/..",
        f"unix:{scratch}/sub/x.sock",
        f"unix:{scratch}/x.sock\r",
        f"unix:{scratch}/x\x7f.sock",
        f"unix:{scratch}/x\0.sock",
        f"unix:{scratch}//x.sock",
        f"unix:{scratch}/",
    ]:
        assert served.relay(json.dumps({"listening": address}), scratch).startswith("refused: "), address
    assert served.relay('{"listening": 7}', scratch).startswith("refused: ")


class Planted:
    """A listener outside every trial's scratch, counting who connects to it."""

    def __init__(self, path):
        self.listener = socket.socket(socket.AF_UNIX)
        self.listener.bind(str(path))
        self.listener.listen(64)
        self.connections = 0
        threading.Thread(target=self._count, daemon=True).start()

    def _count(self):
        while True:
            try:
                self.listener.accept()[0].close()
            except OSError:  # closed
                return
            self.connections += 1

    def close(self):
        self.listener.close()


@pytest.fixture
def outside(tmp_path):
    """A folder outside the trials' scratch, its echo.sock a planted listener."""
    folder = tmp_path / "outside"
    folder.mkdir()
    planted = Planted(folder / "echo.sock")
    yield folder, planted
    planted.close()


@pytest.mark.parametrize(
    "announce",
    [
        # Cut at the \r, this once named the planted socket; resolved whole, the scratch.
        "unix:{outside}/echo.sock\r" + "/.." * 40 + "{scratch}/echo.sock",
        "unix:{scratch}/sub/echo.sock",  # sub: a link to the outside folder
        "unix:{scratch}" + "/.." * 40 + "{outside}/echo.sock",
        "unix:{scratch}/..",
    ],
    ids=["carriage return", "slash", "dot-dot path", "dot-dot name"],
)
def test_an_announced_socket_that_is_no_plain_name_in_the_scratch_is_refused(served_env, outside, announce):
    folder, planted = outside
    env = {**served_env, "SERVED_ANNOUNCE": announce.replace("{outside}", str(folder)), "SERVED_OUTSIDE": str(folder)}
    (found,) = trials(env, "crooked", "-p", "transport=unix")
    assert found["status"] == "invalid" and found["detail"].startswith(
        'the load generator: bad address refused: "unix:'
    )
    assert planted.connections == 0


def test_a_scratch_swapped_for_a_link_after_announcing_does_not_redirect_the_generator(served_env, outside):
    """The swap comes before the generator connects: it finds the socket in
    the folder the harness opened, the server's own, and serves it."""
    folder, planted = outside
    (found,) = trials({**served_env, "SERVED_OUTSIDE": str(folder)}, "swapper", "-p", "transport=unix")
    assert found["status"] == "ok", found
    assert planted.connections == 0


def test_a_server_that_hangs_past_its_deadline_times_out_every_time(served_env):
    """Killed at the deadline, the server resets the generator's connections:
    the trial is TIMEOUT, never the INVALID of what the generator saw then."""
    found = trials(served_env, "sleeper", "--trials", "5", "--timeout", "1")
    assert [trial["status"] for trial in found] == ["timeout"] * 5, found
    assert {trial["detail"] for trial in found} == {"killed at its time limit"}


def test_a_server_that_answers_without_using_what_it_read_is_invalid(served_env):
    """Its replies are the requests of seed 0, whatever it read; each trial draws its own seed."""
    (found,) = trials(served_env, "parrot")
    assert found["status"] == "invalid", found
    assert re.search(r"the load generator: connection \d+, request \d+: echoed byte \d+ differs", found["detail"])


def test_a_server_that_takes_the_seed_from_the_generators_proc_files_is_invalid(served_env, tmp_path):
    """The snoop finds the generator in /proc and looks for the seed in its
    cmdline, environ and memory (not as root: nothing stops root): none shows it."""
    snooped = tmp_path / "snooped.json"
    (found,) = trials({**served_env, "SERVED_SNOOPED": str(snooped)}, "snoop")
    assert found["status"] == "invalid", found
    assert re.search(r"the load generator: connection \d+, request \d+: echoed byte \d+ differs", found["detail"])
    seen = json.loads(snooped.read_text())
    assert seen["generator"] and seen["cmdline"] == "read" and "seed" not in seen, seen
    assert seen["environ"] == "Permission denied" or os.geteuid() == 0, seen


def test_a_served_table_shows_the_rate_sustained_and_the_latencies_and_marks_a_server_that_fell_behind(served_env):
    trials(served_env, "honest,laggard")
    shown = concbench("show", env=served_env).stdout.splitlines()
    header = next(line for line in shown if " p99.9 " in line)
    assert header.split()[-7:] == ["rate", "p50", "p99", "lag", "p99.9", "max", "trials"]
    rates = {line.split()[0]: line.split()[-7] for line in shown if line.startswith("server/")}
    assert rates["server/honest"].endswith("/s") and rates["server/laggard"].endswith("/s!")
    markdown = concbench("report", "--format", "md", env=served_env).stdout
    assert "| rate | p50 | p99 | lag | p99.9 | max |" in markdown and "| ratio |" not in markdown
