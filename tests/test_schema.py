"""The schema is written once: a database of every older schema, migrated,
has exactly the tables, columns and indexes of one made new, and the store
reads and writes every column of a trial and a sample by its record's name."""

import contextlib
import sqlite3

import old_schemas
import pytest

from concbench.store import open_store, rows, schema


def shape(path) -> dict:
    """A SQLite file's tables: each column's type, constraint and default,
    its indexes' columns and uniqueness (not their names: a migration's
    index is named, a fresh table's UNIQUE is not), its foreign keys."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        tables = [name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {table: _table(db, table) for table in tables}


def _table(db, table: str) -> dict:
    columns = {
        name: (kind, notnull, default, pk) for _, name, kind, notnull, default, pk in _pragma(db, "table_info", table)
    }
    indexes = {
        (unique, tuple(column for *_, column in _pragma(db, "index_info", index)))
        for _, index, unique, *_ in _pragma(db, "index_list", table)
    }
    keys = {
        (parent, child, parent_column)
        for _, _, parent, child, parent_column, *_ in _pragma(db, "foreign_key_list", table)
    }
    return {"columns": columns, "indexes": indexes, "foreign keys": keys}


def _pragma(db, name: str, argument: str) -> list[tuple]:
    return db.execute(f"PRAGMA {name}('{argument}')").fetchall()


@pytest.mark.parametrize("version", range(1, schema.SCHEMA_VERSION))
def test_a_sqlite_file_of_each_older_schema_migrates_to_exactly_the_current_one(tmp_path, version):
    old = old_schemas.sqlite_at(tmp_path / f"v{version}.db", version)
    open_store(old, create=False)
    fresh = tmp_path / "fresh.db"
    open_store(fresh)
    assert shape(old) == shape(fresh)
    with contextlib.closing(sqlite3.connect(old)) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (schema.SCHEMA_VERSION,)


def test_every_column_of_a_trial_and_a_sample_is_a_field_of_its_record():
    assert set(schema.columns("trials")) == {"id", *rows.TRIAL_COLUMNS}
    assert set(schema.columns("samples")) == set(rows.SAMPLE_COLUMNS)
