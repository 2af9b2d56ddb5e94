"""`concbench report --format md|csv|json` on runs of the fake runtime with
verified, failed and n/a cells: every trial and run is exported, the
summaries match the trials, and text from a runtime cannot break a table."""

import contextlib
import csv
import io
import json
import os
import re
import shutil
import sqlite3
import statistics

import pytest
from conftest import FIXTURES, assert_one_line_error, concbench

NA_REASON = "no triangles | not one,\nnot a side"  # a runtime's text with a table's metacharacters


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """Run 1: triangle and ticks (a time and an executions table) with a
    verified, a lying, a crashing and an n/a mechanism; run 2: tally, a rate
    workload in benchmark-ips' format."""
    tmp = tmp_path_factory.mktemp("export")
    runtime = tmp / "runtimes" / "fake"
    shutil.copytree(FIXTURES / "runtimes" / "fake", runtime)
    manifest = runtime / "runtime.toml"
    manifest.write_text(manifest.read_text().replace('"this mechanism has no triangles"', json.dumps(NA_REASON)))
    shutil.copy(runtime / "workloads" / "ticks.py", runtime / "workloads" / "tally.py")
    (tmp / "workloads").mkdir()
    ticks = (FIXTURES / "workloads" / "ticks.toml").read_text()
    (tmp / "workloads" / "tally.toml").write_text(
        ticks.replace('id = "ticks"', 'id = "tally"').replace('"executions"', '"ips"')
    )
    env = {
        **os.environ,
        "CONCBENCH_BUILTINS": "off",
        "CONCBENCH_WORKLOADS": f"{FIXTURES / 'workloads'}:{tmp / 'workloads'}",
        "CONCBENCH_RUNTIMES": str(tmp / "runtimes"),
        "CONCBENCH_DB": str(tmp / "test.db"),
    }
    first = concbench(
        "run",
        "-w",
        "triangle,ticks",
        "-m",
        "honest,liar,crash,inexpressible",
        "--profile",
        "smoke",
        "--trials",
        "2",
        "--warmup",
        "1",
        "--runs",
        "2",
        env=env,
    )
    second = concbench("run", "-w", "tally", "-m", "honest", "--profile", "smoke", "--runs", "3", env=env)
    assert first.returncode == 1 and second.returncode == 0, first.stderr + second.stderr
    with contextlib.closing(sqlite3.connect(env["CONCBENCH_DB"])) as db, db:
        db.execute("DELETE FROM probes")  # run 2: a run from before the machine was probed
        db.executemany("INSERT INTO probes (run_id, at, work_ns) VALUES (1, ?, ?)", PROBES)
    return env


# Run 1's probes: 4 ms, then a burst of three probes 2 s apart at 3 to 4 times that.
PROBES = [(i * 2 * 10**9, ms * 10**6) for i, ms in enumerate([4, 4, 5, 4, 12, 16, 14, 4, 4, 4])]
SPEED = (
    "machine speed: varied up to 4.0x during this run (p95/p5 3.8x; slower than 1.5x its median "
    "in 30% of 10 probes, the longest such spell 4.0 s)"
)


def report(env, fmt, run=1):
    done = concbench("report", run, "--format", fmt, env=env)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return done.stdout


def tables(markdown: str) -> dict[str, list[list[str]]]:
    """Each table under its heading, as rows of cells split at unescaped pipes."""
    found, heading = {}, None
    for line in markdown.splitlines():
        if line.startswith("### "):
            heading = line[4:]
        elif line.startswith("| "):
            found.setdefault(heading, []).append([cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]])
    return found


