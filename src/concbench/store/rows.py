"""A trial as the database's rows hold it, mapped by column name: the trials
table's columns are TrialRecord's fields and its cell's, the samples table's
Sample's, each of the same name. A field added to a record is stored and read
back with no edit here; the schema and a migration add its column (a test
checks the tables against the records)."""

import dataclasses
import json
import types
import typing
from datetime import UTC, datetime

from ..records import CellKey, Sample, TrialRecord
from ..status import Status
from .journal import Entry

# TrialRecord's fields that are no column of its row: its cell has columns of
# its own; its samples are rows of their own; seq is the order the rows are read in.
NOT_COLUMNS = ("cell", "samples", "seq")
TRIAL_FIELDS = tuple(f for f in dataclasses.fields(TrialRecord) if f.name not in NOT_COLUMNS)
SAMPLE_FIELDS = dataclasses.fields(Sample)
CELL_COLUMNS = ("cell", "workload", "runtime", "mechanism", "options", "params", "cpus")

# The columns each table's rows are read and written by.
TRIAL_COLUMNS = ("run_id", *CELL_COLUMNS, "finished", *(f.name for f in TRIAL_FIELDS))
SAMPLE_COLUMNS = ("trial_id", "idx", *(f.name for f in SAMPLE_FIELDS))


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def json_object(text: str) -> dict:
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError(f"{text[:40]!r} is not a JSON object")
    return value


def insert_sql(table: str, columns: tuple[str, ...]) -> str:
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"


def trial_row(run_id: int, t: TrialRecord) -> tuple:
    """The values of TRIAL_COLUMNS for a trial, finished now."""
    cell = t.cell
    values = (run_id, cell.id, cell.workload, cell.runtime, cell.mechanism)
    values += (json.dumps(cell.options), json.dumps(dict(cell.params)), cell.cpus, now())
    return values + tuple(_stored(getattr(t, f.name)) for f in TRIAL_FIELDS)


def sample_rows(trial_id: int, samples: tuple[Sample, ...]) -> list[tuple]:
    """The values of SAMPLE_COLUMNS for each of a trial's samples."""
    return [(trial_id, i, *(_stored(getattr(s, f.name)) for f in SAMPLE_FIELDS)) for i, s in enumerate(samples)]


def trial_record(row: dict, samples: tuple[Sample, ...], seq: int | None = None) -> TrialRecord:
    """A trial from its row, by column name."""
    params, options = json.loads(row["params"]).items(), json.loads(row["options"])
    cell = CellKey(row["workload"], row["runtime"], row["mechanism"], tuple(params), tuple(options), row["cpus"])
    read = {f.name: _read(f, row[f.name]) for f in TRIAL_FIELDS}
    return TrialRecord(cell, samples=samples, seq=seq, **read)


def sample(row: dict) -> Sample:
    return Sample(**{f.name: _read(f, row[f.name]) for f in SAMPLE_FIELDS})


def read_trials(db, run_id: int) -> list[TrialRecord]:
    """A run's trials, read by column name, in the order they were stored."""
    samples: dict[int, list[Sample]] = {}
    for found in _fetch(
        db, "samples s JOIN trials t ON t.id = s.trial_id", SAMPLE_COLUMNS, "s.", run_id, "s.trial_id, s.idx"
    ):
        samples.setdefault(found["trial_id"], []).append(sample(found))
    stored = _fetch(db, "trials t", ("id", *TRIAL_COLUMNS), "t.", run_id, "t.id")
    return [trial_record(row, tuple(samples.get(row["id"], ())), seq) for seq, row in enumerate(stored)]


def _fetch(db, tables: str, columns: tuple[str, ...], prefix: str, run_id: int, order: str) -> list[dict]:
    """A run's rows as dicts by column name."""
    selected = ", ".join(prefix + name for name in columns)
    found = db.fetch(f"SELECT {selected} FROM {tables} WHERE t.run_id = ? ORDER BY {order}", (run_id,))
    return [dict(zip(columns, row)) for row in found]


def _stored(value):
    """A field's value as its column holds it: a dict as JSON, a flag as 0 or 1, a status as its word."""
    if isinstance(value, dict):
        return json.dumps(value)
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, Status):
        return str(value)
    return value


def _read(field: dataclasses.Field, value):
    """A column's value as its field holds it, by the field's type (NULL: None)."""
    if value is None:
        return value
    kind = field.type
    if isinstance(kind, types.UnionType):  # X | None, its value not NULL: an X
        kind = next(t for t in typing.get_args(kind) if t is not type(None))
    kind = typing.get_origin(kind) or kind
    if kind is dict:
        return json.loads(value)
    if kind in (bool, Status):
        return kind(value)
    return value


def insert_trial(db, entry: Entry) -> bool:
    """One trial and its samples, once: a trial sent again (its first commit's
    answer lost with the connection) or claimed by another worker meanwhile is
    not stored twice."""
    if entry.claim is not None and not _claim_kept(db, entry):
        return False
    inserted = db.execute(
        insert_sql("trials", TRIAL_COLUMNS) + " ON CONFLICT DO NOTHING RETURNING id",
        trial_row(entry.run_id, entry.record),
    )
    if inserted:
        db.executemany(insert_sql("samples", SAMPLE_COLUMNS), sample_rows(inserted[0][0], entry.record.samples))
    return True


def _claim_kept(db, entry: Entry) -> bool:
    """The worker's claim on the trial, marked done; or done by this worker
    already (a send whose answer was lost). False: another worker took it."""
    key = (entry.run_id, entry.record.cell.id, entry.record.trial, entry.claim)
    where = "WHERE run_id = ? AND cell = ? AND trial = ? AND worker = ?"
    return bool(
        db.execute(f"UPDATE planned SET state = 'done' {where} AND state = 'claimed' RETURNING trial", key)
        or db.execute(f"SELECT trial FROM planned {where} AND state = 'done'", key)
    )
