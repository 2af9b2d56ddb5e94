"""The evidence a row carries: its marks, what they say was observed, and how
every format shows them."""

import json

from concbench import workloads
from concbench.formatting import percent
from concbench.records import CellKey, Note, RunInfo, Sample, TrialRecord
from concbench.report import aggregate, export, html, markdown, terminal
from concbench.report.run_report import RunReport
from concbench.status import Status

SPEC = workloads.load_all()["mutex-cpu"]
PARAMS = (("groups", 4), ("workers", 10), ("iterations", 2000))  # 80,000 acquisitions a run


def _cell(mechanism, contended, peak_live=40, units=40):
    key = CellKey("mutex-cpu", "ruby", mechanism, PARAMS)
    runs = tuple(
        Sample(False, 1_000_000, 1, 1, units, {"sum": 47_760_000}, peak_live=peak_live, evidence={"contended": c})
        for c in contended
    )
    return TrialRecord(key, 0, Status.OK, "", {}, wall_ns=10**9, maxrss_kb=1000, samples=runs)


def _table(*trials, notes=()):
    (table,) = aggregate.tables(list(trials), [], {"mutex-cpu": SPEC}, list(notes), {"ruby": 13_000})
    return table


def test_a_lock_that_almost_never_found_held_is_marked_with_what_was_seen():
    table = _table(_cell("thread", [3, 2]), _cell("pthread", [4000, 2000]))
    thread, pthread = table.rows
    assert [(m.word, m.seen) for m in table.marks(thread)] == [
        ("uncontended", "0.0031% of acquisitions found the lock held (5 of 160,000)")
    ]
    assert table.marks(pthread) == ()
    assert table.observed(pthread)[0].share == 6000 / 160_000


def test_units_that_never_overlapped_are_serial():
    table = _table(_cell("fiber", [0, 0], peak_live=1))
    (fiber,) = table.rows
    assert [m.word for m in table.marks(fiber)] == ["serial", "uncontended"]
    assert table.marks(fiber)[0].seen == "at most 1 of 40 units alive at once"


def test_evidence_a_mechanism_cannot_observe_is_shown_as_such_and_not_marked():
    table = _table(_cell("ractor", [None, None]))
    (ractor,) = table.rows
    assert table.marks(ractor) == () and table.observed(ractor)[0].describe() == "contended not observable"


def test_the_terminal_shows_live_units_the_evidence_marks_and_notes():
    table = _table(
        _cell("thread", [3, 2], peak_live=7),
        _cell("pthread", [4000, 2000]),
        notes=[Note("mutex-cpu", "ruby/thread", "the GVL passes every 100 ms")],
    )
    lines = [line.plain for line in terminal.render(table)]
    assert "live contended" in lines[1]
    thread_row = next(line for line in lines if line.startswith("ruby/thread "))
    assert thread_row.split()[-4:] == ["7", "0.0031%", "1/1", "uncontended"]
    assert "0.0031%" in thread_row and thread_row.rstrip().endswith("uncontended")
    assert any(line.startswith("ruby/thread") and "uncontended: 0.0031% of acquisitions" in line for line in lines)
    assert any("note: the GVL passes every 100 ms" in line for line in lines)
    assert table.floor_kb(table.rows[0]) == 13_000


def test_shares_read_as_plain_percentages():
    assert [percent(s) for s in (0.372, 0.042, 0.00045, 5e-7, 0, 1)] == [
        "37%",
        "4.2%",
        "0.045%",
        "0.000050%",
        "0%",
        "100%",
    ]


def test_runs_stored_before_the_spec_declared_evidence_show_none():
    old = _cell("thread", [1, 1])
    old = TrialRecord(
        old.cell,
        0,
        Status.OK,
        "",
        {},
        wall_ns=10**9,
        maxrss_kb=1000,
        samples=tuple(Sample(False, 1_000_000, 1, 1, 40, {"sum": 47_760_000}) for _ in range(2)),
    )
    table = _table(old)
    assert table.observed(table.rows[0]) == () and table.marks(table.rows[0]) == ()
    assert "no verified trial" not in terminal.render(table)[2].plain


