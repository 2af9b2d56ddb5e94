"""SQLite storage: every finished trial is committed at once, so an
interrupted run loses nothing and can be resumed."""

import fcntl
import functools
import json
import re
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from .errors import UserError
from .protocol import Status
from .records import Calibration, CellKey, Note, Sample, Skipped, TrialRecord

SCHEMA_VERSION = 6

SCHEMA_4_TABLES = """
CREATE TABLE floors (               -- each runtime's kit doing nothing: its memory floor
    run_id INTEGER NOT NULL REFERENCES runs(id),
    runtime TEXT NOT NULL,          -- the runtime with its options: 'ruby', 'ruby+yjit'
    maxrss_kb INTEGER,              -- NULL where the floor trial failed
    detail TEXT NOT NULL,           -- why it failed; '' if it did not
    PRIMARY KEY (run_id, runtime)
);
CREATE TABLE notes (                -- what a reader of a row must know (the manifests' notes)
    run_id INTEGER NOT NULL REFERENCES runs(id),
    workload TEXT NOT NULL, row TEXT NOT NULL, text TEXT NOT NULL
);
"""

CALIBRATIONS_TABLE = """
CREATE TABLE calibrations (         -- each cell's repetitions per timed run (calibration.py)
    run_id INTEGER NOT NULL REFERENCES runs(id),
    cell TEXT NOT NULL,             -- CellKey.id
    repeat INTEGER NOT NULL,
    run_ns INTEGER,                 -- the calibrating run's wall time; NULL where it failed
    trial_ns INTEGER,               -- the calibrating trial's, start-up included
    detail TEXT NOT NULL,           -- '' if measured; else 'run N' (reused from it), or why it failed
    PRIMARY KEY (run_id, cell)
);
"""

# What turns a database of each older schema into the next one.
MIGRATIONS = {
    1: "ALTER TABLE samples ADD COLUMN ops INTEGER;",  # rate workloads
    2: "ALTER TABLE skipped ADD COLUMN params TEXT NOT NULL DEFAULT '';",  # n/a above a limit
    3: """ALTER TABLE samples ADD COLUMN peak_live INTEGER;
          ALTER TABLE samples ADD COLUMN evidence TEXT NOT NULL DEFAULT '{}';
          ALTER TABLE trials ADD COLUMN voluntary_switches INTEGER;
          ALTER TABLE trials ADD COLUMN involuntary_switches INTEGER;
          """
    + SCHEMA_4_TABLES,  # evidence of concurrency, kits' floors, notes on rows
    4: """ALTER TABLE trials ADD COLUMN strays INTEGER;
          UPDATE runs SET request = json_set(request, '$.memory_limit', 0, '$.process_limit', 0)
          WHERE json_valid(request);
          """,  # what trials left running; older runs had no caps on a trial, and resume so
    5: """ALTER TABLE samples ADD COLUMN repeat INTEGER NOT NULL DEFAULT 1;
          UPDATE runs SET request = json_set(request,
              '$.trials', CASE json_extract(request, '$.profile') WHEN 'smoke' THEN 1 ELSE 3 END,
              '$.min_run', 0)
          WHERE json_valid(request) AND json_extract(request, '$.trials') IS NULL;
          """
    + CALIBRATIONS_TABLE,  # calibrated runs; older runs had a fixed plan and no calibration, and resume so
}

