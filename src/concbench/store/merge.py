"""Copying runs between stores: the SQLite files of machines that could not
reach a server, collected into one store. A run is its uuid in every
database, and a trial its run, cell and number, so merging a file twice, or
files that share runs, copies each run and trial once. Rows are copied as
they are but for their run_id and trial_id, which become the store's own,
once validate.py has found each within bounds and each verified trial
verified again."""

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass

from .. import workloads
from ..errors import UserError
from . import open_source, open_store, postgresql, schema, validate


@dataclass
class Tally:
    """What one source brought."""

    source: str
    runs: int = 0
    new_runs: int = 0
    trials_added: int = 0
    trials_there: int = 0

    def text(self) -> str:
        return (
            f"{self.source}: {self.runs} runs, {self.new_runs} new, "
            f"{self.trials_added} trials added, {self.trials_there} already there"
        )


@dataclass
class Merged:
    into: str
    tallies: list[Tally]

    def lines(self) -> Iterator[str]:
        yield from (tally.text() for tally in self.tallies)
        total = Tally(f"total into {self.into}")
        for tally in self.tallies:
            total.runs += tally.runs
            total.new_runs += tally.new_runs
            total.trials_added += tally.trials_added
            total.trials_there += tally.trials_there
        yield total.text()


def merge(sources: list[str], into: str) -> Merged:
    """Copies every run of the sources into the store at into (made if
    missing), all in one transaction: on any error the store is as it was.
    Every row of every source is checked first (validate.py), so a row that
    fails is refused before the store is touched."""
    for source in sources:
        if _same_database(source, into):
            raise UserError(f"--into {postgresql.shown(into)} is also a source: merge into another database")
    databases = [open_source(source) for source in sources]  # each checked before the store is touched
    specs = workloads.load_all()  # what a verified trial is verified again by
    for source in databases:
        for run in _read(source, "runs", "ORDER BY id"):
            _checked_run(source, run, specs)
    store = open_store(into)
    tallies = store.in_one_transaction(lambda target: [_copy_runs(source, target, specs) for source in databases])
    return Merged(store.name, tallies)


def _same_database(source: str, into: str) -> bool:
    if postgresql.is_url(source) or postgresql.is_url(into):
        return source == into
    try:
        return os.path.samefile(source, into)
    except OSError:  # one of them does not exist: not one file
        return False


@dataclass(frozen=True)
class _Run:
    """A source's run and its rows, each checked."""

    row: dict
    trials: list[dict]
    samples: list[dict]  # the trials', by trial and idx
    others: dict[str, list[dict]]  # the rows of its other tables, by table


def _checked_run(source, run: dict, specs: dict[str, workloads.Workload]) -> _Run:
    """The run's rows, each checked. The copy reads and checks them again in
    its transaction: rows another command added to the source meanwhile are
    checked too."""
    where = f"run {run['id']}"
    with _refusing(source, where):
        validate.check("runs", run)
    trials = _read(source, "trials", "WHERE run_id = ? ORDER BY id", (run["id"],))
    samples = _read(
        source,
        "samples",
        "WHERE trial_id IN (SELECT id FROM trials WHERE run_id = ?) ORDER BY trial_id, idx",
        (run["id"],),
    )
    by_trial: dict[int, list[dict]] = {}
    for sample in samples:
        by_trial.setdefault(sample["trial_id"], []).append(sample)
    for trial in trials:
        with _refusing(source, f"{where} trial {trial['id']}"):
            validate.check_trial(trial, by_trial.get(trial["id"], []), specs)
    others = {table: _read(source, table, "WHERE run_id = ?", (run["id"],)) for table in _run_tables()}
    for table, rows in others.items():
        for number, row in enumerate(rows, 1):
            with _refusing(source, f"{where} {table} row {number}"):
                validate.check(table, row)
    return _Run(run, trials, samples, others)


@contextlib.contextmanager
def _refusing(source, where: str):
    """A refused row as the one line of the merge's error: the source, the row and why."""
    try:
        yield
    except validate.Refused as e:
        raise UserError(f"merge: {source.name}: {where}: {e}") from None


