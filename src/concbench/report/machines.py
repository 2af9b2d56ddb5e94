"""Machines side by side (`concbench report --machines`): per workload and
parameter set, each machine's ratios to its own baseline row. A faster
machine runs the baseline faster too, so a ratio carries from one machine to
another where an absolute time does not; a ratio is therefore never taken
across machines, and a cell a machine did not run stays empty there."""

import dataclasses
from dataclasses import dataclass

from .. import environment, paths
from ..errors import UserError
from ..records import MachineTrials, RunInfo
from ..results import CellResult
from ..selection import CellFilter
from . import aggregate
from .aggregate import Table
from .run_report import load_specs


@dataclass(frozen=True)
class MachineRun:
    """A machine and the run its figures come from."""

    name: str
    run: RunInfo
    environment: dict  # the machine's fingerprint: the run's, or its worker's ({} where none was stored)

    def summary(self) -> str:
        """'run 3 (2025-01-31): Intel Xeon ..., 8 cores'."""
        where = f"run {self.run.id} ({self.run.started[:10]})"
        return f"{where}: {dict(environment.describe(self.environment))['CPU']}" if self.environment else where


# How to read the ratios, in every format.
READING = (
    "Each cell: the median of a mechanism (column) on a machine (row) divided by that machine's own "
    "median of the row every machine is set against (x1.00: the workload's baseline where every "
    "machine ran it, else the first row they all ran), from the machine's trials in the run named for it. "
    "Ratios carry across machines, absolute times do not: a faster machine runs the baseline faster "
    "too, so set the machines' ratios side by side, never one machine's time against another's; no "
    "ratio is taken of another machine's baseline."
)


@dataclass(frozen=True)
class SideBySide:
    """One workload with one parameter set: each machine's own table of it."""

    tables: dict[str, Table]  # by machine name, in the report's order of machines

    @property
    def first(self) -> Table:
        return next(iter(self.tables.values()))

    @property
    def columns(self) -> list[str]:
        """The rows (mechanisms) of every machine's table, in the order they first appear."""
        return list(dict.fromkeys(cell.key.row for table in self.tables.values() for cell in table.rows))

    def baselines(self) -> str:
        """The row every machine's ratios are to (_one_baseline)."""
        found = next((table.baseline.key.row for table in self.tables.values() if table.baseline), None)
        if found is None:
            return "No ratios: no mechanism has verified figures on every machine"
        return f"Each machine's ratios are to its own {found}"

    def cell(self, machine: str, row: str) -> CellResult | None:
        """The machine's cell of a row; None where the machine did not run it."""
        table = self.tables.get(machine)
        return next((cell for cell in table.rows if cell.key.row == row), None) if table else None


@dataclass(frozen=True)
class MachinesReport:
    machines: tuple[MachineRun, ...]  # by name
    tables: tuple[SideBySide, ...]


def build(
    found: list[MachineTrials],
    run_ids: tuple[int, ...] = (),
    wanted: CellFilter = CellFilter(),
    suite: paths.Suite = paths.Suite(),
) -> MachinesReport:
    """The machines side by side: each machine's trials in its latest run
    (among run_ids, as the store found them), narrowed to the wanted cells,
    titles and baselines from the suite's specs."""
    trials = [t for machine in found for t in machine.trials]
    wanted.check({t.cell for t in trials})
    trials = [t for t in trials if wanted(t.cell)]
    names = sorted({t.machine for t in trials})
    if len(names) < 2:
        raise UserError(_one_machine(names, run_ids, narrowed=wanted != CellFilter()))
    side_by_side: dict[tuple[str, str], dict[str, Table]] = {}
    for table in aggregate.tables(trials, [], load_specs(suite), by_machine=True):
        side_by_side.setdefault((table.workload, table.params_text), {})[table.machine] = table
    machines = {machine.name: machine for machine in found}
    return MachinesReport(
        tuple(MachineRun(name, machines[name].run, machines[name].environment) for name in names),
        tuple(SideBySide(_one_baseline(dict(sorted(tables.items())))) for tables in side_by_side.values()),
    )


def _one_baseline(tables: dict[str, Table]) -> dict[str, Table]:
    """Every machine's table set against the same row, each machine's own
    figure of it: the workload's baseline where every machine has figures for
    it, else the first row they all have. Ratios to different rows would not
    carry from one machine to another; with no row in common there are none."""
    have = [{cell.key.row for cell in table.rows if table.figure(cell) is not None} for table in tables.values()]
    common = set.intersection(*have)
    first = next(iter(tables.values()))
    rows = [first.spec.baseline] if first.spec else []
    rows += [cell.key.row for table in tables.values() for cell in table.rows]
    chosen = next((row for row in rows if row in common), None)
    return {
        name: dataclasses.replace(table, baseline=next((c for c in table.rows if c.key.row == chosen), None))
        for name, table in tables.items()
    }


def _one_machine(names: list[str], run_ids: tuple[int, ...], narrowed: bool) -> str:
    if not run_ids:
        where = "the database has"
    else:
        where = f"run {run_ids[0]} has" if len(run_ids) == 1 else f"runs {', '.join(map(str, sorted(run_ids)))} have"
    what = "trials of the cells asked for" if narrowed else "trials" if run_ids else "runs"
    found = f"{what} of one machine, {names[0]}" if names else f"no {what} of a named machine"
    return f"report --machines sets machines side by side: {where} {found}"