SCHEMA = (
    """
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    started TEXT NOT NULL,
    finished TEXT,
    state TEXT NOT NULL,            -- running | complete | interrupted
    request TEXT NOT NULL,          -- JSON: what was asked, enough to resume it
    environment TEXT NOT NULL       -- JSON: the machine and toolchains
);
CREATE TABLE trials (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    cell TEXT NOT NULL,             -- CellKey.id, for lookups across runs
    workload TEXT NOT NULL, runtime TEXT NOT NULL, mechanism TEXT NOT NULL,
    options TEXT NOT NULL, params TEXT NOT NULL,
    trial INTEGER NOT NULL,
    status TEXT NOT NULL, detail TEXT NOT NULL, expected TEXT NOT NULL,
    wall_ns INTEGER, user_ns INTEGER, sys_ns INTEGER,
    maxrss_kb INTEGER, tree_rss_kb INTEGER, exit_code INTEGER, signal INTEGER,
    runtime_info TEXT NOT NULL, stderr TEXT NOT NULL, finished TEXT NOT NULL,
    voluntary_switches INTEGER, involuntary_switches INTEGER,   -- wait4's context switches
    strays INTEGER,                 -- processes left running when it exited, killed; NULL: unknown
    UNIQUE (run_id, cell, trial)
);
CREATE TABLE samples (
    trial_id INTEGER NOT NULL REFERENCES trials(id),
    idx INTEGER NOT NULL,
    warmup INTEGER NOT NULL,
    wall_ns INTEGER NOT NULL, user_ns INTEGER NOT NULL, sys_ns INTEGER NOT NULL,
    units INTEGER NOT NULL, result TEXT NOT NULL,
    ops INTEGER,                    -- rate workloads: operations the kit counted
    peak_live INTEGER,              -- most units alive at once
    evidence TEXT NOT NULL DEFAULT '{}',  -- JSON: the spec's [evidence] counts
    repeat INTEGER NOT NULL DEFAULT 1,    -- repetitions of the work its figures are the mean of
    PRIMARY KEY (trial_id, idx)
);
CREATE TABLE skipped (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    workload TEXT NOT NULL, row TEXT NOT NULL, kind TEXT NOT NULL, reason TEXT NOT NULL,
    params TEXT NOT NULL DEFAULT ''  -- the parameter set it was planned with; '' for every set
);
"""
    + SCHEMA_4_TABLES
    + CALIBRATIONS_TABLE
)

TABLES = re.findall(r"CREATE TABLE (\w+)", SCHEMA)

# sqlite's codes for a file that is not a sound concbench database (not a
# database, a damaged one, one without concbench's tables or columns); its other
# errors, such as a locked or full database, are said as they are.
DAMAGE_CODES = {"SQLITE_CORRUPT", "SQLITE_NOTADB", "SQLITE_ERROR"}

# What reading a damaged or foreign database raises: sqlite's errors, and stored
# JSON or a status that does not decode, or decodes to the wrong shape.
UNREADABLE = (sqlite3.Error, ValueError, TypeError, AttributeError)


@dataclass(frozen=True)
class RunInfo:
    id: int
    started: str
    finished: str | None
    state: str
    request: dict
    environment: dict


def _json_object(text: str) -> dict:
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError(f"{text[:40]!r} is not a JSON object")
    return value


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _reads(method):
    """A read of a damaged or foreign database fails in one line naming it."""

    @functools.wraps(method)
    def read(self, *args):
        try:
            return method(self, *args)
        except UNREADABLE as e:
            raise self.failure(e) from None

    return read


