"""A database on a PostgreSQL server: one store for many machines, with
psycopg 3. The queries are the SQLite store's, their '?' made '%s'."""

import contextlib
import functools
import re
from pathlib import Path
from urllib.parse import unquote

from ..errors import UserError
from . import schema
from .database import Database

SCHEMES = ("postgresql://", "postgres://")
CONNECT_TIMEOUT = 10  # seconds: an unreachable server is said, not waited for
# Any number: PostgreSQL's advisory lock that makes the first commands of two
# machines create the tables once.
MIGRATION_LOCK = 7_355_608
# libpq's keywords whose values are secret: the server's password, and the
# passphrase of the client's key.
SECRET_KEYWORDS = ("password", "sslpassword")
_PARAMETER = re.compile(r"[?&]([^&=]*)=([^&]*)")  # libpq splits a URL's query so, then decodes
MASK = "***"
# Any URL, for shown(): the loader variables a run records can hold one of
# any scheme (environment.py), with a password as a database URL can.
ANY_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def is_url(location: str) -> bool:
    return location.startswith(SCHEMES)


def shown(url: str) -> str:
    """The URL (of any scheme) as messages show it: each of its passwords ***."""
    for start, end in reversed(_secret_spans(url)):
        url = f"{url[:start]}{MASK}{url[end:]}"
    return url


def hidden(text: str, url: str) -> str:
    """A message about the URL without its passwords: libpq's messages quote
    the whole URL, or a part of it they could not decode."""
    text = text.replace(url, shown(url))
    for start, end in _secret_spans(url):
        for form in {url[start:end], unquote(url[start:end])}:
            text = text.replace(form, MASK)
    return text


def has_password(location: str) -> bool:
    return bool(_secret_spans(location))


def misreads_password(url: str) -> bool:
    """Whether libpq would read the URL's password otherwise than meant: cut
    at an '@' in it, or not at all past a '/' (neither percent-encoded), the
    rest sent as the host, the port or the database."""
    start = _after_scheme(url)
    read, meant = _userinfo_ends(url[start:])
    return meant > read and ":" in url[start : start + meant]


def _secret_spans(location: str) -> list[tuple[int, int]]:
    """Where a URL's passwords are: its USER:PASSWORD@ (as libpq reads it or as
    meant, whichever is longer) and its query's values of SECRET_KEYWORDS, the
    keys percent-decoded as libpq does, in any case."""
    if not ANY_URL.match(location):
        return []
    start = _after_scheme(location)
    rest = location[start:]
    end = max(_userinfo_ends(rest))
    spans = [(start + rest.index(":") + 1, start + end)] if ":" in rest[: max(end, 0)] else []
    for parameter in _PARAMETER.finditer(location, start + end + 1):
        if unquote(parameter[1]).lower() in SECRET_KEYWORDS:
            spans.append(parameter.span(2))
    return [(first, last) for first, last in spans if first < last]


def _after_scheme(url: str) -> int:
    return url.index("://") + len("://")


def _userinfo_ends(rest: str) -> tuple[int, int]:
    """Where the USER[:PASSWORD] after '://' ends (its '@'; -1: none), as libpq
    reads it (up to the first '@', none if a '/' comes first) and as meant by
    a password with an '@' or a '/' (up to the last '@' of the host part)."""
    first = rest.find("@")
    if first < 0:
        return -1, -1
    if "/" in rest[:first]:
        query = rest.find("?")
        return -1, rest.rfind("@", 0, query if query >= 0 else len(rest))
    host_end = first + re.search(r"[/?]|$", rest[first:]).start()
    return first, rest.rfind("@", 0, host_end)


def _psycopg():
    try:
        import psycopg
    except ImportError:
        raise UserError(
            "a PostgreSQL database needs psycopg 3: pip install 'psycopg[binary]' (make setup installs it)"
        ) from None
    return psycopg


def _storable(params) -> tuple:
    """PostgreSQL's text holds no NUL character, which a trial's stderr or
    answer can have: each becomes U+FFFD, as an undecodable byte does."""
    return tuple(p.replace("\0", "\ufffd") if isinstance(p, str) else p for p in params)


@functools.cache
def _placeholders(sql: str) -> str:
    return sql.replace("?", "%s")


