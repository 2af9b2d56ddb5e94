"""The report across machines: each trial says which machine ran it, a run
whose trials come from two machines shows each cell once per machine, and
`report --machines` sets each machine's ratios to its own baseline side by
side."""

import csv
import io
import json
import sqlite3
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import assert_one_line_error, concbench
from test_export import tables
from test_history import paced_run
from test_html_report import HOSTILE, classed, text

from concbench.records import CellKey, RunInfo, Sample, TrialRecord
from concbench.report import aggregate, html, markdown
from concbench.report.machines import MachineRun, MachinesReport, SideBySide
from concbench.status import Status


def on(env, machine):
    return {**env, "CONCBENCH_MACHINE": machine}


def slow_down(env, run_id, factor, machine=None):
    """As if a slower machine had made a run's trials (of one machine only, if named)."""
    with sqlite3.connect(env["CONCBENCH_DB"]) as db:
        db.execute(
            "UPDATE samples SET wall_ns = wall_ns * ? WHERE trial_id IN "
            "(SELECT id FROM trials WHERE run_id = ? AND (? IS NULL OR machine = ?))",
            (factor, run_id, machine, machine),
        )


def machines_markdown(env, *args):
    done = concbench("report", "--machines", *args, "--format", "md", env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_each_machine_is_set_against_its_own_baseline(fake_env):
    paced_run(on(fake_env, "alpha"), 2000)
    paced_run(on(fake_env, "beta"), 4000, "paced,honest,hog")
    slow_down(fake_env, 2, 10)  # beta is ten times slower: x40 against alpha's baseline, x4 against its own
    written = machines_markdown(fake_env)
    (rows,) = tables(written).values()
    assert rows[0] == ["machine", "fake/honest", "fake/paced", "fake/hog"]
    assert rows[2:] == [["alpha", "x1.00", "x2.00", "n/a"], ["beta", "x1.00", "x4.00", "x1.00"]]
    assert "Ratios carry across machines, absolute times do not" in written
    assert "Each machine's ratios are to its own fake/honest." in written
    assert "- alpha: run 1 (" in written and "- beta: run 2 (" in written

    done = concbench("report", "--machines", env=fake_env)
    page = Path(fake_env["CONCBENCH_DB"]).parent / "machines.html"
    assert done.returncode == 0 and str(page) in done.stdout, done.stderr
    root = ET.fromstring(page.read_text().split("\n", 1)[1])
    (figure,) = classed(root, "figure", "heatmap-figure")
    labels = [t.text for t in figure.iter("text")]
    assert labels.count("x1.00") == 3 and "x4.00" in labels and "x40" not in " ".join(labels)
    outlined = [r for r in classed(figure, "rect", "heat-cell") if r.get("stroke-width") == "2"]
    assert len(outlined) == 2  # each machine's own baseline
    assert "absolute times do not" in text(root)

    single = concbench("show", "2", env=fake_env).stdout  # one machine's run: as it always was
    assert "Triangle (triangle): n=100\n" in single and "on beta" not in single and "machines " not in single


def test_machines_without_the_workloads_baseline_share_another_row_as_theirs(fake_env):
    paced_run(on(fake_env, "alpha"), 2000)
    paced_run(on(fake_env, "beta"), 1000, "paced,hog")  # no fake/honest: each machine's own paced is x1.00
    (rows,) = tables(machines_markdown(fake_env)).values()
    assert rows[0] == ["machine", "fake/honest", "fake/paced", "fake/hog"]
    assert rows[2:] == [["alpha", "x0.50", "x1.00", "n/a"], ["beta", "n/a", "x1.00", "x1.00"]]


def test_the_latest_run_of_each_machine_or_those_of_the_runs_given(fake_env):
    paced_run(on(fake_env, "alpha"), 2000)
    assert_one_line_error(
        concbench("report", "--machines", env=fake_env),
        "report --machines sets machines side by side: the database has runs of one machine, alpha",
    )
    paced_run(on(fake_env, "beta"), 4000)
    paced_run(on(fake_env, "alpha"), 3000)
    ratios = {row[0]: row[2] for row in tables(machines_markdown(fake_env))["Triangle (triangle): n=100"][2:]}
    assert ratios == {"alpha": "x3.00", "beta": "x4.00"}
    ratios = {row[0]: row[2] for row in tables(machines_markdown(fake_env, "1", "2"))["Triangle (triangle): n=100"][2:]}
    assert ratios == {"alpha": "x2.00", "beta": "x4.00"}
    assert_one_line_error(
        concbench("report", "--machines", "1", "3", env=fake_env), "runs 1, 3 have trials of one machine, alpha"
    )
    assert_one_line_error(concbench("report", "1", "2", env=fake_env), "several go with --machines")
    assert_one_line_error(concbench("report", "--machines", "--format", "csv", env=fake_env), "html or md, not csv")


def test_a_run_drained_by_two_machines_shows_each_cell_once_per_machine(fake_env):
    done = concbench(
        "run",
        "-w",
        "triangle",
        "-m",
        "paced,honest",
        "--trials",
        "2",
        "--warmup",
        "0",
        "--runs",
        "3",
        env={**on(fake_env, "alpha"), "FAKE_WALL_NS": "2000"},
    )
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(fake_env["CONCBENCH_DB"]) as db:
        db.execute("UPDATE trials SET machine = 'beta' WHERE trial = 1")
    slow_down(fake_env, 1, 10, "beta")  # mixed, the medians would be neither machine's

    shown = concbench("show", env=fake_env).stdout
    assert "machines alpha, beta ran the trials, each table one machine's" in shown
    assert "Triangle (triangle): n=100  on alpha" in shown and "Triangle (triangle): n=100  on beta" in shown

    found = tables(concbench("report", "--format", "md", env=fake_env).stdout)
    alpha, beta = found["Triangle (triangle): n=100, on alpha"], found["Triangle (triangle): n=100, on beta"]
    assert [row[4:6] for row in alpha[2:]] == [["0.000001", "x1.00"], ["0.000002", "x2.00"]]
    assert [row[4:6] for row in beta[2:]] == [["0.000010", "x1.00"], ["0.000020", "x2.00"]]

    document = json.loads(concbench("report", "--format", "json", env=fake_env).stdout)
    assert {(t["trial"], t["machine"]) for t in document["trials"]} == {(0, "alpha"), (1, "beta")}
    assert all(len(t["machine_id"]) == 16 for t in document["trials"])
    cells = {(c["mechanism"], c["machine"]): c for c in document["cells"]}
    assert cells["honest", "beta"]["real_s"]["median"] == pytest.approx(
        10 * cells["honest", "alpha"]["real_s"]["median"]
    )
    assert len(cells) == 4 and all(c["trials"] == 1 for c in cells.values())
    exported = csv.DictReader(io.StringIO(concbench("report", "--format", "csv", env=fake_env).stdout))
    assert {(row["trial"], row["machine"]) for row in exported} == {("0", "alpha"), ("1", "beta")}

    page = Path(fake_env["CONCBENCH_DB"]).parent / "run-1.html"
    assert concbench("report", env=fake_env).returncode == 0
    root = ET.fromstring(page.read_text().split("\n", 1)[1])
    assert [text(s.find("h3")) for s in classed(root, "section", "result")] == [
        "Triangle (triangle) n=100 on alpha",
        "Triangle (triangle) n=100 on beta",
    ]

    # Workers on two machines drained the run: it counts for each of them.
    rows = tables(machines_markdown(fake_env))["Triangle (triangle): n=100"][2:]
    assert rows == [["alpha", "x1.00", "x2.00"], ["beta", "x1.00", "x2.00"]]


# Markup, quotes and a table's cell separator.
NAME = HOSTILE + " | a"


def hostile_side_by_side() -> MachinesReport:
    """Two machines' tables whose every name is hostile: the renderers must escape what
    the command line and the manifests would refuse."""
    trials = [
        TrialRecord(
            CellKey(NAME, "fake", mechanism, (("n", NAME),)),
            0,
            Status.OK,
            "",
            {},
            samples=(Sample(False, wall_ns, 1, 1, 1, {}),),
            machine=machine,
        )
        for machine in (NAME, "alpha")
        for mechanism, wall_ns in (("honest", 1000), (NAME, 3000))
    ]
    found = aggregate.tables(trials, [], {}, by_machine=True)
    run = RunInfo(1, NAME, None, "complete", {}, {"machine": NAME, "cpu": NAME})
    return MachinesReport(
        tuple(MachineRun(name, run, run.environment) for name in (NAME, "alpha")),
        (SideBySide({table.machine: table for table in found}),),
    )


def test_the_machines_html_and_markdown_escape_every_name():
    page = html.render_machines(hostile_side_by_side())
    root = ET.fromstring(page.split("\n", 1)[1])  # well-formed: nothing broke out of its place
    assert "<script" not in page and NAME in text(root)
    labels = [t.text for t in root.iter("text")]
    assert NAME in labels and f"fake/{NAME}" in labels  # a machine's row, a mechanism's column
    links = {e.get("href") for e in root.iter() if e.get("href")}
    ids = {e.get("id") for e in root.iter() if e.get("id")}
    assert links == {"#machines"} <= {f"#{i}" for i in ids}

    written = markdown.render_machines(hostile_side_by_side())
    assert "<script" not in written
    (rows,) = tables(written).values()
    assert len({len(row) for row in rows}) == 1 and len(rows) == 4  # no row broken by a | in a name
