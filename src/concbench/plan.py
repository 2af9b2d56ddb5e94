"""From what a command asks for to the cells to run, the cells that cannot
run (each with its reason) and the settings of their trials (schedule.py
orders them)."""

from dataclasses import dataclass, field, replace

from . import limits
from .errors import UserError
from .records import CellKey, Note, Skipped
from .runtimes import Runtime
from .selection import Selection, Settings, check_names, wanted_mechanism
from .workloads import Params, Workload


@dataclass(frozen=True)
class Cell:
    workload: Workload
    runtime: Runtime
    mechanism: str
    params: Params
    options: tuple[str, ...]
    cpus: int = 0  # the CPUs its trials are confined to; 0: unconfined

    @property
    def key(self) -> CellKey:
        params = tuple(self.params.items())
        return CellKey(self.workload.id, self.runtime.name, self.mechanism, params, self.options, self.cpus)


@dataclass(frozen=True)
class Plan:
    cells: list[Cell]
    skipped: list[Skipped]
    settings: Settings
    caps: limits.Limits
    notes: list[Note] = field(default_factory=list)
    # Each cell's reference, by cell id: the cell its ratio is to, whose trials
    # its own run beside (schedule.py, pairs.py). A reference has none.
    references: dict[str, str] = field(default_factory=dict)

    def settings_for(self, cell: Cell) -> Settings:
        """The plan's settings, but one timed run and no warm-up for a workload
        whose peak memory must be one run's own, and the warm-ups its runtime
        states where the plan leaves them to the runtime (no --warmup given)."""
        if cell.workload.one_run_per_process:
            return replace(self.settings, warmup=0, runs=1)
        if self.settings.warmup is None:
            return replace(self.settings, warmup=cell.runtime.warmup(cell.mechanism))
        return self.settings


# The cells a selection may ask for at each CPU count, n/a ones included:
# each is at least a trial to run, store and report. The catalogue's full
# profile asks for three quarters of it (docs/usage.md, "Profiles"), at each
# of the log2(CPUs) + 1 counts it sweeps.
MAX_CELLS = 5000


@dataclass(frozen=True)
class Choice:
    """A selection checked against the suite: every name known, every parameter value valid."""

    selection: Selection
    workloads: list[tuple[Workload, list[Params]]]  # each with its parameter sets
    runtimes: list[Runtime]


def choose(selection: Selection, workloads: dict[str, Workload], runtimes: dict[str, Runtime]) -> Choice:
    """The workloads and runtimes a selection names; a one-line error for bad
    input, found before anything is built."""
    chosen_workloads = _choose("workload", selection.workloads, workloads)
    chosen_runtimes = _choose("runtime", selection.runtimes, runtimes)
    _check_mechanisms(selection.mechanisms, chosen_runtimes)
    check_names("parameter", selection.params, {p for w in chosen_workloads for p in w.params})
    check_names("option", selection.options, {o for r in chosen_runtimes for o in r.manifest.options})
    param_sets = [(w, w.param_sets(selection.profile, selection.params)) for w in chosen_workloads]
    _check_cells(param_sets, chosen_runtimes, selection.mechanisms, selection.cpus)
    return Choice(selection, param_sets, _reached(selection.mechanisms, chosen_runtimes))


def _reached(wanted: tuple[str, ...], runtimes: list[Runtime]) -> list[Runtime]:
    """The runtimes with a wanted mechanism: -m c/pthread builds, detects and
    fingerprints the C runtime alone, not every runtime of the suite."""
    return [r for r in runtimes if any(wanted_mechanism(wanted, r.name, m) for m in r.manifest.mechanisms)]


def _check_cells(
    param_sets: list[tuple[Workload, list[Params]]],
    runtimes: list[Runtime],
    wanted: tuple[str, ...],
    cpu_counts: tuple[int, ...],
) -> None:
    """A one-line error for a selection of more than MAX_CELLS cells, counted before they are made."""
    mechanisms = sum(wanted_mechanism(wanted, r.name, m) for r in runtimes for m in r.manifest.mechanisms)
    cells = mechanisms * sum(len(sets) for _, sets in param_sets)
    if cells > MAX_CELLS:
        each = " at each CPU count" if len(cpu_counts) > 1 else ""
        raise UserError(
            f"the selection makes {cells:,} cells{each} (n/a ones included), at most {MAX_CELLS:,}: "
            "select fewer workloads, runtimes, mechanisms or parameter values"
        )


