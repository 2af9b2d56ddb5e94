"""From what a command asks for to the cells to run, the cells that cannot
run (each with its reason) and the settings of their trials (schedule.py
orders them)."""

from dataclasses import dataclass, field, replace
from typing import Annotated, Literal

import pydantic

from . import limits
from .errors import UserError
from .records import CellKey, Note, Skipped
from .runtimes import Runtime
from .selection import check_names, wanted_mechanism
from .spec import first_error
from .workloads import Params, Workload


@dataclass(frozen=True)
class Settings:
    trials: int  # fresh processes per cell; the least of an adaptive plan
    # Warm-ups per process before the timed runs, each as long as a timed run;
    # None: as many as each runtime needs, measured and stated in its manifest
    # (Plan.settings_for), or "steady": until its runs are (warmup.py).
    warmup: int | Literal["steady"] | None
    runs: int  # timed runs per process
    timeout: float  # seconds per trial
    min_run: float = 0.0  # seconds a timed run of fixed work lasts at least (calibration.py); 0: as it is
    # Adaptive plans (schedule.py) take trials until the median's 95% interval
    # lies within +-target of it (a fraction), up to max_trials; None: fixed.
    target: float | None = None
    max_trials: int = 0
    budget: float | None = None  # seconds the trials may take; None: no limit

    @property
    def min_run_ns(self) -> int:
        return round(self.min_run * 1e9)


# Long enough for a timer tick or a collection to average out, short enough
# for every cell of standard and full (docs/usage.md, "Profiles", counts them).
MIN_RUN = 0.05
# The quick profile's trials are cheap and many: here runs inside one trial
# differ by a cv of 2%, trials by 18-21%, so a second run or a longer one buys
# almost nothing, another trial (another process) a lot. Two runs of 37 cells
# in 3 minutes each: 2 runs of 50 ms, 10 trials a cell at most, moved the rows'
# ratios by 26.4% at p90; 1 run of 10 ms, up to 100 trials, by 10.5%
# (docs/findings.md, "Measured: two runs of one commit, before and after").
QUICK_MIN_RUN = 0.01
TARGET = 0.03
PROFILE_SETTINGS = {
    "smoke": Settings(trials=1, warmup=0, runs=1, timeout=60),  # proves every cell: one run each, as it is
    "quick": Settings(trials=3, warmup=None, runs=1, timeout=120, min_run=QUICK_MIN_RUN, target=TARGET, max_trials=100),
    # 3 trials of 2 runs: enough for a 95% CI
    "standard": Settings(trials=3, warmup=None, runs=2, timeout=900, min_run=MIN_RUN, target=TARGET, max_trials=20),
    "full": Settings(trials=3, warmup=None, runs=1, timeout=1800, min_run=MIN_RUN, target=TARGET, max_trials=10),
}

# The least and most of each setting a run may ask for. A kit answers with every
# run of a trial on its stdout, which is capped at 1 MiB, at 150-250 bytes a run:
# 1000 warm-up and 1000 timed runs fit. 1000 trials a cell keep a run finite, and
# a timeout from 10 ms to a day a sane one. A cap on a trial's memory or
# processes is 0 (none) or at least what the smallest runtime starts with.
BOUNDS = {
    "trials": (1, 1000),
    "warmup": (0, 1000),
    "runs": (1, 1000),
    "timeout": (0.01, 86400.0),
    "max_trials": (1, 1000),
    "min_run": (0.0, 60.0),  # seconds
    "target": (0.1, 100.0),  # percent
    "budget": (1.0, 7 * 86400.0),  # seconds
    "memory_limit": (16 * limits.MiB, 1 << 50),
    "process_limit": (8, 1 << 22),
}


def _bounded(setting: str):
    least, most = BOUNDS[setting]
    return pydantic.Field(default=None, ge=least, le=most)


def _cap(setting: str):
    least, most = BOUNDS[setting]

    def check(value: int) -> int:
        if value and not least <= value <= most:
            raise ValueError(f"{setting} must be 0 (no cap) or from {least} to {most}")
        return value

    return pydantic.AfterValidator(check)