def _copy_runs(source, target, specs: dict[str, workloads.Workload]) -> Tally:
    tally = Tally(source.name)
    for run in _read(source, "runs", "ORDER BY id"):
        _copy_run(target, _checked_run(source, run, specs), tally)
    return tally


def _copy_run(target, run: _Run, tally: Tally) -> None:
    found = target.fetch("SELECT id FROM runs WHERE uuid = ?", (run.row["uuid"],))
    run_id = found[0][0] if found else _insert_run(target, run.row)
    tally.runs += 1
    tally.new_runs += not found
    _copy_trials(target, run, run_id, tally)
    for table, rows in run.others.items():
        _copy_rows(target, table, rows, run_id, run_existed=bool(found))


def _insert_run(target, run: dict) -> int:
    return target.execute(_insert_sql("runs") + " RETURNING id", _values("runs", run))[0][0]


def _copy_trials(target, run: _Run, to_run: int, tally: Tally) -> None:
    """The run's trials the store lacks, with their samples."""
    there = set(target.fetch("SELECT cell, trial FROM trials WHERE run_id = ?", (to_run,)))
    new = [trial for trial in run.trials if (trial["cell"], trial["trial"]) not in there]
    _insert(target, "trials", [{**trial, "run_id": to_run} for trial in new])
    _copy_samples(target, run.samples, _store_ids(target, to_run, new))
    tally.trials_added += len(new)
    tally.trials_there += len(run.trials) - len(new)


def _store_ids(target, run_id: int, trials: list[dict]) -> dict[int, int]:
    """Each copied trial's id in the store, by its id in the source."""
    ids = {
        (cell, trial): id_
        for id_, cell, trial in target.fetch("SELECT id, cell, trial FROM trials WHERE run_id = ?", (run_id,))
    }
    return {trial["id"]: ids[trial["cell"], trial["trial"]] for trial in trials}


def _copy_samples(target, samples: list[dict], store_ids: dict[int, int]) -> None:
    copied = [sample for sample in samples if sample["trial_id"] in store_ids]
    _insert(target, "samples", [{**sample, "trial_id": store_ids[sample["trial_id"]]} for sample in copied])


def _copy_rows(target, table: str, rows: list[dict], to_run: int, run_existed: bool) -> None:
    rows = [{**row, "run_id": to_run} for row in rows]
    if run_existed:  # rows an earlier merge brought: tables without a key would take them twice
        there = {tuple(row) for row in target.fetch(_select_sql(table, "WHERE run_id = ?"), (to_run,))}
        rows = [row for row in rows if tuple(row.values()) not in there]
    _insert(target, table, rows)


def _run_tables() -> list[str]:
    """The tables of a run's other rows (n/a cells, notes, floors, ...):
    those with a run_id, but the trials, whose samples go with them."""
    return [table for table in schema.TABLES if table != "trials" and "run_id" in schema.columns(table)]


def _read(source, table: str, clause: str, params=()) -> list[dict]:
    """A source's rows by column; its errors said as its own (both may be SQLite's)."""
    try:
        rows = source.fetch(_select_sql(table, clause), params)
    except source.errors as e:
        raise source.failure(e) from None
    return [dict(zip(schema.columns(table), row)) for row in rows]


def _insert(target, table: str, rows: list[dict]) -> None:
    # A keyed row the store has in another state (a plan's trial claimed there, done here) stays the store's.
    target.executemany(_insert_sql(table) + " ON CONFLICT DO NOTHING", [_values(table, row) for row in rows])


def _select_sql(table: str, clause: str) -> str:
    return f"SELECT {', '.join(schema.columns(table))} FROM {table} {clause}"


def _copied_columns(table: str) -> list[str]:
    return [name for name in schema.columns(table) if name != "id"]  # the store numbers its runs and trials


def _insert_sql(table: str) -> str:
    names = _copied_columns(table)
    return f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"


def _values(table: str, row: dict) -> tuple:
    return tuple(row[name] for name in _copied_columns(table))
