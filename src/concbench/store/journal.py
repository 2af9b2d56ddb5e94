"""Finished trials waiting for a database server that went out of reach: one
file of JSON lines per process in the user's state folder, flushed to disk
with each trial, sent when the server is back, by this process or by the
next command that opens the database once this one is gone."""

import contextlib
import dataclasses
import fcntl
import hashlib
import json
import os
from pathlib import Path

from .. import paths
from ..errors import UserError
from ..records import CellKey, Sample, TrialRecord
from ..status import Status


@dataclasses.dataclass(frozen=True)
class Entry:
    run_id: int
    record: TrialRecord
    claim: str | None  # the worker whose claimed trial it is; None in a run


class Journal:
    def __init__(self, folder: Path, database: str):
        """This process's journal of one database (named by a hash of its URL)."""
        self.folder = folder / "journal"
        self.prefix = hashlib.sha256(database.encode()).hexdigest()[:16]
        self.path = self.folder / f"{self.prefix}.{os.getpid()}.jsonl"
        self._held = None
        self._read: list[Path] = []

    def append(self, entry: Entry) -> None:
        """Kept on disk before the run goes on: a full disk here is the run's end."""
        try:
            if self._held is None:
                self._held = self._open_private()
                fcntl.flock(self._held, fcntl.LOCK_EX)  # another command sends it only once this one is gone
            self._held.write(json.dumps(_encoded(entry)) + "\n")
            self._held.flush()
            os.fsync(self._held.fileno())
        except OSError as e:
            raise UserError(f"cannot keep a finished trial in the journal {self.path}: {e.strerror or e}") from None

    def _open_private(self):
        """Trial records hold the kits' stderr: this user's alone, like their folders."""
        for folder in (self.folder.parent, self.folder):
            paths.make_private(folder)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        return os.fdopen(os.open(self.path, flags, 0o600), "a")

    def pending(self) -> int:
        return len(self.entries())

    def entries(self) -> list[Entry]:
        """This process's entries, then those of processes that are gone."""
        found = []
        self._read = self._files()
        for path in self._read:
            in_file = _decoded_lines(path)
            if not in_file and path != self.path:  # cut short before its first whole line: nothing to send
                path.unlink(missing_ok=True)
            found += in_file
        return found

    def forget(self) -> None:
        """Every entry read was sent."""
        for path in self._read:
            path.unlink(missing_ok=True)
        if self._held is not None:
            self._held.close()
            self._held = None

    def _files(self) -> list[Path]:
        if not self.folder.is_dir():
            return []
        mine = [self.path] if self.path.exists() else []
        return mine + [p for p in sorted(self.folder.glob(f"{self.prefix}.*.jsonl")) if p != self.path and _orphan(p)]


def _decoded_lines(path: Path) -> list[Entry]:
    found = []
    for line in path.read_text(errors="replace").splitlines():
        with contextlib.suppress(ValueError, KeyError, TypeError, RecursionError):  # cut short as its writer died
            found.append(_decoded(json.loads(line)))
    return found


def _orphan(path: Path) -> bool:
    """A journal no living process holds."""
    with open(path) as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        with contextlib.suppress(OSError):
            fcntl.flock(f, fcntl.LOCK_UN)
    return True


def _encoded(entry: Entry) -> dict:
    return {"run_id": entry.run_id, "claim": entry.claim, "record": dataclasses.asdict(entry.record)}


def _decoded(data: dict) -> Entry:
    record = dict(data["record"])
    cell = record.pop("cell")
    cell = CellKey(
        cell["workload"],
        cell["runtime"],
        cell["mechanism"],
        tuple((name, value) for name, value in cell["params"]),
        tuple(cell["options"]),
        cell.get("cpus", 0),  # an entry written before cells had CPUs
    )
    samples = tuple(Sample(**sample) for sample in record.pop("samples"))
    status = Status(record.pop("status"))
    return Entry(data["run_id"], TrialRecord(cell, status=status, samples=samples, **record), data["claim"])
