"""A database in one SQLite file: the embedded default, one machine's."""

import contextlib
import fcntl
import sqlite3
from pathlib import Path

from ..errors import UserError
from . import schema
from .database import Database

# sqlite's codes for a file that is not a sound concbench database (not a
# database, a damaged one, one without concbench's tables or columns); its other
# errors, such as a locked or full database, are said as they are.
DAMAGE_CODES = {"SQLITE_CORRUPT", "SQLITE_NOTADB", "SQLITE_ERROR"}


class SqliteDatabase(Database):
    errors = (sqlite3.Error,)
    shared = False  # one machine's: no workers

    def __init__(self, path: Path, create: bool, read_only: bool = False):
        """The file at path, made (and its folder) if create; a command that
        only reads must leave nothing where there was nothing. A read_only
        file (a merge's source) is opened by SQLite as such, and never
        migrated: it must be of this schema."""
        self.path = path
        self.name = str(path)
        self.folder = path.parent
        if not create and not path.exists():
            raise UserError(f"no database at {path}: no runs stored yet (concbench run creates one)")
        try:
            if create:
                path.parent.mkdir(parents=True, exist_ok=True)
            self.db = self._connect(read_only)
            self.db.execute("PRAGMA foreign_keys = ON")
            self.db.create_function("concbench_run_uuid", 3, schema.run_uuid, deterministic=True)
            if read_only:
                self._require_current()
            else:
                self._migrate(create)
            self._check_tables()
        except OSError as e:
            raise UserError(f"database {path}: {e.strerror or e}") from None
        except sqlite3.Error as e:
            raise self.failure(e) from None

    def failure(self, error: Exception) -> UserError:
        """The one line for an error of this database."""
        if getattr(error, "sqlite_errorname", None) == "SQLITE_READONLY_DBMOVED":  # SQLite says "readonly"
            return UserError(
                f"database {self.name} was deleted or moved while concbench was using it: "
                "the trials stored in it went with it"
            )
        if isinstance(error, sqlite3.Error) and getattr(error, "sqlite_errorname", None) not in DAMAGE_CODES:
            return UserError(f"database {self.name}: {error}")
        return self.damaged(error)

    def damaged(self, why: object) -> UserError:
        return UserError(f"database {self.name} is damaged or not a concbench database: {why}")

    def lost(self, error: Exception) -> bool:
        """A file is never out of reach the way a server is."""
        return False

    def fetch(self, sql: str, params=()) -> list[tuple]:
        return self.db.execute(sql, params).fetchall()

    def execute(self, sql: str, params=()) -> list[tuple]:
        return self.db.execute(sql, params).fetchall()

    def executemany(self, sql: str, rows) -> None:
        self.db.executemany(sql, rows)

    @contextlib.contextmanager
    def transaction(self):
        """BEGIN ... COMMIT, or ROLLBACK and the error, for the store to say."""
        nested = self.db.in_transaction
        if not nested:
            self.db.execute("BEGIN")
        try:
            yield
            if not nested:
                self.db.execute("COMMIT")
        except BaseException:
            if self.db.in_transaction and not nested:
                self.db.execute("ROLLBACK")
            raise

    def hold_for_run(self) -> None:
        """Refuse a second `run` on this file while one is running: two at once
        would measure each other (and both write one run's trials). The flock is
        held until the process exits; SQLite's own locks are of another kind and
        do not conflict with it."""
        self._held = open(self.path, "rb")
        try:
            fcntl.flock(self._held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UserError(
                f"database {self.name} is in use by another concbench run: wait for it, or give this one another --db"
            ) from None

    def reconnect(self) -> None:
        pass

    def _connect(self, read_only: bool) -> sqlite3.Connection:
        if read_only:
            uri = f"{self.path.resolve().as_uri()}?mode=ro"
            return sqlite3.connect(uri, uri=True, isolation_level=None)
        return sqlite3.connect(self.path, isolation_level=None)

    def _require_current(self) -> None:
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version == 0:  # concbench's first schema was 1
            raise self.damaged("it has no concbench schema")
        schema.require_current(self.name, version)

    def _migrate(self, create: bool) -> None:
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if create and version == 0 and not self.db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
            self.db.executescript(f"BEGIN; {schema.SCHEMA} PRAGMA user_version = {schema.SCHEMA_VERSION}; COMMIT;")
            return
        if version > schema.SCHEMA_VERSION:
            raise schema.newer(self.name, version)
        if version not in schema.MIGRATIONS and version != schema.SCHEMA_VERSION:
            raise UserError(f"database {self.name}: not a concbench database of schema {schema.SCHEMA_VERSION}")
        while version < schema.SCHEMA_VERSION:
            self.db.executescript(f"BEGIN; {schema.MIGRATIONS[version]} PRAGMA user_version = {version + 1}; COMMIT;")
            version += 1

    def _check_tables(self) -> None:
        present = {name for (name,) in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        missing = [table for table in schema.TABLES if table not in present]
        if missing:
            raise self.damaged(f"it has no table {missing[0]!r}")
