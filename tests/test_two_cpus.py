"""At two CPUs, the rows that run CPU-bound work in parallel use both. Run
alone (marked `alone`: make test runs it after the others): a trial whose
units meet at a barrier every operation, with the other CPU busy with the
other tests' trials, waits for its starved unit and shows one CPU's worth
of time or less (rust/rayon 0.7 of a CPU beside a spinning process)."""

import json
import os

import pytest
from conftest import concbench

from concbench import cpus, verify

pytestmark = [pytest.mark.alone, pytest.mark.skipif(len(cpus.usable()) < 2, reason="needs 2 CPUs")]


PARALLEL_MAP_ROWS = ("rust/rayon", "go/goroutine", "cpp/tbb", "ruby/process", "ruby/ractor", "python/process")


def test_at_two_cpus_the_parallel_rows_of_cpu_bound_work_run_on_both(tmp_path):
    """The smoke run proves one CPU; here the rows that run CPU-bound work in
    parallel, on two CPUs, show by their process's CPU time that they ran on
    both at once: more CPU time than wall time, beyond the clocks' rounding."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONCBENCH_")}
    rows = ",".join(PARALLEL_MAP_ROWS)
    command = ("run", "--profile", "smoke", "-w", "map-cpu", "-m", rows, "--cpus", "2", "-p", "seconds=0.5")
    done = concbench(*command, "--db", tmp_path / "m.db", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    shown = concbench("show", "--json", "--db", tmp_path / "m.db", env=env)
    share, least = verify.PROCESS_CPU_SLACK
    ran, cpus_at_once = {}, {}
    for record in map(json.loads, shown.stdout.splitlines()):
        row, process = f"{record['runtime']}/{record['mechanism']}", record["process"]
        cpu_ns = process["user_ns"] + process["sys_ns"]
        cpus_at_once[row] = round(cpu_ns / process["wall_ns"], 2)
        ran[row] = (record["runtime_info"]["parallelism"], cpu_ns > process["wall_ns"] * (1 + share) + least)
    assert ran == dict.fromkeys(PARALLEL_MAP_ROWS, (2, True)), cpus_at_once
