"""Storage: every finished trial is committed at once, so an interrupted run
loses nothing and can be resumed. One set of queries over two databases: a
SQLite file (the default, one machine's) or a PostgreSQL server (many
machines'). A server that goes out of reach mid-run is retried with backoff;
the trials finished meanwhile wait in a local journal."""

import functools
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from .. import paths
from ..errors import UserError
from ..protocol import Status
from ..records import Calibration, CellKey, Note, Probe, RunInfo, Sample, Skipped, TrialRecord
from . import postgresql
from .journal import Entry, Journal
from .schema import SCHEMA_VERSION
from .sqlite import SqliteDatabase

__all__ = ["SCHEMA_VERSION", "Store", "Progress", "open_store", "open_source"]

# How long a write waits for a server that went away before giving up, and
# the waits between its attempts.
PATIENCE = 600
BACKOFF = (1, 2, 4, 8, 15, 30)


@dataclass(frozen=True)
class Progress:
    """Where a stored plan's trials are: taken by workers, or waiting."""

    planned: int
    done: int
    waiting: int
    claimed: list[tuple[str, int, str]]  # (cell, trial, worker) of each trial a worker holds
    reclaimed: int  # trials claimed again after a worker's lease lapsed


def _json_object(text: str) -> dict:
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError(f"{text[:40]!r} is not a JSON object")
    return value


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


# What reading a damaged or foreign database raises, besides the database's
# own errors: stored JSON or a status that does not decode, decodes to the
# wrong shape, or nests deeper than json can recurse.
UNREADABLE = (ValueError, TypeError, AttributeError, RecursionError)


def _reads(method):
    """A read of a damaged or foreign database fails in one line naming it; one
    of a server that went out of reach is tried again, as a write is."""

    @functools.wraps(method)
    def read(self, *args):
        try:
            return self._retrying(lambda: method(self, *args))
        except UNREADABLE as e:
            raise self.database.damaged(e) from None

    return read


def open_store(location: str | Path, create: bool = True) -> "Store":
    """The store at a path or a postgresql:// URL (whose reports and journal
    go to the project's results folder)."""
    if isinstance(location, str) and postgresql.is_url(location):
        return Store(postgresql.PostgresDatabase(location, paths.RESULTS, create))
    return Store(SqliteDatabase(Path(location), create))


def open_source(location: str) -> "SqliteDatabase | postgresql.PostgresDatabase":
    """The database at a path or URL to copy runs from, as it is: never made,
    migrated or written, so it must be of this concbench's schema. The bare
    database, not a Store, which would send its journal into it."""
    if postgresql.is_url(location):
        return postgresql.PostgresDatabase(location, paths.RESULTS, create=False, read_only=True)
    return SqliteDatabase(Path(location), create=False, read_only=True)


