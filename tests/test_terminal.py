"""The terminal's tables stay readable at fifty mechanisms: more than a few
n/a, remark, repetition or "not settled" lines under a table collapse into one."""

import re

from concbench.records import CellKey, Note, Sample, Skipped, TrialRecord
from concbench.report import aggregate, terminal
from concbench.status import Status

PARAMS = (("n", 100),)


def table(rows: int, skipped: list[Skipped], units: int = 1, notes: list[Note] | None = None) -> aggregate.Table:
    """A table of `rows` mechanisms whose runs all took about 1 ms: every
    neighbour's interval overlaps the next's; with units, each run's units
    were alive one at a time (serial)."""
    records = [
        TrialRecord(
            CellKey("triangle", f"rt{r % 3}", f"m{r}", PARAMS),
            trial,
            Status.OK,
            "",
            {},
            samples=tuple(
                Sample(False, 1_000_000 + 1000 * ((r + run) % 3), 1, 1, units, {}, peak_live=1) for run in range(6)
            ),
        )
        for r in range(rows)
        for trial in range(2)
    ]
    (found,) = aggregate.tables(records, skipped, {}, notes)
    return found


def text(found: aggregate.Table) -> str:
    return "\n".join(line.plain for line in terminal.render(found))


def na(row: str, reason: str) -> Skipped:
    return Skipped("triangle", row, "n/a", reason)


def test_a_few_na_and_unsettled_lines_are_shown_each_with_its_reason():
    shown = text(table(3, [na("rt0/x", "no x"), na("rt1/y", "no y")]))
    assert re.search(r"^rt0/x +n/a: no x$", shown, re.M) and re.search(r"^rt1/y +n/a: no y$", shown, re.M)
    assert "not settled: rt0/m0 and" in shown


def test_many_collapse_into_one_line_each_counted_by_runtime():
    skipped = [na(f"rt{i % 2}/x{i}", f"reason {i}") for i in range(5)]
    skipped.append(Skipped("triangle", "rt9/z", "unavailable", "rt9 is missing"))
    shown = text(table(6, skipped))
    assert "n/a 5 (rt0 3, rt1 2); unavailable 1 (rt9 1): each with its reason in the HTML report" in shown
    assert "reason 1" not in shown
    assert shown.count("not settled") == 1
    assert "not settled, 5 pairs whose intervals overlap: " in shown


def test_many_remarks_collapse_into_a_count_of_each_mark_and_of_the_notes():
    notes = [Note("triangle", f"rt{i % 3}/m{i}", f"note {i}") for i in range(2)]
    shown = text(table(6, [], units=4, notes=notes))
    assert "serial 6, notes on 2 rows: what each row observed, and each note, in the HTML report" in shown
    assert "at most 1 of 4 units" not in shown and "note 1" not in shown


def test_a_few_remarks_are_shown_each_on_its_row():
    shown = text(table(2, [], units=4, notes=[Note("triangle", "rt0/m0", "note 0")]))
    assert re.search(r"^rt0/m0 +serial: at most 1 of 4 units alive at once$", shown, re.M)
    assert re.search(r"^rt0/m0 +note: note 0$", shown, re.M)
