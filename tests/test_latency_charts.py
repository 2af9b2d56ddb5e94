"""The latency charts of a served workload on the HTML page: a percentile
plot under each table and, where its tables sweep a parameter, its p99 and
p50 over that parameter. The records are made here, the load of each run
made up; nothing runs."""

import csv
import io
import json
import xml.etree.ElementTree as ET

from conftest import ROOT
from test_html_report import HOSTILE, classed, text

from concbench.records import CellKey, RunInfo, Sample, TrialRecord
from concbench.report import aggregate, export, html, html_charts, html_results, markdown, terminal
from concbench.report.run_report import RunReport
from concbench.status import Status
from concbench.workloads import load_all

CONNECTIONS = (4, 50, 500)
RATE, REQUESTS = 2000, 1000
# A run's distribution, as the generator gives it ([percentile, ns], 0 first,
# 100 last), scaled by each run's factor; its p99 is 1 ms times the factor.
DISTRIBUTION = ((0.0, 50_000), (50.0, 100_000), (90.0, 300_000), (99.0, 1_000_000), (99.9, 3_000_000), (100.0, 5e6))


def load(connections: int, factor: int, behind: bool, send_lag_ns: int = 0) -> dict:
    """A run's load and the latency it met; a run that fell behind took twice the time its requests were due in."""
    at = {p: int(ns * factor) for p, ns in DISTRIBUTION}
    return {
        "connections": connections,
        "rate": RATE,
        "requests": REQUESTS,
        "connect_ns": 100_000,
        "elapsed_ns": REQUESTS * 1_000_000_000 // RATE * (2 if behind else 1),
        "send_lag_ns": send_lag_ns,
        "latency_ns": {
            "min": at[0.0],
            "mean": at[50.0],
            "p50": at[50.0],
            "p90": at[90.0],
            "p99": at[99.0],
            "p999": at[99.9],
            "p9999": at[100.0],
            "max": at[100.0],
        },
        "distribution": [[p, ns] for p, ns in at.items()],
    }


def records() -> list[TrialRecord]:
    """echo at three connection counts: c/epoll, go/goroutine (behind the rate
    at 500), a mechanism named in markup, and one whose trial failed."""
    found = []
    for connections in CONNECTIONS:
        params = (
            ("connections", connections),
            ("size", 64),
            ("rate", RATE),
            ("duration_ms", 500),
            ("transport", "tcp"),
        )
        for runtime, mechanism in (("c", "epoll"), ("go", "goroutine"), ("go", HOSTILE), ("c", "pthread")):
            behind = (runtime, mechanism, connections) == ("go", "goroutine", 500)
            samples = tuple(
                Sample(False, 500_000_000, 1_000, 1_000, connections, {}, latency=load(connections, factor, behind))
                for factor in (3, 1, 2)  # the median run by p99: the last
            )
            failed = mechanism == "pthread"
            found.append(
                TrialRecord(
                    CellKey("echo", runtime, mechanism, params),
                    0,
                    Status.INVALID if failed else Status.OK,
                    "",
                    {},
                    samples=() if failed else samples,
                )
            )
    return found


def tables() -> list[aggregate.Table]:
    return aggregate.tables(records(), [], load_all([ROOT / "workloads"]))


def test_each_served_table_has_a_percentile_plot_of_its_rows_with_latency():
    found = tables()
    page = html_results.results(found)
    assert "<i>" not in page
    sections = classed(ET.fromstring(page), "section", "result")
    assert len(sections) == len(CONNECTIONS)
    for section, connections in zip(sections, CONNECTIONS):
        (figure,) = classed(section, "figure", "percentiles")
        lines = classed(figure, "g", "line")
        assert len(lines) == 3  # the failed row has no latency: left out
        for line in lines:
            (polyline,) = line.iter("polyline")
            assert len(polyline.get("points").split()) == len(DISTRIBUTION)  # below 100%, then the max at the edge
            # 1,000 requests: marked at min, p50, p90, p99 and p99.9, then the max
            assert len(classed(line, "g", "point")) == 6
        labels = [t.text for t in figure.iter("text")]
        assert {"0%", "90%", "99%", "99.9%", "max"} <= set(labels)
        behind = " !" if connections == 500 else ""
        assert {"c/epoll", f"go/goroutine{behind}", f"go/{HOSTILE}"} <= set(labels)
        tips = [t.text for t in figure.iter("title")]
        assert "c/epoll, the run with the median p99: p99 2 ms" in tips  # its runs' p99: 3, 1 and 2 ms
        assert "max is drawn at the right edge" in text(figure.find("figcaption"))
        assert ("fell behind the rate asked" in text(figure.find("figcaption"))) == bool(behind)
    assert "go/goroutine, fell behind: 1k/s of the 2k/s asked: p99 2 ms" in [t.text for t in sections[-1].iter("title")]


