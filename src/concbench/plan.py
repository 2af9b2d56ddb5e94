"""From what a command asks for to the cells to run, the cells that cannot
run (each with its reason) and the order of the trials."""

from dataclasses import dataclass, field, replace

from .errors import UserError
from .records import CellKey, Note, Skipped
from .runtimes import Runtime
from .workloads import Params, Workload


@dataclass(frozen=True)
class Settings:
    trials: int     # fresh processes per cell
    warmup: int     # runs per process before the timed ones
    runs: int       # timed runs per process
    timeout: float  # seconds per trial


PROFILE_SETTINGS = {
    "smoke": Settings(trials=1, warmup=0, runs=1, timeout=60),
    "quick": Settings(trials=3, warmup=1, runs=2, timeout=120),
    "standard": Settings(trials=3, warmup=1, runs=2, timeout=900),   # 6 runs: enough for a 95% CI
    "full": Settings(trials=3, warmup=1, runs=1, timeout=1800),
}


@dataclass(frozen=True)
class Selection:
    """What a `run` asks for; stored with the run so that it can be resumed."""
    profile: str = "quick"
    workloads: tuple[str, ...] = ()       # empty: all
    runtimes: tuple[str, ...] = ()
    mechanisms: tuple[str, ...] = ()      # 'thread' or 'ruby/thread'
    params: tuple[tuple[str, tuple[int, ...]], ...] = ()
    options: tuple[str, ...] = ()
    trials: int | None = None             # None: the profile's
    warmup: int | None = None
    runs: int | None = None
    timeout: float | None = None

    @property
    def settings(self) -> Settings:
        base = PROFILE_SETTINGS[self.profile]
        return Settings(*(mine if mine is not None else theirs for mine, theirs in (
            (self.trials, base.trials), (self.warmup, base.warmup),
            (self.runs, base.runs), (self.timeout, base.timeout))))

    def to_json(self) -> dict:
        return {**self.__dict__, "params": {name: list(v) for name, v in self.params}}

    @classmethod
    def from_json(cls, data: dict) -> "Selection":
        fields = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
        fields["params"] = tuple((name, tuple(v)) for name, v in data["params"].items())
        return cls(**fields)


@dataclass(frozen=True)
class Cell:
    workload: Workload
    runtime: Runtime
    mechanism: str
    params: Params
    options: tuple[str, ...]

    @property
    def key(self) -> CellKey:
        return CellKey(self.workload.id, self.runtime.name, self.mechanism,
                       tuple(self.params.items()), self.options)


@dataclass(frozen=True)
class Plan:
    cells: list[Cell]
    skipped: list[Skipped]
    settings: Settings
    notes: list[Note] = field(default_factory=list)

    def settings_for(self, cell: Cell) -> Settings:
        """The plan's settings, but one timed run and no warm-up for a workload
        whose peak memory must be one run's own."""
        if cell.workload.one_run_per_process:
            return replace(self.settings, warmup=0, runs=1)
        return self.settings

    def trials(self, finished: set[tuple[str, int]] = frozenset()) -> list[tuple[Cell, int]]:
        """Round-robin over the cells, so that drift of the machine hits every cell alike."""
        return [(cell, t) for t in range(self.settings.trials) for cell in self.cells
                if (cell.key.id, t) not in finished]


def make_plan(selection: Selection, workloads: dict[str, Workload],
              runtimes: dict[str, Runtime]) -> Plan:
    chosen_workloads = _choose("workload", selection.workloads, workloads)
    chosen_runtimes = _choose("runtime", selection.runtimes, runtimes)
    _check_mechanisms(selection.mechanisms, chosen_runtimes)
    check_names("parameter", [n for n, _ in selection.params],
                {p for w in chosen_workloads for p in w.params})
    check_names("option", selection.options,
                {o for r in chosen_runtimes for o in r.manifest.options})
    cells, skipped = [], {}
    overrides = {name: list(values) for name, values in selection.params}
    for workload in chosen_workloads:
        for params in workload.param_sets(selection.profile, overrides):
            for runtime in chosen_runtimes:
                options = tuple(o for o in selection.options if o in runtime.manifest.options)
                for mechanism in runtime.manifest.mechanisms:
                    if not wanted_mechanism(selection.mechanisms, runtime.name, mechanism):
                        continue
                    cell = Cell(workload, runtime, mechanism, params, options)
                    reason = _why_not(cell)
                    if reason:
                        skipped.setdefault((workload.id, cell.key.row, cell.key.params_text), Skipped(
                            workload.id, cell.key.row, *reason, cell.key.params_text))
                    else:
                        cells.append(cell)
    return Plan(cells, list(skipped.values()), selection.settings, _notes(cells))


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


def check_names(kind: str, names, known: set[str]) -> None:
    for name in names:
        if name not in known:
            choices = ", ".join(sorted(known)) or "none"
            raise UserError(f"unknown {kind} {name!r} (known: {choices})")


def _check_mechanisms(wanted: tuple[str, ...], runtimes: list[Runtime]) -> None:
    known = {f"{r.name}/{m}" for r in runtimes for m in r.manifest.mechanisms}
    known |= {m.split("/")[1] for m in known}
    check_names("mechanism", wanted, known)


def wanted_mechanism(wanted: tuple[str, ...], runtime: str, mechanism: str) -> bool:
    return not wanted or mechanism in wanted or f"{runtime}/{mechanism}" in wanted
