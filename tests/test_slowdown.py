"""The known-slowdown test hook of the C and Go kits (option slow5, --slowdown=PCT):
cells run and verify with it, and it is recorded. Its speed is never asserted."""

import json
import os
import subprocess

import pytest
from conftest import concbench

from concbench import runtimes

CELLS = {(w, r, m) for w in ("pipe", "invoke") for r, m in (("c", "pthread"), ("go", "goroutine"))}


@pytest.fixture(scope="module")
def slowed(tmp_path_factory):
    db = tmp_path_factory.mktemp("slowdown") / "slowdown.db"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONCBENCH_")}
    cells = ["-w", "pipe,invoke", "-m", "c/pthread,go/goroutine"]
    done = concbench("run", "--profile", "smoke", *cells, "-o", "slow5", "--db", db, env=env, timeout=600)
    shown = concbench("show", "--json", "--db", db, env=env)
    return done, [json.loads(line) for line in shown.stdout.splitlines()]


def test_the_smoke_profile_verifies_with_the_slowdown_and_records_it(slowed):
    done, records = slowed
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    assert {(r["workload"], r["runtime"], r["mechanism"]) for r in records} == CELLS
    for record in records:
        assert record["status"] == "ok", f"{record['params']}: {record['detail']}\n{record['stderr'][-2000:]}"
        assert record["options"] == ["slow5"] and "slowdown=5" in record["runtime_info"]["flags"]


@pytest.mark.parametrize("runtime", ["c", "go"])
@pytest.mark.parametrize("value", ["0", "-5", "1001", "abc", "nan", ""])
def test_a_bad_slowdown_is_refused_in_one_line(slowed, runtime, value):
    # slowed built the kits.
    argv = [*runtimes.load_all()[runtime].trial_command(()), f"--slowdown={value}"]
    done = subprocess.run(argv, input="{}", capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    assert len(done.stderr.strip().splitlines()) == 1 and f"--slowdown={value}" in done.stderr