def test_a_served_sweep_charts_p99_and_p50_over_its_parameter_without_the_runs_that_fell_behind():
    page = html_charts.scaling(tables(), [])
    assert "<i>" not in page
    figures = classed(ET.fromstring(page), "figure", "scaling")
    assert [f.get("class") for f in figures] == ["scaling latency p99", "scaling latency p50"]  # no time, no memory
    for figure, key in zip(figures, ("p99", "p50")):
        lines = classed(figure, "g", "line")
        assert [len(classed(line, "g", "point")) for line in lines] == [3, 2, 3]  # go/goroutine fell behind at 500
        labels = [t.text for t in figure.iter("text")]
        assert {"4", "50", "500", "connections", "c/epoll", "go/goroutine", f"go/{HOSTILE}"} <= set(labels)
        caption = text(figure.find("figcaption"))
        assert f"median {key} latency over connections" in caption and "Log scale on x" in caption
        assert "fell behind the rate asked" in caption


def late_report() -> RunReport:
    """echo at 4 connections: c/epoll's generator sent a request 7 ms late in
    one run of its second trial, where the run's p99 was 1 ms; go/goroutine's
    never more than 0.5 ms, under its p99."""
    params = (("connections", 4), ("size", 64), ("rate", RATE), ("duration_ms", 500), ("transport", "tcp"))
    lags = {("c", 0): (0, 0, 0), ("c", 1): (0, 7_000_000, 0), ("go", 0): (500_000,) * 3, ("go", 1): (500_000,) * 3}
    trials = [
        TrialRecord(
            CellKey("echo", runtime, mechanism, params),
            trial,
            Status.OK,
            "",
            {},
            samples=tuple(
                Sample(False, 500_000_000, 1_000, 1_000, 4, {}, latency=load(4, 1, False, lag))
                for lag in lags[runtime, trial]
            ),
        )
        for runtime, mechanism in (("c", "epoll"), ("go", "goroutine"))
        for trial in (0, 1)
    ]
    found = aggregate.tables(trials, [], load_all([ROOT / "workloads"]))
    return RunReport(RunInfo(1, "now", None, "complete", {}, {}), found, None, [], trials)


def test_the_send_lag_stands_beside_p99_and_a_late_generator_marks_its_trial_and_row_in_every_format():
    report = late_report()
    (table,) = report.tables
    lines = [line.plain for line in terminal.render(table)]
    header = next(line for line in lines if " lag " in line)
    assert header.split()[-7:] == ["rate", "p50", "p99", "lag", "p99.9", "max", "trials"]
    row = {line.split()[0]: line.split() for line in lines if " 2/2" in line}
    assert row["c/epoll"][-7:] == ["1ms", "0s", "3ms", "5ms", "2/2", "late", "generator"]  # the median run's lag: 0
    assert row["go/goroutine"][-5:] == ["1ms", "500µs", "3ms", "5ms", "2/2"]
    assert any("c/epoll" in line and "7 ms after it was due" in line and "1 of 2 trials" in line for line in lines)

    written = markdown.render(report)
    assert "| p99 | lag | p99.9 |" in written and "**late generator**" in written
    assert "lag, the generator's own lateness" in written  # the legend

    document = json.loads(export.json_text(report))
    late = {(t["runtime"], t["trial"]): t["late_generator"] for t in document["trials"]}
    assert late == {("c", 0): False, ("c", 1): True, ("go", 0): False, ("go", 1): False}
    cells = {c["runtime"]: c for c in document["cells"]}
    assert [m["word"] for m in cells["c"]["marks"]] == ["late generator"] and cells["go"]["marks"] == []
    assert cells["go"]["latency"]["send_lag_ns"] == 500_000 and cells["go"]["latency"]["p99_ns"] == 1_000_000

    rows = list(csv.DictReader(io.StringIO(export.csv_text(report))))
    assert {(r["runtime"], r["trial"], r["late_generator"]) for r in rows} == {
        ("c", "0", "false"),
        ("c", "1", "true"),
        ("go", "0", "false"),
        ("go", "1", "false"),
    }

    page = html.render(report)
    assert page.count(">late generator</span>") == 1 and page.count(">lag</th>") == 1
    (figure,) = classed(ET.fromstring(page.split("\n", 1)[1]), "figure", "percentiles")
    assert "c/epoll ~" in [t.text for t in figure.iter("text")]
    assert "A name with ~ is a row marked late generator" in text(figure.find("figcaption"))