class Store:
    def __init__(self, database):
        self.database = database
        self.name = database.name
        self.folder = database.folder
        self.shared = database.shared
        self.journal = Journal(paths.state_folder(), database.name)
        self._next_attempt = 0.0  # the monotonic time a lost server is tried again
        self._backoff = iter(BACKOFF)
        self.said: Callable[[str], None] = lambda line: None  # what a command's user is told
        self.lapsed: list[Entry] = []  # sent from the journal after their claims lapsed: not stored
        self.send_journal(wait=False)

    def hold_for_run(self) -> None:
        self.database.hold_for_run()

    # Writes

    def _write(self, work):
        """One transaction, retried as _retrying says: work must be safe to do
        twice, since a commit whose answer was lost with the connection is done
        again."""

        def attempt():
            with self.database.transaction():
                return work(self.database)

        return self._retrying(attempt)

    def _retrying(self, attempt):
        """attempt(), tried again with backoff while the server is out of reach,
        for PATIENCE at most; any other error of the database in one line."""
        give_up = time.monotonic() + PATIENCE
        while True:
            try:
                return attempt()
            except self.database.errors as e:
                if not self.database.lost(e) or time.monotonic() > give_up:
                    raise self.database.failure(e) from None
            self._wait_for_server(give_up)

    def _wait_for_server(self, give_up: float) -> None:
        delay = next(self._backoff, BACKOFF[-1])
        time.sleep(max(0.0, min(delay, give_up - time.monotonic())))
        try:
            self.database.reconnect()
            self._backoff = iter(BACKOFF)
        except UserError:
            if time.monotonic() > give_up:
                raise

    def in_one_transaction(self, work):
        """work(database) as one transaction (a merge): all of it, or nothing
        on an error; done again from the start if the server went away."""
        return self._write(work)

    def begin_run(self, request: dict, environment: dict, state: str = "running") -> int:
        identity = uuid.uuid4().hex  # one run, however often a lost connection makes this write again

        def write(db):
            db.execute(
                "INSERT INTO runs (uuid, started, state, request, environment) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT DO NOTHING",
                (identity, _now(), state, json.dumps(request), json.dumps(environment)),
            )
            return db.fetch("SELECT id FROM runs WHERE uuid = ?", (identity,))[0][0]

        return self._write(write)

    def set_state(self, run_id: int, state: str) -> None:
        self._write(
            lambda db: db.execute(
                "UPDATE runs SET state = ?, finished = ? WHERE id = ?",
                (state, _now() if state == "complete" else None, run_id),
            )
        )

    def add_skipped(self, run_id: int, skipped: list[Skipped]) -> None:
        def write(db):
            db.execute("DELETE FROM skipped WHERE run_id = ?", (run_id,))
            db.executemany(
                "INSERT INTO skipped (run_id, workload, row, kind, reason, params) VALUES (?, ?, ?, ?, ?, ?)",
                [(run_id, s.workload, s.row, s.kind, s.reason, s.params) for s in skipped],
            )

        self._write(write)

    def add_notes(self, run_id: int, notes: list[Note]) -> None:
        def write(db):
            db.execute("DELETE FROM notes WHERE run_id = ?", (run_id,))
            db.executemany(
                "INSERT INTO notes (run_id, workload, row, text) VALUES (?, ?, ?, ?)",
                [(run_id, n.workload, n.row, n.text) for n in notes],
            )

        self._write(write)

    def add_trial(self, run_id: int, t: TrialRecord, claim: str | None = None) -> bool:
        """Stores a finished trial, or keeps it in the journal while the server
        is out of reach. A worker's trial is stored only while its claim is the
        worker's own (False: another worker took it after the lease lapsed)."""
        entry = Entry(run_id, t, claim)
        if self.journal.pending() or time.monotonic() < self._next_attempt:
            self.journal.append(entry)
            self.send_journal(wait=False)
            return True
        try:
            with self.database.transaction():
                return _insert_trial(self.database, entry)
        except self.database.errors as e:
            if not self.database.lost(e):
                raise self.database.failure(e) from None
            self.said(f"{self.database.failure(e)}: finished trials wait in {self.journal.path} until it is back")
        self.journal.append(entry)
        self._put_off()
        return True

    def _put_off(self) -> None:
        self._next_attempt = time.monotonic() + next(self._backoff, BACKOFF[-1])

    def send_journal(self, wait: bool) -> int:
        """Sends the trials waiting in the journal; with wait, tries with backoff
        until PATIENCE runs out. How many still wait."""
        give_up = time.monotonic() + (PATIENCE if wait else 0)
        while entries := self.journal.entries():
            if time.monotonic() >= self._next_attempt:
                try:
                    if self._next_attempt:  # the connection was lost
                        self.database.reconnect()
                    with self.database.transaction():
                        refused = [entry for entry in entries if not _insert_trial(self.database, entry)]
                    self.journal.forget()
                    self.lapsed += refused
                    self.said(_sent(self.name, len(entries), len(refused)))
                    self._next_attempt, self._backoff = 0.0, iter(BACKOFF)
                    return 0
                except UserError:
                    self._put_off()
                except self.database.errors as e:
                    if not self.database.lost(e):
                        raise self.database.failure(e) from None
                    self._put_off()
            if time.monotonic() >= give_up:
                return len(entries)
            time.sleep(max(0.0, min(self._next_attempt, give_up) - time.monotonic()))
        return 0

    def add_floor(self, run_id: int, runtime: str, maxrss_kb: int | None, detail: str) -> None:
        self._write(
            lambda db: db.execute(
                "INSERT INTO floors (run_id, runtime, maxrss_kb, detail) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (run_id, runtime, maxrss_kb, detail),
            )
        )

    def add_calibration(self, run_id: int, cell_id: str, calibration: Calibration) -> Calibration:
        """Stores a cell's calibration, unless another worker stored one first:
        the stored one, which every trial of the cell then follows."""

        def write(db):
            db.execute(
                "INSERT INTO calibrations (run_id, cell, repeat, run_ns, trial_ns, detail) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (run_id, cell_id, calibration.repeat, calibration.run_ns, calibration.trial_ns, calibration.detail),
            )
            row = db.fetch(
                "SELECT repeat, run_ns, trial_ns, detail FROM calibrations WHERE run_id = ? AND cell = ?",
                (run_id, cell_id),
            )
            return Calibration(*row[0])

        return self._write(write)

    def add_probe(self, run_id: int, probe: Probe) -> None:
        """Stores a probe of the machine's speed, or drops it while the server
        is out of reach: only trials wait in the journal, and a run's speed
        is told as well by the probes on either side of the gap."""
        if self.journal.pending() or time.monotonic() < self._next_attempt:
            return
        try:
            self.database.execute(
                "INSERT INTO probes (run_id, at, work_ns) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (run_id, probe.at_ns, probe.work_ns),
            )
        except self.database.errors as e:
            if not self.database.lost(e):
                raise self.database.failure(e) from None

    # A stored plan and its workers

    def add_plan(self, run_id: int, trials: list[tuple[str, int]]) -> None:
        self._write(
            lambda db: db.executemany(
                "INSERT INTO planned (run_id, seq, cell, trial, state) VALUES (?, ?, ?, ?, 'waiting') "
                "ON CONFLICT DO NOTHING",
                [(run_id, seq, cell, trial) for seq, (cell, trial) in enumerate(trials)],
            )
        )

    def add_worker(self, run_id: int, worker: str, environment: dict) -> None:
        self._write(
            lambda db: db.execute(
                "INSERT INTO workers (run_id, worker, machine, machine_id, environment, started) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (run_id, worker, environment["machine"], environment["machine_id"], json.dumps(environment), _now()),
            )
        )

    def claim(self, run_id: int, worker: str, lease_s: int) -> tuple[str, int] | None:
        """The plan's next trial nobody holds, claimed for lease_s seconds;
        None when every trial is done or held. Rows another worker is
        claiming are skipped, not waited for."""
        rows = self._write(
            lambda db: db.execute(
                f"""UPDATE planned SET state = 'claimed', worker = ?, lease_until = {NOW} + ?, claims = claims + 1
                    WHERE run_id = ? AND (cell, trial) = (
                        SELECT cell, trial FROM planned
                        WHERE run_id = ? AND (state = 'waiting' OR (state = 'claimed' AND lease_until < {NOW}))
                        ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED)
                    RETURNING cell, trial""",
                (worker, lease_s, run_id, run_id),
            )
        )
        return (rows[0][0], rows[0][1]) if rows else None

    def extend(self, run_id: int, cell_id: str, trial: int, worker: str, lease_s: int) -> None:
        self._write(
            lambda db: db.execute(
                f"UPDATE planned SET lease_until = {NOW} + ? WHERE run_id = ? AND cell = ? AND trial = ? AND worker = ?",
                (lease_s, run_id, cell_id, trial, worker),
            )
        )

    def release(self, run_id: int, worker: str) -> None:
        """A stopped worker's claims, back to the plan at once."""
        self._write(
            lambda db: db.execute(
                "UPDATE planned SET state = 'waiting', lease_until = NULL "
                "WHERE run_id = ? AND worker = ? AND state = 'claimed'",
                (run_id, worker),
            )
        )

    @_reads
    def planned_cells(self, run_id: int) -> set[str]:
        return {
            cell for (cell,) in self.database.fetch("SELECT DISTINCT cell FROM planned WHERE run_id = ?", (run_id,))
        }

    @_reads
    def progress(self, run_id: int) -> Progress | None:
        """A stored plan's progress; None for a run that had no stored plan."""
        rows = self.database.fetch(
            "SELECT cell, trial, state, worker, claims FROM planned WHERE run_id = ? ORDER BY seq", (run_id,)
        )
        if not rows:
            return None
        states = [state for _, _, state, _, _ in rows]
        return Progress(
            planned=len(rows),
            done=states.count("done"),
            waiting=states.count("waiting"),
            claimed=[(cell, trial, worker) for cell, trial, state, worker, _ in rows if state == "claimed"],
            reclaimed=sum(claims > 1 for *_, claims in rows),
        )

    @_reads
    def workers(self, run_id: int) -> dict[str, dict]:
        """Each worker of a stored plan: its fingerprint."""
        rows = self.database.fetch(
            "SELECT worker, environment FROM workers WHERE run_id = ? ORDER BY started", (run_id,)
        )
        return {worker: _json_object(environment) for worker, environment in rows}

    # Reads

    @_reads
    def notes(self, run_id: int) -> list[Note]:
        rows = self.database.fetch("SELECT workload, row, text FROM notes WHERE run_id = ?", (run_id,))
        return [Note(*row) for row in rows]

    @_reads
    def floors(self, run_id: int) -> dict[str, int | None]:
        """Each runtime's memory floor in this run (kB), None where it could not be measured."""
        return dict(self.database.fetch("SELECT runtime, maxrss_kb FROM floors WHERE run_id = ?", (run_id,)))

    @_reads
    def probes(self, run_id: int) -> list[Probe]:
        """The run's probes of the machine's speed, in the order they were taken."""
        rows = self.database.fetch("SELECT at, work_ns FROM probes WHERE run_id = ? ORDER BY at", (run_id,))
        return [Probe(*row) for row in rows]

    @_reads
    def calibrations(self, run_id: int) -> dict[str, Calibration]:
        """Each calibrated cell's repetitions in this run, by CellKey.id."""
        rows = self.database.fetch(
            "SELECT cell, repeat, run_ns, trial_ns, detail FROM calibrations WHERE run_id = ?", (run_id,)
        )
        return {cell: Calibration(*rest) for cell, *rest in rows}

    @_reads
    def earlier_calibrations(self, run_id: int) -> dict[str, Calibration]:
        """Each cell's latest measured calibration in the runs before this one,
        its detail the run it was measured in ('run 3')."""
        rows = self.database.fetch(
            """SELECT cell, repeat, run_ns, trial_ns, 'run ' || run_id FROM calibrations
               WHERE run_id < ? AND run_ns IS NOT NULL AND detail = '' ORDER BY run_id""",
            (run_id,),
        )
        return {cell: Calibration(*rest) for cell, *rest in rows}  # a later run's replaces an earlier's

    @_reads
    def earlier_trial_lengths(self, run_id: int) -> dict[str, int]:
        """Each cell's mean trial length (ns) in the latest run before this one that has it."""
        rows = self.database.fetch(
            """SELECT cell, run_id, avg(wall_ns) FROM trials WHERE run_id < ? AND wall_ns IS NOT NULL
               GROUP BY cell, run_id ORDER BY run_id""",
            (run_id,),
        )
        return {cell: round(mean) for cell, _, mean in rows}

    @_reads
    def runs(self) -> list[RunInfo]:
        rows = self.database.fetch(
            "SELECT id, started, finished, state, request, environment, uuid FROM runs ORDER BY id"
        )
        return [RunInfo(r[0], r[1], r[2], r[3], _json_object(r[4]), _json_object(r[5]), r[6]) for r in rows]

    def run(self, run_id: int | None = None) -> RunInfo:
        """A run by id, or the latest; UserError if there is none."""
        runs = self.runs()
        if not runs:
            raise UserError(f"database {self.name}: no runs stored yet (concbench run)")
        if run_id is None:
            return runs[-1]
        for run in runs:
            if run.id == run_id:
                return run
        raise UserError(f"no run {run_id} in {self.name} (runs: {runs[0].id}..{runs[-1].id})")

    @_reads
    def trials(self, run_id: int) -> list[TrialRecord]:
        samples: dict[int, list[Sample]] = {}
        for row in self.database.fetch(
            """SELECT s.trial_id, s.warmup, s.wall_ns, s.user_ns, s.sys_ns, s.units, s.result, s.ops,
                   s.peak_live, s.evidence, s.repeat
                   FROM samples s JOIN trials t ON t.id = s.trial_id
                   WHERE t.run_id = ? ORDER BY s.trial_id, s.idx""",
            (run_id,),
        ):
            samples.setdefault(row[0], []).append(
                Sample(
                    bool(row[1]),
                    row[2],
                    row[3],
                    row[4],
                    row[5],
                    json.loads(row[6]),
                    row[7],
                    row[8],
                    json.loads(row[9]),
                    row[10],
                )
            )
        return [
            _trial_record(row, tuple(samples.get(row[0], ())), seq)
            for seq, row in enumerate(
                self.database.fetch(f"SELECT {TRIAL_COLUMNS} FROM trials WHERE run_id = ? ORDER BY id", (run_id,))
            )
        ]

    @_reads
    def machines(self) -> dict[int, list[str]]:
        """The names of the machines that ran each run's trials, by run id
        (several where workers on several machines drained the run)."""
        found: dict[int, list[str]] = {}
        for run_id, machine in self.database.fetch(
            "SELECT DISTINCT run_id, machine FROM trials ORDER BY run_id, machine"
        ):
            found.setdefault(run_id, []).append(machine)
        return found

    @_reads
    def skipped(self, run_id: int) -> list[Skipped]:
        rows = self.database.fetch(
            "SELECT workload, row, kind, reason, params FROM skipped WHERE run_id = ?", (run_id,)
        )
        return [Skipped(*row) for row in rows]

    @_reads
    def finished_trials(self, run_id: int) -> set[tuple[str, int]]:
        return set(self.database.fetch("SELECT cell, trial FROM trials WHERE run_id = ?", (run_id,)))


