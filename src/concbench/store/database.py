"""What the store asks of a database: the one interface a SQLite file
(sqlite.py) and a PostgreSQL server (postgresql.py) both give. Queries are
written once, in the words both databases know, with '?' for each value."""

from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

from ..errors import UserError


class Database(Protocol):
    name: str  # as messages show it: a path, or a URL without its passwords
    folder: Path  # where its reports go
    shared: bool  # many machines': workers may claim its stored plans' trials
    errors: tuple[type[Exception], ...]  # what its driver raises

    def fetch(self, sql: str, params=()) -> list[tuple]: ...

    def execute(self, sql: str, params=()) -> list[tuple]:
        """A statement's rows (those it RETURNING), [] for one that returns none."""
        ...

    def executemany(self, sql: str, rows) -> None: ...

    def transaction(self) -> AbstractContextManager:
        """Everything done inside it, committed at its end or rolled back on an error."""
        ...

    def failure(self, error: Exception) -> UserError:
        """The one line to say for an error of this database."""
        ...

    def damaged(self, why: object) -> UserError:
        """The one line for a database whose rows do not read as concbench's."""
        ...

    def lost(self, error: Exception) -> bool:
        """Whether the error says the database went out of reach: worth trying again."""
        ...

    def reconnect(self) -> None: ...

    def hold_for_run(self) -> None:
        """Refuses a second run where two would measure each other."""
        ...
