"""How each row scales with CPUs (issue 49): for a workload's parameter set
that ran confined to 1 CPU and to some k > 1, each row's speed-up at k
against its own cpus=1 cell (time at 1 / time at k for fixed work; rate at
k / rate at 1 for a rate workload) and its parallel efficiency (speed-up /
k). Each is the median of paired trials, each trial at k set against the
row's cpus=1 trial that ran nearest to it, with the 95% interval of that
median (pairs.py, stats.summarize), as a table's ratios are. A row without a
cpus=1 cell, an unconfined one (cpus=0) and a served workload (whose time is
its load's length) have none."""

from dataclasses import dataclass

from .. import pairs
from ..results import CellResult
from ..stats import Summary, summarize
from .aggregate import Table


@dataclass(frozen=True)
class Speedup:
    """A row at k CPUs against itself at 1."""

    cell: CellResult  # the row's cell at k
    factor: Summary  # the speed-up of each pair of trials: their median and its interval
    efficiency: Summary  # factor / k, pair by pair

    @property
    def cpus(self) -> int:
        return self.cell.key.cpus


@dataclass(frozen=True)
class Row:
    row: str
    one: CellResult  # its cell at 1 CPU
    speedups: tuple[Speedup | None, ...]  # at each of its Scaling's counts; None: no verified pair there


@dataclass(frozen=True)
class Scaling:
    """A workload's parameter set on one machine at 1 CPU and more."""

    tables: tuple[Table, ...]  # the cpus=1 table, then one per count above 1, ascending
    rows: tuple[Row, ...]  # in the cpus=1 table's order

    @property
    def first(self) -> Table:
        return self.tables[0]

    @property
    def counts(self) -> tuple[int, ...]:
        """The CPU counts above 1, ascending."""
        return tuple(t.cpus for t in self.tables[1:])

    @property
    def params_text(self) -> str:
        """The work's parameters as titles print them, its CPUs left out."""
        return " ".join(f"{k}={v}" for k, v in self.first.params.items())


def speedups(at_k: CellResult, at_one: CellResult, rate: bool) -> list[float]:
    """The speed-up of each verified trial at k over its nearest at 1 (pairs.ratios):
    k's figure over 1's for a rate, 1's over k's for a time."""
    ratios = pairs.ratios(at_k.trials, at_one.trials, rate)
    return ratios if rate else [1 / r for r in ratios]


def speedup(at_k: CellResult, at_one: CellResult, rate: bool) -> Speedup | None:
    """The row at k against itself at 1; None without a verified pair."""
    found = speedups(at_k, at_one, rate)
    if not found:
        return None
    cpus = at_k.key.cpus
    return Speedup(at_k, summarize(found), summarize(f / cpus for f in found))


def scalings(tables: list[Table]) -> list[Scaling]:
    """Every parameter set of a workload and machine with a cpus=1 table and a
    confined one above 1, in the order of their cpus=1 tables; rows with a
    cell at 1 CPU and at some k above."""
    groups: dict[tuple, dict[int, Table]] = {}
    for t in tables:
        if t.cpus and t.rows and not t.served:
            groups.setdefault((t.workload, tuple(t.params.items()), t.machine), {})[t.cpus] = t
    found = []
    for by_cpus in groups.values():
        if 1 not in by_cpus or len(by_cpus) < 2:
            continue
        ordered = tuple(by_cpus[k] for k in sorted(by_cpus))
        rows = tuple(row for cell in ordered[0].rows if (row := _row(cell, ordered[1:])))
        if rows:
            found.append(Scaling(ordered, rows))
    return found


def _row(one: CellResult, above: tuple[Table, ...]) -> Row | None:
    """A cpus=1 cell's row at each count above; None where no count has its row."""
    cells = [next((c for c in t.rows if c.key.row == one.key.row), None) for t in above]
    if not any(cells):
        return None
    rate = bool(above[0].rate_format)
    return Row(one.key.row, one, tuple(speedup(c, one, rate) if c else None for c in cells))


def placed(found: list[Scaling], tables: list[Table]) -> dict[str, Scaling]:
    """Each scaling by the label of the table it follows: the last of its own among the tables shown."""
    order = {t.label: i for i, t in enumerate(tables)}
    return {max((t.label for t in s.tables), key=order.__getitem__): s for s in found}


def by_cell(found: list[Scaling]) -> dict[tuple[str, str], Speedup]:
    """Each speed-up by its cell's table label and row."""
    return {
        (s.tables[i + 1].label, row.row): speedup
        for s in found
        for row in s.rows
        for i, speedup in enumerate(row.speedups)
        if speedup
    }