def test_markdown_has_a_row_per_mechanism_in_the_seed_formats(env):
    text = report(env, "md")
    found = tables(text)
    triangle, ticks = found["Triangle (triangle): n=10"], found["Ticks (ticks): batch=10 seconds=0.01"]
    assert triangle[0][:5] == ["mechanism", "user", "system", "total", "real"]
    assert ticks[0][:4] == ["mechanism", "executions", "in seconds", "ops/s"]
    for rows in (triangle, ticks):
        assert all(len(row) == len(rows[0]) for row in rows)  # no cell broken by a runtime's text
        assert [row[0] for row in rows[2:]] == [
            "fake/honest (baseline)",
            "fake/liar",
            "fake/crash",
            "fake/inexpressible",
        ]
        assert rows[3][1] == "no verified trial" and rows[3][-1] == "0/2 2 INVALID"
    assert triangle[2][4] == "0.000001" and triangle[2][5] == "x1.00" and triangle[2][-1] == "2/2"
    assert ticks[2][1:4] == ["30", "0.0000", "30.000M"]
    assert triangle[5][1] == r"n/a: no triangles \| not one, not a side"
    assert "fake/crash trials 1, 2: CRASH: killed by signal 11: about to crash" in text
    assert "Produced by concbench" in text and "from run 1" in text and "- CPU: " in text


def test_markdown_of_an_ips_workload(env):
    (rows,) = tables(report(env, "md", run=2)).values()
    assert rows[0][:5] == ["mechanism", "i/s", "±", "count", "in"]
    assert rows[2][:5] == ["fake/honest (baseline)", "30.000M", "0.0%", "90.000", "0.000003s"]