# The database's clock in epoch seconds, in words both databases know: the
# leases of workers on many machines are all read by the one clock.
NOW = "CAST(extract(epoch FROM now()) AS BIGINT)"

TRIAL_COLUMNS = """id, workload, runtime, mechanism, options, params, trial, status, detail,
    expected, wall_ns, user_ns, sys_ns, maxrss_kb, tree_rss_kb, exit_code, signal,
    runtime_info, stderr, voluntary_switches, involuntary_switches, strays, machine, machine_id"""


def _trial_record(row: tuple, samples: tuple[Sample, ...], seq: int | None = None) -> TrialRecord:
    cell = CellKey(row[1], row[2], row[3], tuple(json.loads(row[5]).items()), tuple(json.loads(row[4])))
    return TrialRecord(
        cell,
        row[6],
        Status(row[7]),
        row[8],
        json.loads(row[9]),
        wall_ns=row[10],
        user_ns=row[11],
        sys_ns=row[12],
        maxrss_kb=row[13],
        tree_rss_kb=row[14],
        exit_code=row[15],
        signal=row[16],
        runtime_info=json.loads(row[17]),
        stderr=row[18],
        voluntary_switches=row[19],
        involuntary_switches=row[20],
        strays=row[21],
        machine=row[22],
        machine_id=row[23],
        samples=samples,
        seq=seq,
    )


