"""Ports that do less than the work must not pass: each fake mechanism of the
cheat runtime cheats in one way a real port could, and must come out INVALID
with the check that caught it; the honest port of the same workload verifies."""

import json
import os

import pytest
from conftest import FIXTURES, concbench

from concbench import paths

CHEATS = [
    ("spawn", "insomniac", ["-p", "delay_ms=500"], "less than the 0.5 s every unit sleeps"),
    ("spawn", "boaster", ["-p", "delay_ms=0"], "longer than the"),
    ("spawn", "loner", [], "units = 1, fewer than the 5 the work starts"),
    ("mutex-cpu", "unlocked", [], "sum = "),
    ("mutex-io", "unlocked", [], "bytes = "),
    ("mailbox", "unordered", [], "ordered = 338349, expected 338350"),
    ("latch", "lonely", [], "checksum = 24, expected 60"),
    ("map-cpu", "striped_wrong", [], "sum = "),
    ("map-shrink", "hasty", [], "candidates = 0, expected"),
]


def _run(tmp_path, workload, mechanism, *args):
    env = {
        **os.environ,
        "CONCBENCH_BUILTINS": "off",
        "CONCBENCH_RUNTIMES": str(FIXTURES / "cheats"),
        "CONCBENCH_WORKLOADS": str(paths.BUILTIN["workloads"]),  # the real specs, with their real checks
        "CONCBENCH_DB": str(tmp_path / "c.db"),
    }
    done = concbench("run", "--profile", "smoke", "-w", workload, "-m", mechanism, *args, env=env)
    shown = concbench("show", "--json", env=env)
    return done, [json.loads(line) for line in shown.stdout.splitlines()]


@pytest.mark.parametrize("workload, mechanism, args, caught", CHEATS, ids=[f"{w}-{m}" for w, m, _, _ in CHEATS])
def test_a_cheating_port_is_invalid(tmp_path, workload, mechanism, args, caught):
    done, records = _run(tmp_path, workload, mechanism, *args)
    assert done.returncode == 1, done.stdout + done.stderr
    assert records and all(r["status"] == "invalid" and caught in r["detail"] for r in records), records


@pytest.mark.parametrize("workload", sorted({w for w, _, _, _ in CHEATS}))
def test_the_honest_port_of_the_same_workload_verifies(tmp_path, workload):
    done, records = _run(tmp_path, workload, "honest")
    assert done.returncode == 0, done.stdout + done.stderr
    assert records and all(r["status"] == "ok" for r in records)