def _warmed(mechanism, *warmups, trial=0):
    cell = _cell(mechanism, [4000])
    warm = tuple(Sample(True, wall, 1, 1, 40, {"sum": 47_760_000}, peak_live=40) for wall in warmups)
    return TrialRecord(cell.cell, trial, Status.OK, "", {}, wall_ns=10**9, maxrss_kb=1000, samples=warm + cell.samples)


def test_a_row_whose_warmups_were_still_changing_when_they_ended_is_unsteady():
    table = _table(
        _warmed("thread", 900, 300, 200, 150),  # still 25% faster a sample or more: its cap ended it
        _warmed("thread", 900, 300, 105, 100, 101, trial=1),
        _warmed("pthread", 300, 200),  # too few warm-ups to tell
    )
    thread, pthread = table.rows
    assert [(m.word, m.seen) for m in table.marks(thread)] == [
        (
            "unsteady",
            "the last 3 warm-ups of 1 of 2 trials still differed by more than 15%: their runs may not have been warm",
        )
    ]
    assert table.marks(pthread) == ()


PING_PONG = workloads.load_all()["ping-pong"]


def _pairs(mechanism, pairs, peak_live):
    key = CellKey("ping-pong", "c", mechanism, (("pairs", pairs), ("rounds", 10)))
    runs = (Sample(False, 1_000_000, 1, 1, 2 * pairs, {"count": pairs * 19}, peak_live=peak_live),) * 2
    return TrialRecord(key, 0, Status.OK, "", {}, wall_ns=10**9, maxrss_kb=1000, samples=runs)


def _ping_pong_report(*trials):
    found = aggregate.tables(list(trials), [], {"ping-pong": PING_PONG})
    return RunReport(RunInfo(1, "now", None, "complete", {}, {}), found, None, [], list(trials))


def test_pairs_the_spec_plays_at_once_that_played_in_turn_are_marked_in_every_format():
    report = _ping_pong_report(_pairs("coroutine", 16, 2), _pairs("pthread", 16, 32), _pairs("fiber", 16, 1))
    (table,) = report.tables
    coroutine, pthread, fiber = table.rows
    assert [(m.word, m.seen) for m in table.marks(coroutine)] == [
        ("pairs in turn", "at most 2 of the 32 units the work keeps alive together were alive at once")
    ]
    assert table.marks(pthread) == ()
    assert [m.word for m in table.marks(fiber)] == ["serial"]  # one alive at a time says more: not both marks

    lines = [line.plain for line in terminal.render(table)]
    assert next(line for line in lines if line.startswith("c/coroutine ")).endswith("1/1  pairs in turn")
    assert any(line.startswith("c/coroutine") and "pairs in turn: at most 2 of the 32" in line for line in lines)
    assert "| 1/1 **pairs in turn** |" in markdown.render(report)
    cells = {c["mechanism"]: c for c in json.loads(export.json_text(report))["cells"]}
    assert [m["word"] for m in cells["coroutine"]["marks"]] == ["pairs in turn"] and cells["pthread"]["marks"] == []
    assert html.render(report).count(">pairs in turn</span>") == 1


def test_one_pair_alive_is_all_the_spec_asks_of_one_pair():
    (table,) = _ping_pong_report(_pairs("coroutine", 1, 2)).tables
    assert table.marks(table.rows[0]) == ()


def test_a_row_with_one_unit_is_never_said_to_take_turns():
    key = CellKey("ping-pong", "c", "none", (("pairs", 16), ("rounds", 10)))
    runs = (Sample(False, 1_000_000, 1, 1, 1, {"count": 16 * 19}, peak_live=1),) * 2
    one = TrialRecord(key, 0, Status.OK, "", {}, wall_ns=10**9, maxrss_kb=1000, samples=runs)
    (table,) = _ping_pong_report(one).tables
    assert table.marks(table.rows[0]) == ()
