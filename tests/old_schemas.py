"""Databases of concbench's older schemas, as they were: schema 1 as the first
concbench wrote it, each later one that and the migrations up to it."""

import contextlib
import re
import sqlite3
from pathlib import Path

from concbench.store import schema

SCHEMA_1 = """
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    started TEXT NOT NULL,
    finished TEXT,
    state TEXT NOT NULL,
    request TEXT NOT NULL,
    environment TEXT NOT NULL
);
CREATE TABLE trials (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    cell TEXT NOT NULL,
    workload TEXT NOT NULL, runtime TEXT NOT NULL, mechanism TEXT NOT NULL,
    options TEXT NOT NULL, params TEXT NOT NULL,
    trial INTEGER NOT NULL,
    status TEXT NOT NULL, detail TEXT NOT NULL, expected TEXT NOT NULL,
    wall_ns INTEGER, user_ns INTEGER, sys_ns INTEGER,
    maxrss_kb INTEGER, tree_rss_kb INTEGER, exit_code INTEGER, signal INTEGER,
    runtime_info TEXT NOT NULL, stderr TEXT NOT NULL, finished TEXT NOT NULL,
    UNIQUE (run_id, cell, trial)
);
CREATE TABLE samples (
    trial_id INTEGER NOT NULL REFERENCES trials(id),
    idx INTEGER NOT NULL,
    warmup INTEGER NOT NULL,
    wall_ns INTEGER NOT NULL, user_ns INTEGER NOT NULL, sys_ns INTEGER NOT NULL,
    units INTEGER NOT NULL, result TEXT NOT NULL,
    PRIMARY KEY (trial_id, idx)
);
CREATE TABLE skipped (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    workload TEXT NOT NULL, row TEXT NOT NULL, kind TEXT NOT NULL, reason TEXT NOT NULL
);
"""


def sqlite_at(path: Path, version: int) -> Path:
    """A SQLite file of the schema version, without rows."""
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as db:
        db.create_function("concbench_run_uuid", 3, schema.run_uuid)
        db.executescript(SCHEMA_1)
        for older in range(1, version):
            db.executescript(schema.MIGRATIONS[older])
        db.execute(f"PRAGMA user_version = {version}")
    return path


def postgresql_schema_7() -> str:
    """The tables a PostgreSQL database was made with at schema 7, its first:
    the current ones but for what schemas 8, 9 and 10 added."""
    without_probes = re.sub(r"CREATE TABLE probes \(.*?\n\);\n", "", schema.SCHEMA, flags=re.DOTALL)
    return re.sub(r"\n    (latency TEXT|cpus INTEGER|cpu_set TEXT)[^\n]*", "", without_probes)