class Store:
    def __init__(self, path: Path, create: bool = True):
        """The database at path, made (and its folder) if create; a command that
        only reads must leave nothing where there was nothing."""
        self.path = path
        if not create and not path.exists():
            raise UserError(f"no database at {path}: no runs stored yet (concbench run creates one)")
        try:
            if create:
                path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(path, isolation_level=None)
            self.db.execute("PRAGMA foreign_keys = ON")
            self._migrate(create)
            self._check_tables()
        except OSError as e:
            raise UserError(f"database {path}: {e.strerror or e}") from None
        except sqlite3.Error as e:
            raise self.failure(e) from None

    def failure(self, error: Exception) -> UserError:
        """The one line for an error of this database."""
        if isinstance(error, sqlite3.Error) and getattr(error, "sqlite_errorname", None) not in DAMAGE_CODES:
            return UserError(f"database {self.path}: {error}")
        return self._damaged(error)

    def _damaged(self, why: object) -> UserError:
        return UserError(f"database {self.path} is damaged or not a concbench database: {why}")

    def hold_for_run(self) -> None:
        """Refuse a second `run` on this database while one is running: two at
        once would measure each other (and both write one run's trials). The
        flock is held until the process exits; SQLite's own locks are of
        another kind and do not conflict with it."""
        self._held = open(self.path, "rb")
        try:
            fcntl.flock(self._held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UserError(
                f"database {self.path} is in use by another concbench run: wait for it, or give this one another --db"
            ) from None

    def _migrate(self, create: bool) -> None:
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if create and version == 0 and not self.db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
            self.db.executescript(f"BEGIN; {SCHEMA} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")
            return
        if version not in MIGRATIONS and version != SCHEMA_VERSION:
            raise UserError(f"database {self.path}: not a concbench database of schema {SCHEMA_VERSION}")
        while version < SCHEMA_VERSION:
            self.db.executescript(f"BEGIN; {MIGRATIONS[version]} PRAGMA user_version = {version + 1}; COMMIT;")
            version += 1

    def _check_tables(self) -> None:
        present = {name for (name,) in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        missing = [table for table in TABLES if table not in present]
        if missing:
            raise self._damaged(f"it has no table {missing[0]!r}")

    def _transaction(self):
        return _Transaction(self)

    def begin_run(self, request: dict, environment: dict) -> int:
        with self._transaction():
            cursor = self.db.execute(
                "INSERT INTO runs (started, state, request, environment) VALUES (?, 'running', ?, ?)",
                (_now(), json.dumps(request), json.dumps(environment)),
            )
        return cursor.lastrowid

    def set_state(self, run_id: int, state: str) -> None:
        with self._transaction():
            self.db.execute(
                "UPDATE runs SET state = ?, finished = ? WHERE id = ?",
                (state, _now() if state == "complete" else None, run_id),
            )

    def add_skipped(self, run_id: int, skipped: list[Skipped]) -> None:
        with self._transaction():
            self.db.execute("DELETE FROM skipped WHERE run_id = ?", (run_id,))
            self.db.executemany(
                "INSERT INTO skipped (run_id, workload, row, kind, reason, params) VALUES (?, ?, ?, ?, ?, ?)",
                [(run_id, s.workload, s.row, s.kind, s.reason, s.params) for s in skipped],
            )

    def add_notes(self, run_id: int, notes: list[Note]) -> None:
        with self._transaction():
            self.db.execute("DELETE FROM notes WHERE run_id = ?", (run_id,))
            self.db.executemany(
                "INSERT INTO notes (run_id, workload, row, text) VALUES (?, ?, ?, ?)",
                [(run_id, n.workload, n.row, n.text) for n in notes],
            )

    @_reads
    def notes(self, run_id: int) -> list[Note]:
        rows = self.db.execute("SELECT workload, row, text FROM notes WHERE run_id = ?", (run_id,))
        return [Note(*row) for row in rows]

    def add_trial(self, run_id: int, t: TrialRecord) -> None:
        with self._transaction():
            cursor = self.db.execute(
                """INSERT INTO trials (run_id, cell, workload, runtime, mechanism, options, params,
                   trial, status, detail, expected, wall_ns, user_ns, sys_ns, maxrss_kb,
                   tree_rss_kb, exit_code, signal, runtime_info, stderr, finished,
                   voluntary_switches, involuntary_switches, strays)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
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
                ),
            )
            self.db.executemany(
                """INSERT INTO samples (trial_id, idx, warmup, wall_ns, user_ns, sys_ns, units, result, ops,
                   peak_live, evidence, repeat) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                [
                    (
                        cursor.lastrowid,
                        i,
                        s.warmup,
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

    def add_floor(self, run_id: int, runtime: str, maxrss_kb: int | None, detail: str) -> None:
        with self._transaction():
            self.db.execute(
                "INSERT OR REPLACE INTO floors (run_id, runtime, maxrss_kb, detail) VALUES (?, ?, ?, ?)",
                (run_id, runtime, maxrss_kb, detail),
            )

    @_reads
    def floors(self, run_id: int) -> dict[str, int | None]:
        """Each runtime's memory floor in this run (kB), None where it could not be measured."""
        rows = self.db.execute("SELECT runtime, maxrss_kb FROM floors WHERE run_id = ?", (run_id,))
        return dict(rows.fetchall())

    def add_calibration(self, run_id: int, cell_id: str, calibration: Calibration) -> None:
        with self._transaction():
            self.db.execute(
                "INSERT OR REPLACE INTO calibrations (run_id, cell, repeat, run_ns, trial_ns, detail) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (run_id, cell_id, calibration.repeat, calibration.run_ns, calibration.trial_ns, calibration.detail),
            )

    @_reads
    def calibrations(self, run_id: int) -> dict[str, Calibration]:
        """Each calibrated cell's repetitions in this run, by CellKey.id."""
        rows = self.db.execute(
            "SELECT cell, repeat, run_ns, trial_ns, detail FROM calibrations WHERE run_id = ?", (run_id,)
        )
        return {cell: Calibration(*rest) for cell, *rest in rows}

    @_reads
    def earlier_calibrations(self, run_id: int) -> dict[str, Calibration]:
        """Each cell's latest measured calibration in the runs before this one,
        its detail the run it was measured in ('run 3')."""
        rows = self.db.execute(
            """SELECT cell, repeat, run_ns, trial_ns, 'run ' || run_id FROM calibrations
               WHERE run_id < ? AND run_ns IS NOT NULL AND detail = '' ORDER BY run_id""",
            (run_id,),
        )
        return {cell: Calibration(*rest) for cell, *rest in rows}  # a later run's replaces an earlier's

    @_reads
    def earlier_trial_lengths(self, run_id: int) -> dict[str, int]:
        """Each cell's mean trial length (ns) in the latest run before this one that has it."""
        rows = self.db.execute(
            """SELECT cell, run_id, avg(wall_ns) FROM trials WHERE run_id < ? AND wall_ns IS NOT NULL
               GROUP BY cell, run_id ORDER BY run_id""",
            (run_id,),
        )
        return {cell: round(mean) for cell, _, mean in rows}

    @_reads
    def runs(self) -> list[RunInfo]:
        rows = self.db.execute(
            "SELECT id, started, finished, state, request, environment FROM runs ORDER BY id"
        ).fetchall()
        return [RunInfo(r[0], r[1], r[2], r[3], _json_object(r[4]), _json_object(r[5])) for r in rows]

    def run(self, run_id: int | None = None) -> RunInfo:
        """A run by id, or the latest; UserError if there is none."""
        runs = self.runs()
        if not runs:
            raise UserError(f"database {self.path}: no runs stored yet (concbench run)")
        if run_id is None:
            return runs[-1]
        for run in runs:
            if run.id == run_id:
                return run
        raise UserError(f"no run {run_id} in {self.path} (runs: {runs[0].id}..{runs[-1].id})")

    @_reads
    def trials(self, run_id: int) -> list[TrialRecord]:
        samples: dict[int, list[Sample]] = {}
        for row in self.db.execute(
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
        records = []
        for row in self.db.execute(
            """SELECT id, workload, runtime, mechanism, options, params, trial, status, detail,
                   expected, wall_ns, user_ns, sys_ns, maxrss_kb, tree_rss_kb, exit_code, signal,
                   runtime_info, stderr, voluntary_switches, involuntary_switches, strays
                   FROM trials WHERE run_id = ? ORDER BY id""",
            (run_id,),
        ):
            cell = CellKey(row[1], row[2], row[3], tuple(json.loads(row[5]).items()), tuple(json.loads(row[4])))
            records.append(
                TrialRecord(
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
                    samples=tuple(samples.get(row[0], ())),
                )
            )
        return records

    @_reads
    def skipped(self, run_id: int) -> list[Skipped]:
        rows = self.db.execute("SELECT workload, row, kind, reason, params FROM skipped WHERE run_id = ?", (run_id,))
        return [Skipped(*row) for row in rows]

    @_reads
    def finished_trials(self, run_id: int) -> set[tuple[str, int]]:
        rows = self.db.execute("SELECT cell, trial FROM trials WHERE run_id = ?", (run_id,))
        return set(rows.fetchall())


class _Transaction:
    """BEGIN ... COMMIT, or ROLLBACK and a one-line error (a full disk, a locked file)."""

    def __init__(self, store: Store):
        self.store = store

    def __enter__(self):
        if not self.store.db.in_transaction:
            self.store.db.execute("BEGIN")

    def __exit__(self, kind, error, trace):
        db = self.store.db
        if error is None:
            try:
                db.execute("COMMIT")
                return False
            except sqlite3.Error as e:
                error = e
        if db.in_transaction:
            db.execute("ROLLBACK")
        if isinstance(error, sqlite3.Error):
            raise self.store.failure(error) from None
        return False
