"""A store's writes and reads, tried again while its server is out of reach:
a write waits with backoff, for PATIENCE at most, and a finished trial waits
in the local journal instead, to be sent once the server is back."""

import functools
import time
from collections.abc import Callable

from .. import paths
from ..errors import UserError
from ..records import TrialRecord
from .database import Database
from .journal import Entry, Journal
from .rows import insert_trial

# How long a write waits for a server that went away before giving up, and
# the waits between its attempts.
PATIENCE = 600
BACKOFF = (1, 2, 4, 8, 15, 30)

# What reading a damaged or foreign database raises, besides the database's
# own errors: stored JSON or a status that does not decode, decodes to the
# wrong shape, or nests deeper than json can recurse.
UNREADABLE = (ValueError, TypeError, AttributeError, RecursionError)


def reads(method):
    """A read of a damaged or foreign database fails in one line naming it; one
    of a server that went out of reach is tried again, as a write is."""

    @functools.wraps(method)
    def read(self, *args):
        try:
            return self._retrying(lambda: method(self, *args))
        except UNREADABLE as e:
            raise self.database.damaged(e) from None

    return read


class Retrying:
    """A store's link to its database, patient with a server that goes away:
    the base of Store, whose queries go through _write and @reads."""

    def __init__(self, database: Database):
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

    def _away(self) -> bool:
        """Whether the server was found out of reach and is not to be tried yet."""
        return bool(self.journal.pending()) or time.monotonic() < self._next_attempt

    def add_trial(self, run_id: int, t: TrialRecord, claim: str | None = None) -> bool:
        """Stores a finished trial, or keeps it in the journal while the server
        is out of reach. A worker's trial is stored only while its claim is the
        worker's own (False: another worker took it after the lease lapsed)."""
        entry = Entry(run_id, t, claim)
        if self._away():
            self.journal.append(entry)
            self.send_journal(wait=False)
            return True
        try:
            with self.database.transaction():
                return insert_trial(self.database, entry)
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
                        refused = [entry for entry in entries if not insert_trial(self.database, entry)]
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


def _sent(database: str, sent: int, refused: int) -> str:
    line = f"database {database}: sent the {sent} trials that waited in the journal"
    return line + (f"; {refused} not stored: their claims lapsed and other workers took them" if refused else "")