def test_csv_has_a_row_per_run_and_one_per_trial_without_runs(env):
    trials = json.loads(report(env, "json"))["trials"]
    text = report(env, "csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == sum(max(1, len(t["runs"])) for t in trials)
    honest_line = next(line for line in text.splitlines() if ',"triangle","fake","honest",' in line)
    # numbers bare: cpus 0, trial 0
    assert honest_line.startswith('1,"triangle","fake","honest","[]","{""n"": 10}",0,0,"ok","",')
    assert "stderr" not in rows[0]
    honest = [r for r in rows if r["workload"] == "triangle" and r["mechanism"] == "honest"]
    assert [(r["trial"], r["run_index"], r["warmup"]) for r in honest] == [
        ("0", "0", "true"),
        ("0", "1", "false"),
        ("0", "2", "false"),
        ("1", "0", "true"),
        ("1", "1", "false"),
        ("1", "2", "false"),
    ]
    assert honest[1]["wall_ns"] == "1000" and json.loads(honest[1]["result"]) == {"total": 55}
    assert json.loads(honest[1]["params"]) == {"n": 10} and honest[1]["peak_kb"].isdigit()
    crash = [r for r in rows if r["workload"] == "triangle" and r["mechanism"] == "crash"]
    assert len(crash) == 2 and all(r["status"] == "crash" and r["process_signal"] == "11" for r in crash)
    assert all(r["run_index"] == r["wall_ns"] == r["warmup"] == "" for r in crash)


def test_json_has_every_trial_and_cells_that_match_them(env):
    document = json.loads(report(env, "json"))
    assert document["schema"] == 1 and document["run"]["id"] == 1 and document["run"]["state"] == "complete"
    shown = [json.loads(line) for line in concbench("show", "--json", "1", env=env).stdout.splitlines()]
    assert document["trials"] == shown and len(shown) == 12
    cells = {(c["workload"], c["mechanism"]): c for c in document["cells"]}
    assert len(cells) == 6
    for (workload, mechanism), cell in cells.items():
        trials = [t for t in shown if (t["workload"], t["mechanism"]) == (workload, mechanism)]
        verified = [t for t in trials if t["status"] == "ok"]
        timed = [run for t in verified for run in t["runs"] if not run["warmup"]]
        assert (cell["trials"], cell["verified"]) == (len(trials), len(verified))
        if not timed:
            assert cell["real_s"] is None and cell["failures"] == {trials[0]["status"]: 2}
            continue
        assert cell["real_s"]["median"] == statistics.median(r["wall_ns"] / 1e9 for r in timed)
        assert cell["peak_kb"] == statistics.median(t["peak_kb"] for t in verified)
    assert cells["ticks", "honest"]["rate_per_s"]["median"] == 30e6 and cells["ticks", "honest"]["baseline"]
    assert cells["triangle", "honest"]["rate_per_s"] is None and cells["triangle", "honest"]["ratio"] == 1.0
    assert {
        "workload": "triangle",
        "row": "fake/inexpressible",
        "kind": "n/a",
        "reason": NA_REASON,
        "params": "n=10",
    } in document["skipped"]


def test_a_report_that_cannot_be_written_is_a_one_line_error_and_leaves_nothing(env, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert_one_line_error(concbench("report", "-o", blocker / "run.html", env=env), "cannot write")
    assert_one_line_error(concbench("report", "9", env=env), "no run 9")
    written = tmp_path / "run.md"
    assert concbench("report", "--format", "md", "-o", written, env=env).returncode == 0
    assert written.read_text().startswith("## concbench run 2")
    assert sorted(tmp_path.iterdir()) == sorted([blocker, written])  # no partial file left behind


def test_a_report_writes_through_no_link_planted_beside_it_or_in_its_place(env, tmp_path):
    """As another user could in /tmp: the old half-written name, and the report's own."""
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    written = tmp_path / "run.md"
    (tmp_path / "run.md.partial").symlink_to(victim)
    written.symlink_to(victim)
    assert concbench("report", "--format", "md", "-o", written, env=env).returncode == 0
    assert victim.read_text() == "precious\n"
    assert not written.is_symlink() and written.read_text().startswith("## concbench run 2")


def test_show_and_report_narrow_a_stored_run_to_workloads_runtimes_and_mechanisms(env):
    shown = concbench("show", "1", "-w", "triangle", "-m", "fake/honest,inexpressible", env=env)
    assert shown.returncode == 0, shown.stderr
    assert "(triangle)" in shown.stdout and "(ticks)" not in shown.stdout
    assert "fake/honest" in shown.stdout and "fake/liar" not in shown.stdout and "fake/crash" not in shown.stdout
    assert "fake/inexpressible" in shown.stdout  # its n/a line is kept with it
    records = [json.loads(line) for line in concbench("show", "1", "--json", "-m", "liar", env=env).stdout.splitlines()]
    assert {(r["workload"], r["mechanism"]) for r in records} == {("triangle", "liar"), ("ticks", "liar")}
    exported = json.loads(concbench("report", "1", "--format", "json", "-r", "fake", "-w", "ticks", env=env).stdout)
    assert {t["workload"] for t in exported["trials"]} == {"ticks"}


@pytest.mark.parametrize("option, name", [("-r", "python"), ("-m", "fiber"), ("-w", "spawn")])
def test_narrowing_to_a_name_the_run_lacks_is_a_one_line_error(env, option, name):
    for command in ("show", "report"):
        assert_one_line_error(concbench(command, "1", option, name, env=env), f"{name!r}", "known:")


def test_every_format_says_how_the_machines_speed_varied_and_nothing_without_probes(env, tmp_path):
    shown = concbench("show", "1", env=env).stdout
    assert shown.splitlines()[2] == SPEED  # under the run and its environment
    assert f"\n{SPEED}.\n" in report(env, "md")
    speed = json.loads(report(env, "json"))["machine_speed"]
    assert speed["probes"] == 10 and speed["range"] == 4.0 and speed["slow_share"] == 0.3
    assert speed["longest_spell_s"] == 4.0 and SPEED.endswith(speed["text"])
    page = tmp_path / "run.html"
    assert concbench("report", "1", "-o", page, env=env).returncode == 0
    assert "<th>machine speed</th><td>varied up to 4.0x during this run" in page.read_text()
    assert "machine speed" not in concbench("show", "2", env=env).stdout + report(env, "md", run=2)
    assert json.loads(report(env, "json", run=2))["machine_speed"] is None
