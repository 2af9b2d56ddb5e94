"""The smoke profile of every cell of every runtime but those that start a
JIT's engine (smoke.py says why the suite runs in two halves), and the
checks of the seeds' own output on the Ruby and C rows."""

import json
import os
import re

from conftest import concbench
from smoke import *  # noqa: F403 (the smoke run's tests, on this file's half)

from concbench import runtimes

SMOKE_HALF = "others"


def test_gc_off_is_recorded_where_the_language_has_a_collector(smoke):
    _, by_cell, _, _ = smoke
    ruby, c = by_cell["invoke", "ruby", "none"][0], by_cell["invoke", "c", "none"][0]
    assert ruby["params"]["gc"] == "off" and "gc=off" in ruby["runtime_info"]["flags"]
    assert c["params"]["gc"] == "off" and "gc=off" not in c["runtime_info"]["flags"]


def test_rate_tables_are_in_the_seeds_own_formats(smoke):
    done, _, _, _ = smoke
    # Concurrently: "proc.call:   11048400 executions in 1.0000 seconds", then ops/s.
    assert re.search(r"^ruby/none: +\d+ executions in \d\.\d{4} seconds +[\d.]+[kMB]? +x1\.00 ", done.stdout, re.M)
    # benchmark-ips as Pbt prints it: "ractor  39.273 (± 2.5%) i/s - 198.000 in 5.042910s".
    assert re.search(
        r"^ +ruby/ractor +[\d.]+[kMB]? \((± *[\d.]+%| +- )\) i/s - +[\d.]+[kMB]? in +\d+\.\d{6}s", done.stdout, re.M
    )


def test_the_run_ends_with_a_diagnosis_computed_from_its_figures(smoke):
    done, _, _, _ = smoke
    assert "Diagnosis (computed from this run" in done.stdout
    for work in ("trivial work", "CPU-bound work", "I/O-bound work", "a failing property and its shrinking"):
        assert re.search(rf"^- {re.escape(work)} \(map-[a-z]+ .*ruby/none", done.stdout, re.M), work
    assert re.search(r"^Concurrency pays for .*\.", done.stdout, re.M)


def test_a_forked_producer_that_fills_its_pipe_waits_and_counts_it(tmp_path):
    # The smoke profile's queue never fills a pipe (8,192 records): here 4 producers push 40,000.
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONCBENCH_")}
    done = concbench(
        "run",
        "--profile",
        "smoke",
        "-w",
        "queue",
        "-m",
        "ruby/process",
        "-p",
        "items=10000",
        "-p",
        "producers=4",
        "-p",
        "capacity=0",
        "--db",
        tmp_path / "q.db",
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    shown = concbench("show", "--json", "--db", tmp_path / "q.db", env=env)
    (record,) = [json.loads(line) for line in shown.stdout.splitlines()]
    assert record["status"] == "ok" and record["runs"][0]["evidence"]["blocked"] > 0


def test_doctor_finds_each_seeds_library_or_says_how_to_install_it():
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONCBENCH_")}
    done = concbench("doctor", env=env)
    found = runtimes.load_all()
    optional = [(rt, name) for rt in found.values() for name, m in rt.manifest.mechanisms.items() if m.install]
    rows = {f"{rt.name}/{name}" for rt, name in optional}
    assert {"ruby/concurrently", "ruby/pbt_none", "ruby34/um", "haskell/streamly"} <= rows
    for rt, name in optional:
        if not rt.toolchain.ok:
            continue
        line = re.search(rf"^(ok|missing) +{rt.name}/{name} +(.*)$", done.stdout, re.M)
        assert line, done.stdout
        if line[1] == "ok":
            assert line[2] == rt.probe_requirement(name).output  # the version recorded with its results
        else:
            assert line[2].startswith("optional, not installed") and line[2].endswith(rt.mechanism_hint(name))
