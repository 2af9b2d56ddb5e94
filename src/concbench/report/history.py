"""How each cell's median moved across the stored runs, run by run, with the
steps larger than the noise called, as airspeed velocity (asv) does for commits.

Why each run is tested against the previous one rather than the whole
sequence fitted: asv has one figure per commit, so it must learn the noise
from the scatter of many commits, fitting a piecewise-constant curve and
calling the steps of the fit. That needs tens of commits, and a concbench
database holds a handful of runs. But each run carries a sample of its own
(every timed run of every verified trial), so the noise of each step can be
measured directly, with `compare`'s test: a two-sided Mann-Whitney U at
p < 0.05 and the practical threshold. Two weaknesses of neighbour tests are
answered here: a creep of small steps, each under the threshold, is never
called, so the first and the last run are tested as well (the drift); and
the test sees only the noise within runs, not drift between them (docs/reading.md,
"Comparing two runs"), so a step between two runs of one clean commit is
marked as such: the code did not change, the machine did. The steps and
drifts of one `history` are one family of tests, as the cells of one
`compare` are: their p-values are adjusted together (Benjamini-Hochberg),
so that many cells over many runs of unchanged code call a step in at most
ALPHA of histories, not in ALPHA of the pairs tested.

Runs are taken in the order they were made (their ids), not in git's order."""

from dataclasses import dataclass, replace

from .. import environment
from ..errors import UserError
from ..records import RunInfo, TrialRecord
from ..results import CellResult
from ..selection import CellFilter
from ..stats import Summary, benjamini_hochberg
from ..workloads import Workload
from .aggregate import Table, tables
from .comparison import Change, Verdict

STEPS = (Verdict.SLOWER, Verdict.FASTER)


@dataclass(frozen=True)
class Point:
    """One cell in one run."""

    run: RunInfo
    table: Table
    cell: CellResult
    previous: "Point | None"  # the latest earlier run with a verified figure for this cell
    change: Change | None  # against previous; None when either has no figure

    @property
    def figure(self) -> Summary | None:
        return self.table.figure(self.cell)

    @property
    def commit(self) -> str | None:
        """concbench's commit the run was made with: a short hash, '-dirty' if edited."""
        return self.run.environment.get("concbench") or None

    @property
    def is_step(self) -> bool:
        return self.change is not None and self.change.verdict in STEPS

    @property
    def same_code(self) -> bool:
        """Made from the same clean commit as the previous run: a step here is the machine's."""
        return (
            self.previous is not None
            and bool(self.commit)
            and self.commit == self.previous.commit
            and not self.commit.endswith("-dirty")
        )


@dataclass(frozen=True)
class History:
    """One cell across the runs that have it, oldest first."""

    points: tuple[Point, ...]
    drift: Point | None  # the last run with a figure against the first (its previous), when runs lie between

    @property
    def latest(self) -> Point:
        return self.points[-1]

    @property
    def steps(self) -> list[Point]:
        return [p for p in self.points if p.is_step]

    @property
    def moved(self) -> bool:
        """A step was called, or a drift from the first run to the last."""
        return bool(self.steps) or (self.drift is not None and self.drift.is_step)


def histories(
    database: str,
    runs: list[tuple[RunInfo, list[TrialRecord]]],
    specs: dict[str, Workload],
    threshold: float,
    wanted: CellFilter = CellFilter(),
    last: int | None = None,
    machine: dict | None = None,
) -> list[History]:
    """Every wanted cell across its last `last` runs (all by default), from
    the database's runs and their trials, oldest first, in the order the cells
    first ran; with a machine (a run's fingerprint), only the runs of that
    machine. threshold: the smallest change worth calling, as a fraction."""
    if not runs:
        raise UserError(f"database {database}: no runs stored yet (concbench run)")
    appearances: dict[str, list[tuple[RunInfo, Table, CellResult]]] = {}
    for run, trials in runs:
        found = [t for t in trials if machine is None or _ran_on(t, run, machine)]
        for table in tables(found, [], specs):
            for cell in table.rows:
                appearances.setdefault(cell.key.id, []).append((run, table, cell))
    if not appearances:
        raise UserError(f"database {database}: no trials stored yet")
    wanted.check({seen[0][2].key for seen in appearances.values()})
    chosen = [seen[-last:] if last else seen for seen in appearances.values() if wanted(seen[0][2].key)]
    if not chosen:
        raise UserError("no stored cell matches the filters")
    return _adjusted([_history(seen, threshold) for seen in chosen])


def _ran_on(trial: TrialRecord, run: RunInfo, machine: dict) -> bool:
    """Whether the machine ran a trial: workers of several may have drained a
    run; a trial stored before trials had machines ran on its run's."""
    return environment.same_machine({"machine_id": trial.machine_id} if trial.machine_id else run.environment, machine)


def _adjusted(found: list[History]) -> list[History]:
    """The histories with the q-values of every step and drift they test."""
    tested = [p.change for h in found for p in (*h.points, h.drift) if p and p.change and p.change.p is not None]
    q = dict(zip(map(id, tested), benjamini_hochberg([c.p for c in tested])))

    def adjusted(point: Point | None) -> Point | None:
        if point is None or point.change is None or id(point.change) not in q:
            return point
        return replace(point, change=replace(point.change, q=q[id(point.change)]))

    return [History(tuple(map(adjusted, h.points)), adjusted(h.drift)) for h in found]


def _history(appearances: list[tuple[RunInfo, Table, CellResult]], threshold: float) -> History:
    points, previous = [], None
    for run, table, cell in appearances:
        measured = table.figure(cell) is not None
        change = Change(table, cell.key.row, previous.cell, cell, threshold) if previous and measured else None
        points.append(Point(run, table, cell, previous, change))
        if measured:  # a run whose trials all failed is skipped over, not compared with
            previous = points[-1]
    measured = [p for p in points if p.figure]
    if len(measured) < 3:
        return History(tuple(points), None)
    first, last = measured[0], measured[-1]
    drift = Change(last.table, last.cell.key.row, first.cell, last.cell, threshold)
    return History(tuple(points), Point(last.run, last.table, last.cell, first, drift))


def latest_machine(runs: list[RunInfo]) -> dict | None:
    """The fingerprint of the latest of the runs (oldest first), whose machine a history follows."""
    return runs[-1].environment if runs else None


def other_machine_runs(runs: list[RunInfo], machine: dict) -> int:
    """How many of the runs another machine than this one ran."""
    return sum(not environment.same_machine(run.environment, machine) for run in runs)
