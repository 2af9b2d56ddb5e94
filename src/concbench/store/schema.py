"""The database's tables, written once in SQLite's dialect and translated for
PostgreSQL, and what turns a database of each older schema into the next."""

import contextlib
import functools
import hashlib
import re
import sqlite3

from ..errors import UserError

SCHEMA_VERSION = 10

# The tables as this concbench writes them, whole: what a new database is
# made of, and what the migrations below turn every older one into (tests/test_schema.py).
SCHEMA = """
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    uuid TEXT UNIQUE,               -- the run's identity in every database it is merged into
    started TEXT NOT NULL,
    finished TEXT,
    state TEXT NOT NULL,            -- running | complete | interrupted | planned
    request TEXT NOT NULL,          -- JSON: what was asked, enough to resume it
    environment TEXT NOT NULL       -- JSON: the machine and toolchains
);
CREATE TABLE trials (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    cell TEXT NOT NULL,             -- CellKey.id, for lookups across runs
    workload TEXT NOT NULL, runtime TEXT NOT NULL, mechanism TEXT NOT NULL,
    options TEXT NOT NULL, params TEXT NOT NULL,
    cpus INTEGER NOT NULL DEFAULT 0,  -- the CPUs the cell's trials are confined to; 0: unconfined
    trial INTEGER NOT NULL,
    status TEXT NOT NULL, detail TEXT NOT NULL, expected TEXT NOT NULL,
    wall_ns INTEGER, user_ns INTEGER, sys_ns INTEGER,
    maxrss_kb INTEGER, tree_rss_kb INTEGER, exit_code INTEGER, signal INTEGER,
    runtime_info TEXT NOT NULL, stderr TEXT NOT NULL, finished TEXT NOT NULL,
    voluntary_switches INTEGER, involuntary_switches INTEGER,   -- wait4's context switches
    strays INTEGER,                 -- processes left running when it exited, killed; NULL: unknown
    machine TEXT NOT NULL DEFAULT '', machine_id TEXT NOT NULL DEFAULT '',  -- who ran it
    cpu_set TEXT NOT NULL DEFAULT '',  -- the CPUs a confined trial ran on: '0-1'
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
    latency TEXT,                   -- JSON: a served workload's load and the latency it met; else NULL
    PRIMARY KEY (trial_id, idx)
);
CREATE TABLE skipped (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    workload TEXT NOT NULL, row TEXT NOT NULL, kind TEXT NOT NULL, reason TEXT NOT NULL,
    params TEXT NOT NULL DEFAULT ''  -- the parameter set it was planned with; '' for every set
);

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

CREATE TABLE calibrations (         -- each cell's repetitions per timed run (calibration.py)
    run_id INTEGER NOT NULL REFERENCES runs(id),
    cell TEXT NOT NULL,             -- CellKey.id
    repeat INTEGER NOT NULL,
    run_ns INTEGER,                 -- the calibrating run's wall time; NULL where it failed
    trial_ns INTEGER,               -- the calibrating trial's, start-up included
    detail TEXT NOT NULL,           -- '' if measured; else 'run N' (reused from it), or why it failed
    PRIMARY KEY (run_id, cell)
);

CREATE TABLE planned (              -- a stored plan's trials (run --plan-only), claimed by workers
    run_id INTEGER NOT NULL REFERENCES runs(id),
    seq INTEGER NOT NULL,           -- the order the plan takes them in
    cell TEXT NOT NULL, trial INTEGER NOT NULL,
    state TEXT NOT NULL,            -- waiting | claimed | done
    worker TEXT NOT NULL DEFAULT '',  -- the worker that claimed it last
    lease_until INTEGER,            -- when a claim lapses, in the database's clock (epoch seconds)
    claims INTEGER NOT NULL DEFAULT 0,  -- how many times it was claimed: more than 1 where a worker died
    PRIMARY KEY (run_id, cell, trial)
);
CREATE TABLE workers (              -- each worker that took a run's trials, and its machine
    run_id INTEGER NOT NULL REFERENCES runs(id),
    worker TEXT NOT NULL,           -- machine name, host and pid
    machine TEXT NOT NULL, machine_id TEXT NOT NULL,
    environment TEXT NOT NULL,      -- JSON: its fingerprint
    started TEXT NOT NULL,
    PRIMARY KEY (run_id, worker)
);

CREATE TABLE probes (               -- a fixed amount of pure CPU work, timed between trials
    run_id INTEGER NOT NULL REFERENCES runs(id),
    at INTEGER NOT NULL,            -- when, in nanoseconds since the epoch
    work_ns INTEGER NOT NULL,       -- its wall time
    PRIMARY KEY (run_id, at)
);
"""

TABLES = re.findall(r"CREATE TABLE (\w+)", SCHEMA)


@functools.cache
def columns(table: str) -> tuple[str, ...]:
    """A table's columns, as SQLite reads the schema: what a merge copies by
    name (a migrated file has them in another order), every one added later
    included."""
    with contextlib.closing(sqlite3.connect(":memory:")) as db:
        db.executescript(SCHEMA)
        return tuple(name for _, name, *_ in db.execute(f"PRAGMA table_info({table})"))


def run_uuid(started: str, request: str, environment: str) -> str:
    """A run stored before runs had an identity gets one from what it is, so
    that every copy of it migrates to the same one and merges as one run."""
    return hashlib.sha256("\0".join((started, request, environment)).encode()).hexdigest()[:32]