class Selection(pydantic.BaseModel):
    """What a `run` asks for; stored with the run so that it can be resumed."""

    model_config = pydantic.ConfigDict(extra="forbid", frozen=True)

    profile: Literal[tuple(PROFILE_SETTINGS)] = "quick"
    workloads: tuple[str, ...] = ()  # empty: all
    runtimes: tuple[str, ...] = ()
    mechanisms: tuple[str, ...] = ()  # 'thread' or 'ruby/thread'
    params: dict[str, tuple[str, ...]] = {}  # values as given; each workload converts them
    options: tuple[str, ...] = ()
    trials: int | None = _bounded("trials")  # None: the profile's; given: a fixed plan
    warmup: int | None = _bounded("warmup")
    runs: int | None = _bounded("runs")
    timeout: float | None = _bounded("timeout")
    min_run: float | None = _bounded("min_run")  # seconds; 0: no calibration
    target: float | None = _bounded("target")  # percent
    max_trials: int | None = _bounded("max_trials")
    budget: float | None = _bounded("budget")  # seconds
    repeat_of: int | None = None  # the run this one repeats, to see the machine's noise (--repeat-check)
    ab: dict[str, str] | None = None  # an A/B run's versions: where "a" and "b" come from (concbench ab)
    # Caps on each trial, stored as they were applied (0: none), so that a
    # resumed run keeps them.
    memory_limit: Annotated[int, _cap("memory_limit")] = pydantic.Field(
        default_factory=limits.default_memory_bytes
    )  # bytes
    process_limit: Annotated[int, _cap("process_limit")] = limits.DEFAULT_TASKS

    @pydantic.model_validator(mode="after")
    def _one_plan(self) -> "Selection":
        adaptive = [name for name in ("target", "max_trials") if getattr(self, name) is not None]
        if self.trials is not None and adaptive:
            option = adaptive[0].replace("_", "-")
            raise ValueError(f"--trials fixes every cell's trials, --{option} adapts them: give one or the other")
        least = PROFILE_SETTINGS[self.profile].trials
        if self.max_trials is not None and self.max_trials < least:
            raise ValueError(f"max_trials {self.max_trials} is below the {least} trials every cell takes at least")
        return self

    @property
    def settings(self) -> Settings:
        base = PROFILE_SETTINGS[self.profile]
        given = {
            "trials": self.trials,
            "warmup": self.warmup,
            "runs": self.runs,
            "timeout": self.timeout,
            "min_run": self.min_run,
            "target": None if self.target is None else self.target / 100,
            "max_trials": self.max_trials,
            "budget": self.budget,
        }
        settings = replace(base, **{name: value for name, value in given.items() if value is not None})
        return replace(settings, target=None) if self.trials is not None else settings

    @classmethod
    def asked(cls, **values) -> "Selection":
        """A selection from the command line: values it cannot combine fail in one line."""
        try:
            return cls(**values)
        except pydantic.ValidationError as e:
            raise UserError(first_error(e)) from None

    @property
    def caps(self) -> limits.Limits:
        return limits.Limits(self.memory_limit or None, self.process_limit or None)

    def to_json(self) -> dict:
        return self.model_dump(mode="json")

    @classmethod
    def from_json(cls, data: object) -> "Selection":
        """A stored selection, checked as the command line checks one: an older
        or a tampered database may hold anything."""
        try:
            return cls.model_validate(data)
        except pydantic.ValidationError as e:
            raise UserError(f"the stored selection cannot be run: {first_error(e)}") from None


@dataclass(frozen=True)
class Cell:
    workload: Workload
    runtime: Runtime
    mechanism: str
    params: Params
    options: tuple[str, ...]

    @property
    def key(self) -> CellKey:
        return CellKey(self.workload.id, self.runtime.name, self.mechanism, tuple(self.params.items()), self.options)


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


# The cells a selection may ask for, n/a ones included: each is at least a
# trial to run, store and report. The catalogue's full profile asks for a
# third of it (docs/usage.md, "Profiles").
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
    _check_cells(param_sets, chosen_runtimes, selection.mechanisms)
    return Choice(selection, param_sets, chosen_runtimes)


def _check_cells(
    param_sets: list[tuple[Workload, list[Params]]], runtimes: list[Runtime], wanted: tuple[str, ...]
) -> None:
    """A one-line error for a selection of more than MAX_CELLS cells, counted before they are made."""
    mechanisms = sum(wanted_mechanism(wanted, r.name, m) for r in runtimes for m in r.manifest.mechanisms)
    cells = mechanisms * sum(len(sets) for _, sets in param_sets)
    if cells > MAX_CELLS:
        raise UserError(
            f"the selection makes {cells:,} cells (n/a ones included), at most {MAX_CELLS:,}: "
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
                for mechanism in runtime.manifest.mechanisms:
                    if not wanted_mechanism(selection.mechanisms, runtime.name, mechanism):
                        continue
                    cell = Cell(workload, runtime, mechanism, params, options)
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
