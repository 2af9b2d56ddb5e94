"""How rows scale with CPUs (report/scaling.py): speed-ups against each row's
own cpus=1 cell from paired trials, their efficiency, and how every format
shows them. The records are made here; nothing runs."""

import json
import math
import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest
from conftest import ROOT
from test_html_report import HOSTILE, classed, text
from test_rendering_safety import LOUD, assert_literal, on_a_terminal

from concbench.records import CellKey, RunInfo, Sample, TrialRecord
from concbench.report import aggregate, export, html, markdown, scaling, terminal
from concbench.report.run_report import RunReport
from concbench.stats import T95, summarize
from concbench.status import Status
from concbench.workloads import load_all

PARAMS = (("n", 100),)


def trial(row: str, cpus: int, index: int, seconds: float, seq: int, ops: int | None = None, params=PARAMS):
    """A trial of one timed run; with ops, a rate workload's run of ops operations."""
    runtime, mechanism = row.split("/")
    return TrialRecord(
        CellKey("w", runtime, mechanism, params, cpus=cpus),
        index,
        Status.OK,
        "",
        {},
        samples=(Sample(False, round(seconds * 1e9), 0, 0, 1, {}, ops=ops),),
        seq=seq,
    )


def cells(row: str, seconds: dict[int, list[float]], ops: int | None = None) -> list[TrialRecord]:
    """A row's trials at each CPU count, each round running the counts in turn (seq)."""
    counts = sorted(seconds)
    return [
        trial(row, cpus, index, s, seq=index * len(counts) + counts.index(cpus), ops=ops)
        for cpus, times in seconds.items()
        for index, s in enumerate(times)
    ]


def found(records: list[TrialRecord], specs=None) -> list[scaling.Scaling]:
    return scaling.scalings(aggregate.tables(records, [], specs or {}))


def test_a_speedup_is_time_at_one_over_time_at_k_paired_with_the_nearest_trial_and_efficiency_is_it_over_k():
    # Round by round 1 CPU, then 2: each trial at 2 pairs with the trial at 1 just before it.
    # Their medians alone would say 1.0 / 0.55 = 1.82; the pairs say 2.0, 2.0 and 1.8.
    (s,) = found(cells("go/goroutine", {1: [1.0, 1.1, 0.9], 2: [0.5, 0.55, 0.5]}))
    (row,) = s.rows
    (at_two,) = row.speedups
    assert s.counts == (2,) and row.row == "go/goroutine" and at_two.cpus == 2
    assert scaling.speedups(at_two.cell, row.one, rate=False) == pytest.approx([2.0, 2.0, 1.8])
    assert at_two.factor.n == 3 and at_two.factor.ci == pytest.approx(summarize([2.0, 2.0, 1.8]).ci)
    logs = [math.log(v) for v in (2.0, 2.0, 1.8)]
    half = T95[2] * (sum((v - sum(logs) / 3) ** 2 for v in logs) / 2) ** 0.5 / 3**0.5
    assert at_two.factor.ci == pytest.approx(tuple(math.exp(sum(logs) / 3 + d) for d in (-half, half)))
    assert at_two.factor.median == 2.0 and at_two.factor.by_t
    assert at_two.efficiency.median == 1.0
    assert at_two.efficiency.ci == pytest.approx(tuple(b / 2 for b in at_two.factor.ci))


def test_a_rate_speedup_is_rate_at_k_over_rate_at_one():
    """Twice the ops/s at 2 CPUs is a speed-up of 2, not 0.5."""
    (s,) = found(cells("ruby/ractor", {1: [1.0, 1.0, 1.0], 2: [0.5, 0.5, 0.5]}, ops=100))
    assert s.first.rate_format
    (at_two,) = s.rows[0].speedups
    assert at_two.factor.median == pytest.approx(2.0) and at_two.efficiency.median == pytest.approx(1.0)


def test_a_row_without_a_cell_at_one_cpu_or_unconfined_has_no_scaling():
    records = cells("go/goroutine", {1: [1.0], 2: [0.5]}) + cells("go/none", {2: [1.0], 4: [1.0]})
    (s,) = found(records)
    assert [r.row for r in s.rows] == ["go/goroutine"]
    assert found(cells("go/goroutine", {0: [1.0], 2: [0.5]})) == []  # 0: unconfined
    assert found(cells("go/goroutine", {1: [1.0]})) == []


def test_a_count_without_a_verified_pair_has_no_speedup_there():
    records = cells("go/goroutine", {1: [1.0, 1.0], 2: [0.5, 0.5], 4: [0.25, 0.25]})
    records = [replace(t, status=Status.INVALID) if t.cell.cpus == 4 else t for t in records]
    (s,) = found(records)
    assert s.counts == (2, 4) and s.rows[0].speedups[1] is None


def test_tables_that_differ_in_cpus_only_are_apart_and_sweep_at_fixed_cpus():
    records = [
        trial("go/goroutine", cpus, 0, 1.0, seq=0, params=(("n", n), ("mode", "x")))
        for cpus in (1, 2)
        for n in (10, 20)
    ]
    tables = aggregate.tables(records, [], {})
    assert [(t.cpus, t.params) for t in tables] == [
        (1, {"n": 10, "mode": "x"}),
        (1, {"n": 20, "mode": "x"}),
        (2, {"n": 10, "mode": "x"}),
        (2, {"n": 20, "mode": "x"}),
    ]
    sweeps = aggregate.sweeps(tables)
    assert [(s.param, s.fixed, s.values) for s in sweeps] == [
        ("n", "cpus=1 mode=x", (10, 20)),
        ("n", "cpus=2 mode=x", (10, 20)),
    ]
    assert [len(s.rows) for s in scaling.scalings(tables)] == [1, 1]  # one per n


