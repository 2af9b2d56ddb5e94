"""Storage: every finished trial is committed at once, so an interrupted run
loses nothing and can be resumed. One set of queries over two databases
(database.py): a SQLite file (the default, one machine's) or a PostgreSQL
server (many machines'). Its rooms: retry.py tries a server that went out of
reach again and keeps finished trials in the journal meanwhile; claims.py
holds the workers' queue of a stored plan; rows.py maps records to rows by
column name; the queries of runs and their trials are here."""

import json
import uuid
from pathlib import Path

from .. import paths
from ..errors import UserError
from ..records import Calibration, MachineTrials, Note, Probe, RunInfo, Skipped, StoredRun, TrialRecord
from . import postgresql
from .claims import Claims
from .database import Database
from .retry import reads
from .rows import json_object, now, read_trials
from .schema import SCHEMA_VERSION
from .sqlite import SqliteDatabase

__all__ = ["SCHEMA_VERSION", "Store", "open_store", "open_source"]


def open_store(location: str | Path, create: bool = True) -> "Store":
    """The store at a path or a postgresql:// URL (whose reports and journal
    go to the project's results folder)."""
    if isinstance(location, str) and postgresql.is_url(location):
        return Store(postgresql.PostgresDatabase(location, paths.RESULTS, create))
    return Store(SqliteDatabase(Path(location), create))


def open_source(location: str) -> Database:
    """The database at a path or URL to copy runs from, as it is: never made,
    migrated or written, so it must be of this concbench's schema. The bare
    database, not a Store, which would send its journal into it."""
    if postgresql.is_url(location):
        return postgresql.PostgresDatabase(location, paths.RESULTS, create=False, read_only=True)
    return SqliteDatabase(Path(location), create=False, read_only=True)


