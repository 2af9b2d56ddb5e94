"""The journal of trials waiting for a server: private to its user, and
nothing left behind by a writer that died mid-line."""

import stat

from concbench.records import CellKey, TrialRecord
from concbench.status import Status
from concbench.store.journal import Entry, Journal

RECORD = TrialRecord(CellKey("triangle", "fake", "honest", (("n", 10),)), 0, Status.OK, "", {"area": 50}, wall_ns=1)


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_journal_and_its_folders_are_readable_by_its_user_alone(tmp_path):
    state = tmp_path / "concbench"
    state.mkdir(mode=0o755)  # as an older concbench made it
    journal = Journal(state, "postgresql://db.example.org/concbench")
    journal.append(Entry(1, RECORD, None))
    assert (mode(state), mode(journal.folder), mode(journal.path)) == (0o700, 0o700, 0o600)
    assert [entry.record for entry in journal.entries()] == [RECORD]


def test_a_journal_cut_short_before_its_first_line_ended_is_removed(tmp_path):
    journal = Journal(tmp_path, "postgresql://db.example.org/concbench")
    journal.folder.mkdir(parents=True)
    cut = journal.folder / f"{journal.prefix}.1.jsonl"  # a writer that died mid-line
    cut.write_text('{"run_id": 1, "claim": null, "rec')
    assert journal.pending() == 0 and not cut.exists()