class PostgresDatabase(Database):
    shared = True  # many machines': workers claim its stored plans' trials

    def __init__(self, url: str, folder: Path, create: bool, read_only: bool = False):
        """A read_only database (a merge's source) takes no writes on this
        connection and is never migrated: it must be of this schema."""
        self.psycopg = _psycopg()
        self.errors = (self.psycopg.Error,)
        self.url = url
        self.name = shown(url)
        self.folder = folder  # where its reports go: a server has no folder of its own
        self.read_only = read_only
        self.db = None
        if misreads_password(url):
            raise UserError(
                f"database URL {self.name} is malformed: percent-encode the '@' and '/' of its password "
                "(%40, %2F), or give the password in PGPASSWORD or ~/.pgpass"
            )
        try:
            self.psycopg.conninfo.conninfo_to_dict(url)
        except self.psycopg.ProgrammingError as e:
            raise UserError(f"database URL {self.name} is malformed: {self.reason(e)}") from None
        self.reconnect()
        try:
            if read_only:
                self._require_current()
            else:
                self._migrate(create)
        except self.psycopg.Error as e:
            raise self.failure(e) from None

    def reconnect(self) -> None:
        """A new connection, the old one dropped (a restarted server's)."""
        if self.db is not None:
            with contextlib.suppress(Exception):
                self.db.close()
        try:
            self.db = self.psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT)
            if self.read_only:
                self.db.execute("SET default_transaction_read_only = on")
        except self.psycopg.Error as e:
            self.db = None
            raise UserError(f"database {self.name}: cannot connect: {self.reason(e)}") from None

    def failure(self, error: Exception) -> UserError:
        if self.lost(error):
            return UserError(f"database {self.name}: connection lost: {self.reason(error)}")
        if isinstance(error, self.psycopg.Error) and not isinstance(error, self.psycopg.DatabaseError):
            return UserError(f"database {self.name}: {self.reason(error)}")
        return self.damaged(self.reason(error))

    def reason(self, error: Exception) -> str:
        """An error's first line, without the URL's passwords."""
        return hidden(_first_line(error), self.url)

    def damaged(self, why: object) -> UserError:
        return UserError(f"database {self.name} is damaged or not a concbench database: {why}")

    def lost(self, error: Exception) -> bool:
        """Whether the server went out of reach: worth retrying, unlike a query it refused."""
        return isinstance(error, self.psycopg.OperationalError | self.psycopg.InterfaceError) or (
            self.db is None or self.db.closed or self.db.broken
        )

    def _connection(self):
        if self.db is None or self.db.closed or self.db.broken:
            raise self.psycopg.OperationalError("the connection is closed")
        return self.db

    def fetch(self, sql: str, params=()) -> list[tuple]:
        return self._connection().execute(_placeholders(sql), _storable(params)).fetchall()

    def execute(self, sql: str, params=()) -> list[tuple]:
        cursor = self._connection().execute(_placeholders(sql), _storable(params))
        return cursor.fetchall() if cursor.description else []

    def executemany(self, sql: str, rows) -> None:
        rows = [_storable(row) for row in rows]
        if rows:
            self._connection().cursor().executemany(_placeholders(sql), rows)

    def transaction(self):
        return self._connection().transaction()

    def hold_for_run(self) -> None:
        """Runs of many machines share one server; one machine's trials take
        turns by its machine lock (store.machine_lock), not by the database."""

    def _migrate(self, create: bool) -> None:
        with self._connection().transaction():
            self.db.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            version = self._version()
            if version is None:
                if self._has_table("runs"):
                    raise self.damaged("it has a table 'runs' but no concbench_schema")
                if not create:
                    raise UserError(f"database {self.name}: no runs stored yet (concbench run creates the tables)")
                self.db.execute(schema.for_postgresql(schema.SCHEMA))
                self.db.execute("CREATE TABLE concbench_schema (version INTEGER NOT NULL)")
                self.db.execute("INSERT INTO concbench_schema VALUES (%s)", (schema.SCHEMA_VERSION,))
                return
            if version > schema.SCHEMA_VERSION:
                raise schema.newer(self.name, version)
            while version < schema.SCHEMA_VERSION:
                self.db.execute(schema.for_postgresql(schema.MIGRATIONS[version]))
                version += 1
                self.db.execute("UPDATE concbench_schema SET version = %s", (version,))
            self._check_tables()

    def _require_current(self) -> None:
        version = self._version()
        if version is None:
            raise self.damaged("it has no table 'concbench_schema'")
        schema.require_current(self.name, version)
        self._check_tables()

    def _check_tables(self) -> None:
        missing = [table for table in schema.TABLES if not self._has_table(table)]
        if missing:
            raise self.damaged(f"it has no table {missing[0]!r}")

    def _version(self) -> int | None:
        if not self._has_table("concbench_schema"):
            return None
        row = self.db.execute("SELECT max(version) FROM concbench_schema").fetchone()
        return row[0] if row and row[0] is not None else 0

    def _has_table(self, name: str) -> bool:
        return self.db.execute("SELECT to_regclass(%s) IS NOT NULL", (name,)).fetchone()[0]


def _first_line(error: Exception) -> str:
    text = " ".join(str(error).split("\n")[:1]).strip()
    return re.sub(r"\s+", " ", text) or type(error).__name__