def report(records: list[TrialRecord], specs=None) -> RunReport:
    tables = aggregate.tables(records, [], specs or {})
    return RunReport(RunInfo(1, "now", None, "complete", {}, {}), tables, None, [], records)


TWO_ROWS = cells("go/goroutine", {1: [1.0, 1.1, 0.9], 2: [0.5, 0.55, 0.5]}) + cells(
    "python/thread", {1: [1.0, 1.0, 1.0], 2: [1.0, 1.0, 1.0]}
)


def test_the_terminal_prints_a_block_of_speedups_with_their_interval_and_efficiency():
    (s,) = report(TWO_ROWS).scaling
    lines = [line.plain for line in terminal.render_scaling(s)]
    assert lines[0] == "w (w): n=100, speed-up against 1 CPU [95% CI] and efficiency"
    assert lines[1].split() == ["2", "CPUs"]
    low, high = s.rows[0].speedups[0].factor.ci
    assert lines[2].split() == ["go/goroutine", "x2.00", f"[{low:.2f},", f"{high:.2f}]", "t", "100%"]
    assert lines[3].split() == ["python/thread", "x1.00", "[1.00,", "1.00]", "t", "50%"]


def test_the_pbt_suite_prints_each_worker_modes_i_s_at_each_cpu_count_beside_its_speedup():
    records = [
        replace(t, cell=replace(t.cell, workload="map-cpu"))
        for t in cells("ruby/ractor", {1: [1.0] * 3, 2: [0.5] * 3}, ops=10)
    ]
    (s,) = report(records, load_all([ROOT / "workloads"])).scaling
    assert s.first.rate_format == "ips"
    header, row = [line.plain for line in terminal.render_scaling(s)][1:]
    assert header.split() == ["1", "CPU", "2", "CPUs"]
    assert row.startswith(" ruby/ractor ")  # right-aligned, as benchmark-ips prints its rows
    assert row.split() == ["ruby/ractor", "10.000", "i/s", "20.000", "i/s", "x2.00", "[2.00,", "2.00]", "t", "100%"]


def test_markdown_has_the_block_after_the_last_table_of_its_parameter_set():
    written = markdown.render(report(TWO_ROWS))
    tables = [written.index("### w (w): cpus=1 n=100"), written.index("### w (w): cpus=2 n=100")]
    block = written.index("### w (w): n=100, speed-up against 1 CPU [95% CI] and efficiency")
    assert tables[0] < tables[1] < block
    assert "| mechanism | 2 CPUs |\n| :--- | ---: |\n| go/goroutine | x2.00 [" in written
    assert "| python/thread | x1.00 [1.00, 1.00] t 50% |" in written


def test_the_html_page_charts_speedup_over_cpus_with_the_ideal_and_escapes_every_name():
    records = TWO_ROWS + [
        replace(t, cell=replace(t.cell, mechanism=HOSTILE)) for t in cells("go/x", {1: [1.0] * 3, 2: [0.6] * 3})
    ]
    page = html.render(report(records))
    assert "<script" not in page
    root = ET.fromstring(page.split("\n", 1)[1])
    (figure,) = classed(root, "figure", "cpus")
    labels = [t.text for t in figure.iter("text")]
    assert {"1", "2", "CPUs", "go/goroutine", "python/thread", f"go/{HOSTILE}", "ideal"} <= set(labels)
    lines = classed(figure, "g", "line")
    assert [len(classed(line, "g", "point")) for line in lines] == [2, 2, 2, 0]  # 1 CPU and 2; the ideal has none
    assert lines[-1].find("polyline").get("stroke-dasharray")
    tips = [t.text for t in figure.iter("title")]
    assert any(tip.startswith("go/goroutine, 2 CPUs: speed-up median x2.00, 95% CI (t) ") for tip in tips)
    assert "Dashed: the ideal, speed-up = CPUs" in text(figure.find("figcaption"))


def test_json_gives_each_cell_above_one_cpu_its_speedup_and_efficiency():
    document = json.loads(export.json_text(report(TWO_ROWS)))
    by_cell = {(c["row"], c["cpus"]): c for c in document["cells"]}
    assert by_cell["go/goroutine", 1]["speedup"] is None and by_cell["go/goroutine", 1]["efficiency"] is None
    two = by_cell["go/goroutine", 2]
    assert two["speedup"]["median"] == 2.0 and two["speedup"]["n"] == 3 and two["speedup"]["ci_method"] == "t"
    assert two["efficiency"]["median"] == 1.0
    assert by_cell["python/thread", 2]["efficiency"]["median"] == 0.5


def test_the_block_on_a_terminal_is_text_never_markup():
    records = [replace(t, cell=replace(t.cell, mechanism=LOUD)) for t in cells("go/x", {1: [1.0], 2: [0.5]})]
    (s,) = report(records).scaling
    assert_literal(on_a_terminal(*terminal.render_scaling(s)))


def test_a_whisker_far_above_the_ideal_is_cut_at_twice_it_and_the_caption_says_so():
    records = cells("go/goroutine", {1: [1.0, 1.0, 1.0], 2: [1.0, 0.5, 0.05]})  # speed-ups 1, 2 and 20
    (figure,) = classed(ET.fromstring(html.render(report(records)).split("\n", 1)[1]), "figure", "cpus")
    assert [t.text for t in figure.iter("text")][:5] == ["x0", "x1", "x2", "x3", "x4"]
    assert "A whisker beyond x4 is cut there." in text(figure.find("figcaption"))