def _sent(database: str, sent: int, refused: int) -> str:
    line = f"database {database}: sent the {sent} trials that waited in the journal"
    return line + (f"; {refused} not stored: their claims lapsed and other workers took them" if refused else "")


def _claim_kept(db, entry: Entry) -> bool:
    """The worker's claim on the trial, marked done; or done by this worker
    already (a send whose answer was lost). False: another worker took it."""
    key = (entry.run_id, entry.record.cell.id, entry.record.trial, entry.claim)
    where = "WHERE run_id = ? AND cell = ? AND trial = ? AND worker = ?"
    return bool(
        db.execute(f"UPDATE planned SET state = 'done' {where} AND state = 'claimed' RETURNING trial", key)
        or db.execute(f"SELECT trial FROM planned {where} AND state = 'done'", key)
    )


def _insert_trial(db, entry: Entry) -> bool:
    """One trial and its samples, once: a trial sent again (its first commit's
    answer lost with the connection) or claimed by another worker meanwhile is
    not stored twice."""
    run_id, t = entry.run_id, entry.record
    if entry.claim is not None and not _claim_kept(db, entry):
        return False
    inserted = db.execute(
        """INSERT INTO trials (run_id, cell, workload, runtime, mechanism, options, params,
           trial, status, detail, expected, wall_ns, user_ns, sys_ns, maxrss_kb,
           tree_rss_kb, exit_code, signal, runtime_info, stderr, finished,
           voluntary_switches, involuntary_switches, strays, machine, machine_id)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT DO NOTHING RETURNING id""",
        (
            run_id,
            t.cell.id,
            t.cell.workload,
            t.cell.runtime,
            t.cell.mechanism,
            json.dumps(t.cell.options),
            json.dumps(dict(t.cell.params)),
            t.trial,
            str(t.status),
            t.detail,
            json.dumps(t.expected),
            t.wall_ns,
            t.user_ns,
            t.sys_ns,
            t.maxrss_kb,
            t.tree_rss_kb,
            t.exit_code,
            t.signal,
            json.dumps(t.runtime_info),
            t.stderr,
            _now(),
            t.voluntary_switches,
            t.involuntary_switches,
            t.strays,
            t.machine,
            t.machine_id,
        ),
    )
    if not inserted:
        return True
    db.executemany(
        """INSERT INTO samples (trial_id, idx, warmup, wall_ns, user_ns, sys_ns, units, result, ops,
           peak_live, evidence, repeat) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        [
            (
                inserted[0][0],
                i,
                int(s.warmup),
                s.wall_ns,
                s.user_ns,
                s.sys_ns,
                s.units,
                json.dumps(s.result),
                s.ops,
                s.peak_live,
                json.dumps(s.evidence),
                s.repeat,
            )
            for i, s in enumerate(t.samples)
        ],
    )
    return True