def make_plan(choice: Choice) -> Plan:
    """The cells of a choice whose runtimes are built, and the cells that cannot run."""
    selection = choice.selection
    cells, skipped = [], {}
    for workload, param_sets in choice.workloads:
        for params in param_sets:
            for runtime in choice.runtimes:
                options = tuple(o for o in selection.options if o in runtime.manifest.options)
                for mechanism, cpus in ((m, k) for m in runtime.manifest.mechanisms for k in selection.cpus or (0,)):
                    if not wanted_mechanism(selection.mechanisms, runtime.name, mechanism):
                        continue
                    # A row's counts side by side: its trials at k run beside
                    # its trials at 1, which its speed-up pairs them with.
                    cell = Cell(workload, runtime, mechanism, params, options, cpus)
                    reason = _why_not(cell)
                    if reason:
                        skipped.setdefault(
                            (workload.id, cell.key.row, cell.key.params_text),
                            Skipped(workload.id, cell.key.row, *reason, cell.key.params_text),
                        )
                    else:
                        cells.append(cell)
    return Plan(
        cells,
        list(skipped.values()),
        selection.settings,
        selection.caps,
        _notes(cells),
        references=table_references(cells),
    )


def table_references(cells: list[Cell]) -> dict[str, str]:
    """Each cell's table baseline, as the reports choose it: the workload's
    baseline row where the plan has it, else the table's first cell."""
    tables: dict[tuple, list[Cell]] = {}
    for cell in cells:
        tables.setdefault((cell.workload.id, cell.key.params_text), []).append(cell)
    references = {}
    for members in tables.values():
        baseline = next((c for c in members if c.key.row == c.workload.baseline), members[0])
        references |= {c.key.id: baseline.key.id for c in members if c is not baseline}
    return references


def _notes(cells: list[Cell]) -> list[Note]:
    notes = {}
    for cell in cells:
        text = cell.runtime.manifest.mechanisms[cell.mechanism].notes.get(cell.workload.id)
        if text:
            notes.setdefault((cell.workload.id, cell.key.row), Note(cell.workload.id, cell.key.row, text))
    return list(notes.values())


def _why_not(cell: Cell) -> tuple[str, str] | None:
    na = cell.runtime.na_reason(cell.workload.id, cell.mechanism, cell.params)
    if na:
        return "n/a", na
    missing = cell.runtime.unavailable(cell.mechanism)
    return ("unavailable", missing) if missing else None


def _choose(kind: str, names: tuple[str, ...], known: dict) -> list:
    check_names(kind, names, set(known))
    return [item for name, item in known.items() if not names or name in names]


def _check_mechanisms(wanted: tuple[str, ...], runtimes: list[Runtime]) -> None:
    known = {name for r in runtimes for m in r.manifest.mechanisms for name in (f"{r.name}/{m}", m)}
    check_names("mechanism", wanted, known)


def paired_plan(a: Plan, b: Plan) -> Plan:
    """An A/B run's plan: each cell both versions can run, A's then B's, B's
    ratio to A's, with A's settings; the cells only one side can run are
    skipped with the reason."""
    b_cells = {_same_work(c): c for c in b.cells}
    cells, references = [], {}
    for cell in a.cells:
        twin = b_cells.get(_same_work(cell))
        if twin is not None:
            cells += [cell, twin]
            references[twin.key.id] = cell.key.id
    paired = {id(c) for c in cells}
    lonely = [c for c in a.cells + b.cells if id(c) not in paired]
    skipped = [*a.skipped, *b.skipped] + [
        Skipped(c.workload.id, c.key.row, "n/a", "the other version cannot run it", c.key.params_text) for c in lonely
    ]
    return replace(a, cells=cells, skipped=skipped, notes=[*a.notes, *b.notes], references=references)


def _same_work(cell: Cell) -> tuple:
    return cell.workload.id, cell.key.params_text, cell.runtime.manifest.name, cell.mechanism
