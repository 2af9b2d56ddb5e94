"""From what a command asks for to the cells to run, the cells that cannot
run (each with its reason) and the order of the trials."""

from collections.abc import Iterator
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
    trials: int  # fresh processes per cell
    warmup: int  # runs per process before the timed ones
    runs: int  # timed runs per process
    timeout: float  # seconds per trial


PROFILE_SETTINGS = {
    "smoke": Settings(trials=1, warmup=0, runs=1, timeout=60),
    "quick": Settings(trials=3, warmup=1, runs=2, timeout=120),
    "standard": Settings(trials=3, warmup=1, runs=2, timeout=900),  # 6 runs: enough for a 95% CI
    "full": Settings(trials=3, warmup=1, runs=1, timeout=1800),
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
    trials: int | None = _bounded("trials")  # None: the profile's
    warmup: int | None = _bounded("warmup")
    runs: int | None = _bounded("runs")
    timeout: float | None = _bounded("timeout")
    # Caps on each trial, stored as they were applied (0: none), so that a
    # resumed run keeps them.
    memory_limit: Annotated[int, _cap("memory_limit")] = pydantic.Field(
        default_factory=limits.default_memory_bytes
    )  # bytes
    process_limit: Annotated[int, _cap("process_limit")] = limits.DEFAULT_TASKS

    @property
    def settings(self) -> Settings:
        base = PROFILE_SETTINGS[self.profile]
        return Settings(
            *(
                mine if mine is not None else theirs
                for mine, theirs in (
                    (self.trials, base.trials),
                    (self.warmup, base.warmup),
                    (self.runs, base.runs),
                    (self.timeout, base.timeout),
                )
            )
        )

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

    def settings_for(self, cell: Cell) -> Settings:
        """The plan's settings, but one timed run and no warm-up for a workload
        whose peak memory must be one run's own."""
        if cell.workload.one_run_per_process:
            return replace(self.settings, warmup=0, runs=1)
        return self.settings

    def trials(self, finished: set[tuple[str, int]] = frozenset()) -> Iterator[tuple[Cell, int]]:
        """Round-robin over the cells, so that drift of the machine hits every
        cell alike; made as they are run, however many there are."""
        return (
            (cell, t) for t in range(self.settings.trials) for cell in self.cells if (cell.key.id, t) not in finished
        )

    def trials_to_go(self, finished: set[tuple[str, int]]) -> int:
        """How many trials() will give, counted without making them."""
        planned = {cell.key.id for cell in self.cells}
        done = sum(1 for cell_id, t in finished if cell_id in planned and t < self.settings.trials)
        return len(self.cells) * self.settings.trials - done


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
    return Choice(
        selection, [(w, w.param_sets(selection.profile, selection.params)) for w in chosen_workloads], chosen_runtimes
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
    return Plan(cells, list(skipped.values()), selection.settings, selection.caps, _notes(cells))


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
    known = {f"{r.name}/{m}" for r in runtimes for m in r.manifest.mechanisms}
    known |= {m.split("/")[1] for m in known}
    check_names("mechanism", wanted, known)