# What turns a database of each older schema into the next one (SQLite's:
# a PostgreSQL database starts at schema 7, and later migrations are written
# for both, translated as the schema is). Each is written as its schema was,
# never edited: the tables' comments are the current schema's.
MIGRATIONS = {
    1: "ALTER TABLE samples ADD COLUMN ops INTEGER;",  # rate workloads
    2: "ALTER TABLE skipped ADD COLUMN params TEXT NOT NULL DEFAULT '';",  # n/a above a limit
    3: """ALTER TABLE samples ADD COLUMN peak_live INTEGER;
          ALTER TABLE samples ADD COLUMN evidence TEXT NOT NULL DEFAULT '{}';
          ALTER TABLE trials ADD COLUMN voluntary_switches INTEGER;
          ALTER TABLE trials ADD COLUMN involuntary_switches INTEGER;
          CREATE TABLE floors (
              run_id INTEGER NOT NULL REFERENCES runs(id),
              runtime TEXT NOT NULL, maxrss_kb INTEGER, detail TEXT NOT NULL,
              PRIMARY KEY (run_id, runtime)
          );
          CREATE TABLE notes (
              run_id INTEGER NOT NULL REFERENCES runs(id),
              workload TEXT NOT NULL, row TEXT NOT NULL, text TEXT NOT NULL
          );
          """,  # evidence of concurrency, kits' floors, notes on rows
    4: """ALTER TABLE trials ADD COLUMN strays INTEGER;
          UPDATE runs SET request = json_set(request, '$.memory_limit', 0, '$.process_limit', 0)
          WHERE json_valid(request);
          """,  # what trials left running; older runs had no caps on a trial, and resume so
    5: """ALTER TABLE samples ADD COLUMN repeat INTEGER NOT NULL DEFAULT 1;
          UPDATE runs SET request = json_set(request,
              '$.trials', CASE json_extract(request, '$.profile') WHEN 'smoke' THEN 1 ELSE 3 END,
              '$.min_run', 0)
          WHERE json_valid(request) AND json_extract(request, '$.trials') IS NULL;
          CREATE TABLE calibrations (
              run_id INTEGER NOT NULL REFERENCES runs(id),
              cell TEXT NOT NULL, repeat INTEGER NOT NULL, run_ns INTEGER, trial_ns INTEGER,
              detail TEXT NOT NULL,
              PRIMARY KEY (run_id, cell)
          );
          """,  # calibrated runs; older runs had a fixed plan and no calibration, and resume so
    6: """ALTER TABLE runs ADD COLUMN uuid TEXT;
          CREATE UNIQUE INDEX runs_uuid ON runs (uuid);
          UPDATE runs SET uuid = concbench_run_uuid(started, request, environment);
          ALTER TABLE trials ADD COLUMN machine TEXT NOT NULL DEFAULT '';
          ALTER TABLE trials ADD COLUMN machine_id TEXT NOT NULL DEFAULT '';
          UPDATE trials SET
              machine = coalesce((SELECT json_extract(environment, '$.machine') FROM runs
                                  WHERE runs.id = trials.run_id AND json_valid(environment)), ''),
              machine_id = coalesce((SELECT json_extract(environment, '$.machine_id') FROM runs
                                     WHERE runs.id = trials.run_id AND json_valid(environment)), '');
          CREATE TABLE planned (
              run_id INTEGER NOT NULL REFERENCES runs(id),
              seq INTEGER NOT NULL, cell TEXT NOT NULL, trial INTEGER NOT NULL, state TEXT NOT NULL,
              worker TEXT NOT NULL DEFAULT '', lease_until INTEGER, claims INTEGER NOT NULL DEFAULT 0,
              PRIMARY KEY (run_id, cell, trial)
          );
          CREATE TABLE workers (
              run_id INTEGER NOT NULL REFERENCES runs(id),
              worker TEXT NOT NULL, machine TEXT NOT NULL, machine_id TEXT NOT NULL,
              environment TEXT NOT NULL, started TEXT NOT NULL,
              PRIMARY KEY (run_id, worker)
          );
          """,  # many machines: a run's identity, each trial's machine, stored plans and their workers
    7: """CREATE TABLE probes (
              run_id INTEGER NOT NULL REFERENCES runs(id),
              at INTEGER NOT NULL, work_ns INTEGER NOT NULL,
              PRIMARY KEY (run_id, at)
          );
          """,  # the machine's speed during a run
    8: "ALTER TABLE samples ADD COLUMN latency TEXT;",  # servers under load
    9: """ALTER TABLE trials ADD COLUMN cpus INTEGER NOT NULL DEFAULT 0;
          ALTER TABLE trials ADD COLUMN cpu_set TEXT NOT NULL DEFAULT '';
          """,  # CPUs as a dimension of every cell; older trials ran unconfined
}


def for_postgresql(sql: str) -> str:
    """SQLite's DDL in PostgreSQL's words: its integers are 64 bits, and a
    rowid is an identity column."""
    sql = sql.replace("INTEGER PRIMARY KEY", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")
    return re.sub(r"\bINTEGER\b", "BIGINT", sql)


def newer(name: str, version: int) -> UserError:
    return UserError(
        f"database {name} has schema {version}, from a newer concbench than this one "
        f"(schema {SCHEMA_VERSION}): update concbench to read or write it"
    )


def older(name: str, version: int) -> UserError:
    return UserError(
        f"database {name} has schema {version}, from an older concbench than this one "
        f"(schema {SCHEMA_VERSION}): open it once with this concbench to migrate it "
        f"(e.g. concbench show --db {name})"
    )


def require_current(name: str, version: int) -> None:
    """A database read as it is, never migrated (a merge's source), must be of this schema."""
    if version > SCHEMA_VERSION:
        raise newer(name, version)
    if version < SCHEMA_VERSION:
        raise older(name, version)
