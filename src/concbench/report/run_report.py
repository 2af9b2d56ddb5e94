"""Everything a report of one stored run shows, gathered once for every
format: the tables, the diagnosis, the environment and the trials."""

from dataclasses import dataclass
from functools import cached_property

from .. import environment, noise, paths, workloads
from ..errors import UserError
from ..records import CellKey, RunInfo, StoredRun, TrialRecord, row_parts
from ..selection import CellFilter, Selection
from ..status import Status
from . import aggregate, diagnosis, stability
from .figures import megabytes_text
from .scaling import Scaling, scalings


@dataclass(frozen=True)
class RunReport:
    run: RunInfo
    tables: list[aggregate.Table]
    diagnosis: diagnosis.Diagnosis | None  # None if no rate table judges
    environment: list[tuple[str, str]]
    trials: list[TrialRecord]
    repeat_check: stability.Stability | None = None  # where the run repeats another (--repeat-check)
    speed: noise.Speed | None = None  # how the machine's speed varied; None for a run without probes

    @cached_property
    def scaling(self) -> list[Scaling]:
        """How the rows of each parameter set that ran at 1 CPU and more scale with CPUs."""
        return scalings(self.tables)

    @property
    def failed(self) -> list[TrialRecord]:
        """Every trial that failed or did not verify (INVALID, TIMEOUT, CRASH, ...)."""
        return [t for t in self.trials if t.status != Status.OK]


def load_specs(suite: paths.Suite = paths.Suite()) -> dict[str, workloads.Workload]:
    """The workload specs, if they can be read: stored figures stand on their
    own, titles and baselines are extras."""
    try:
        return workloads.load_all(suite.workload_dirs())
    except UserError:
        return {}


def build(stored: StoredRun, wanted: CellFilter = CellFilter(), suite: paths.Suite = paths.Suite()) -> RunReport:
    """The report of a stored run, of the wanted cells only, its titles and
    baselines from the suite's specs."""
    run = stored.run
    wanted.check({t.cell for t in stored.trials} | {_skipped_key(s) for s in stored.skipped})
    trials = [t for t in stored.trials if wanted(t.cell)]
    skipped = [s for s in stored.skipped if wanted.keeps_row(s.workload, *row_parts(s.row))]
    notes = [n for n in stored.notes if wanted.keeps_row(n.workload, *row_parts(n.row))]
    floors = stored.floors
    if wanted != CellFilter():  # the floors of the rows shown
        shown = {t.cell.runtime_label for t in trials}
        floors = {row: kb for row, kb in floors.items() if row in shown}
    specs = load_specs(suite)
    tables = aggregate.tables(trials, skipped, specs, notes, floors, _target(run), by_machine=True)
    described = environment.describe(run.environment, [t.runtime_info for t in trials])
    if machines := _machines(trials):
        described.append(("machines", f"{machines} ran the trials, each table one machine's"))
    if floors:
        described.append(("memory floor", f"{_floors(floors)} (each kit doing nothing, carried by all its rows)"))
    checked = None
    if stored.repeated is not None:
        earlier = [t for t in stored.repeated if wanted(t.cell)]
        checked = stability.check(run.repeats, run.id, earlier, trials, specs)
    speed = noise.speed(stored.probes)
    return RunReport(run, tables, diagnosis.diagnose(tables), described, trials, checked, speed)


def _machines(trials: list[TrialRecord]) -> str:
    """The machines that ran a run's trials, named, where there were several; '' for one."""
    names = sorted({t.machine for t in trials})
    return ", ".join(map(aggregate.machine_name, names)) if len(names) > 1 else ""


def _skipped_key(skipped) -> CellKey:
    """A cell that did not run, as a key to check the names a user asks for against."""
    return CellKey(skipped.workload, *row_parts(skipped.row), ())


def _target(run: RunInfo) -> float | None:
    """The spread an adaptive run gave its cells trials to narrow, if it was one."""
    try:
        return Selection.from_json(run.request).settings.target
    except UserError:
        return None


def _floors(floors: dict[str, int | None]) -> str:
    return ", ".join(
        f"{runtime} {megabytes_text(kb)}" if kb else f"{runtime} not measured" for runtime, kb in floors.items()
    )
