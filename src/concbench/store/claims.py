"""A stored plan and its workers: the plan's trials wait in the planned
table, and each worker claims the next one nobody holds for a lease, which
lapses if the worker dies, so that another takes the trial."""

import json
from dataclasses import dataclass

from .retry import Retrying, reads
from .rows import json_object, now

# The database's clock in epoch seconds, in words both databases know: the
# leases of workers on many machines are all read by the one clock.
NOW = "CAST(extract(epoch FROM now()) AS BIGINT)"


@dataclass(frozen=True)
class Progress:
    """Where a stored plan's trials are: taken by workers, or waiting."""

    planned: int
    done: int
    waiting: int
    claimed: list[tuple[str, int, str]]  # (cell, trial, worker) of each trial a worker holds
    reclaimed: int  # trials claimed again after a worker's lease lapsed


class Claims(Retrying):
    """The worker-claim queue of a store's plans."""

    def add_plan(self, run_id: int, trials: list[tuple[str, int]]) -> None:
        self._write(
            lambda db: db.executemany(
                "INSERT INTO planned (run_id, seq, cell, trial, state) VALUES (?, ?, ?, ?, 'waiting') "
                "ON CONFLICT DO NOTHING",
                [(run_id, seq, cell, trial) for seq, (cell, trial) in enumerate(trials)],
            )
        )

    def add_worker(self, run_id: int, worker: str, environment: dict) -> None:
        self._write(
            lambda db: db.execute(
                "INSERT INTO workers (run_id, worker, machine, machine_id, environment, started) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (run_id, worker, environment["machine"], environment["machine_id"], json.dumps(environment), now()),
            )
        )

    def claim(self, run_id: int, worker: str, lease_s: int) -> tuple[str, int] | None:
        """The plan's next trial nobody holds, claimed for lease_s seconds;
        None when every trial is done or held. Rows another worker is
        claiming are skipped, not waited for."""
        rows = self._write(
            lambda db: db.execute(
                f"""UPDATE planned SET state = 'claimed', worker = ?, lease_until = {NOW} + ?, claims = claims + 1
                    WHERE run_id = ? AND (cell, trial) = (
                        SELECT cell, trial FROM planned
                        WHERE run_id = ? AND (state = 'waiting' OR (state = 'claimed' AND lease_until < {NOW}))
                        ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED)
                    RETURNING cell, trial""",
                (worker, lease_s, run_id, run_id),
            )
        )
        return (rows[0][0], rows[0][1]) if rows else None

    def extend(self, run_id: int, cell_id: str, trial: int, worker: str, lease_s: int) -> None:
        self._write(
            lambda db: db.execute(
                f"UPDATE planned SET lease_until = {NOW} + ? WHERE run_id = ? AND cell = ? AND trial = ? AND worker = ?",
                (lease_s, run_id, cell_id, trial, worker),
            )
        )

    def release(self, run_id: int, worker: str) -> None:
        """A stopped worker's claims, back to the plan at once."""
        self._write(
            lambda db: db.execute(
                "UPDATE planned SET state = 'waiting', lease_until = NULL "
                "WHERE run_id = ? AND worker = ? AND state = 'claimed'",
                (run_id, worker),
            )
        )

    @reads
    def planned_cells(self, run_id: int) -> set[str]:
        return {
            cell for (cell,) in self.database.fetch("SELECT DISTINCT cell FROM planned WHERE run_id = ?", (run_id,))
        }

    @reads
    def progress(self, run_id: int) -> Progress | None:
        """A stored plan's progress; None for a run that had no stored plan."""
        rows = self.database.fetch(
            "SELECT cell, trial, state, worker, claims FROM planned WHERE run_id = ? ORDER BY seq", (run_id,)
        )
        if not rows:
            return None
        states = [state for _, _, state, _, _ in rows]
        return Progress(
            planned=len(rows),
            done=states.count("done"),
            waiting=states.count("waiting"),
            claimed=[(cell, trial, worker) for cell, trial, state, worker, _ in rows if state == "claimed"],
            reclaimed=sum(claims > 1 for *_, claims in rows),
        )

    @reads
    def workers(self, run_id: int) -> dict[str, dict]:
        """Each worker of a stored plan: its fingerprint."""
        rows = self.database.fetch(
            "SELECT worker, environment FROM workers WHERE run_id = ? ORDER BY started", (run_id,)
        )
        return {worker: json_object(environment) for worker, environment in rows}