class Store(Claims):
    """A database's runs, trials and what was stored with them; its writes
    and reads are patient with a server that goes away (Retrying)."""

    def hold_for_run(self) -> None:
        self.database.hold_for_run()

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
                (identity, now(), state, json.dumps(request), json.dumps(environment)),
            )
            return db.fetch("SELECT id FROM runs WHERE uuid = ?", (identity,))[0][0]

        return self._write(write)

    def set_state(self, run_id: int, state: str) -> None:
        self._write(
            lambda db: db.execute(
                "UPDATE runs SET state = ?, finished = ? WHERE id = ?",
                (state, now() if state == "complete" else None, run_id),
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
        if self._away():
            return
        try:
            self.database.execute(
                "INSERT INTO probes (run_id, at, work_ns) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (run_id, probe.at_ns, probe.work_ns),
            )
        except self.database.errors as e:
            if not self.database.lost(e):
                raise self.database.failure(e) from None

    @reads
    def notes(self, run_id: int) -> list[Note]:
        rows = self.database.fetch("SELECT workload, row, text FROM notes WHERE run_id = ?", (run_id,))
        return [Note(*row) for row in rows]

    @reads
    def floors(self, run_id: int) -> dict[str, int | None]:
        """Each runtime's memory floor in this run (kB), None where it could not be measured."""
        return dict(self.database.fetch("SELECT runtime, maxrss_kb FROM floors WHERE run_id = ?", (run_id,)))

    @reads
    def probes(self, run_id: int) -> list[Probe]:
        """The run's probes of the machine's speed, in the order they were taken."""
        rows = self.database.fetch("SELECT at, work_ns FROM probes WHERE run_id = ? ORDER BY at", (run_id,))
        return [Probe(*row) for row in rows]

    @reads
    def calibrations(self, run_id: int) -> dict[str, Calibration]:
        """Each calibrated cell's repetitions in this run, by CellKey.id."""
        rows = self.database.fetch(
            "SELECT cell, repeat, run_ns, trial_ns, detail FROM calibrations WHERE run_id = ?", (run_id,)
        )
        return {cell: Calibration(*rest) for cell, *rest in rows}

    @reads
    def earlier_calibrations(self, run_id: int) -> dict[str, Calibration]:
        """Each cell's latest measured calibration in the runs before this one,
        its detail the run it was measured in ('run 3')."""
        rows = self.database.fetch(
            """SELECT cell, repeat, run_ns, trial_ns, 'run ' || run_id FROM calibrations
               WHERE run_id < ? AND run_ns IS NOT NULL AND detail = '' ORDER BY run_id""",
            (run_id,),
        )
        return {cell: Calibration(*rest) for cell, *rest in rows}  # a later run's replaces an earlier's

    @reads
    def earlier_trial_lengths(self, run_id: int) -> dict[str, int]:
        """Each cell's mean trial length (ns) in the latest run before this one that has it."""
        rows = self.database.fetch(
            """SELECT cell, run_id, avg(wall_ns) FROM trials WHERE run_id < ? AND wall_ns IS NOT NULL
               GROUP BY cell, run_id ORDER BY run_id""",
            (run_id,),
        )
        return {cell: round(mean) for cell, _, mean in rows}

    @reads
    def runs(self) -> list[RunInfo]:
        rows = self.database.fetch(
            "SELECT id, started, finished, state, request, environment, uuid FROM runs ORDER BY id"
        )
        return [RunInfo(r[0], r[1], r[2], r[3], json_object(r[4]), json_object(r[5]), r[6]) for r in rows]

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

    @reads
    def trials(self, run_id: int) -> list[TrialRecord]:
        """A run's trials in the order they were stored, each with its samples."""
        return read_trials(self.database, run_id)

    @reads
    def machines(self) -> dict[int, list[str]]:
        """The names of the machines that ran each run's trials, by run id
        (several where workers on several machines drained the run)."""
        found: dict[int, list[str]] = {}
        for run_id, machine in self.database.fetch(
            "SELECT DISTINCT run_id, machine FROM trials ORDER BY run_id, machine"
        ):
            found.setdefault(run_id, []).append(machine)
        return found

    @reads
    def skipped(self, run_id: int) -> list[Skipped]:
        rows = self.database.fetch(
            "SELECT workload, row, kind, reason, params FROM skipped WHERE run_id = ?", (run_id,)
        )
        return [Skipped(*row) for row in rows]

    @reads
    def finished_trials(self, run_id: int) -> set[tuple[str, int]]:
        return set(self.database.fetch("SELECT cell, trial FROM trials WHERE run_id = ?", (run_id,)))

    # What a report reads, loaded whole for it

    def stored_run(self, run_id: int | None = None) -> StoredRun:
        """A run (the latest if run_id is None) with all that was stored with it."""
        run = self.run(run_id)
        repeated = self.trials(run.repeats) if run.repeats else None
        return StoredRun(
            run,
            self.trials(run.id),
            self.skipped(run.id),
            self.notes(run.id),
            self.floors(run.id),
            self.probes(run.id),
            repeated,
        )

    def runs_with_trials(self) -> list[tuple[RunInfo, list[TrialRecord]]]:
        """Every run with its trials, oldest first."""
        return [(run, self.trials(run.id)) for run in self.runs()]

    def latest_of_each_machine(self, run_ids: tuple[int, ...] = ()) -> list[MachineTrials]:
        """Each named machine's trials in its latest run among run_ids (every
        stored run by default): a run drained by several machines' workers
        counts for each of them. Each run is read once."""
        runs = sorted((self.run(run_id) for run_id in run_ids), key=lambda run: run.id) if run_ids else self.runs()
        names = self.machines()
        latest = {
            name: run for run in runs for name in names.get(run.id, ()) if name
        }  # unnamed: stored before machines were
        by_run = {run.id: self.trials(run.id) for run in latest.values()}
        return [
            MachineTrials(name, run, self._fingerprint(run, name), [t for t in by_run[run.id] if t.machine == name])
            for name, run in latest.items()
        ]

    def _fingerprint(self, run: RunInfo, name: str) -> dict:
        """A machine's fingerprint: the run's own where it made the run, else its worker's."""
        if run.environment.get("machine") == name:
            return run.environment
        return next((found for found in self.workers(run.id).values() if found.get("machine") == name), {})
