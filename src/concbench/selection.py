"""What a user selects: a run's Selection (a profile, names, parameters and
settings, each within its bounds), and the names a report of stored runs is
narrowed by (CellFilter)."""

from dataclasses import dataclass, replace
from typing import Annotated, Literal

import pydantic

from . import cpus, limits
from .errors import UserError
from .records import CellKey
from .toml_models import first_error


def check_names(kind: str, names, known: set[str]) -> None:
    for name in names:
        if name not in known:
            choices = ", ".join(sorted(known)) or "none"
            raise UserError(f"unknown {kind} {name!r} (known: {choices})")


def wanted_mechanism(wanted: tuple[str, ...], runtime: str, mechanism: str) -> bool:
    return not wanted or mechanism in wanted or f"{runtime}/{mechanism}" in wanted


@dataclass(frozen=True)
class CellFilter:
    """Which stored cells to show or follow: the -w, -r, -m and -p of `show`,
    `report` and `history`. Empty: every one."""

    workloads: tuple[str, ...] = ()
    runtimes: tuple[str, ...] = ()
    mechanisms: tuple[str, ...] = ()  # 'thread' or 'ruby/thread'
    params: tuple[tuple[str, tuple[str, ...]], ...] = ()  # values as the tables' titles print them

    def check(self, stored: set[CellKey]) -> None:
        """A one-line error for a name that no stored cell has."""
        check_names("workload", self.workloads, {k.workload for k in stored})
        check_names("runtime", self.runtimes, {k.runtime for k in stored})
        check_names(
            "mechanism", self.mechanisms, {k.mechanism for k in stored} | {f"{k.runtime}/{k.mechanism}" for k in stored}
        )
        check_names(
            "parameter", [name for name, _ in self.params], {name for k in stored for name, _ in k.shown_params}
        )

    def __call__(self, key: CellKey) -> bool:
        params = {name: str(value) for name, value in key.shown_params}
        return self.keeps_row(key.workload, key.runtime, key.mechanism) and all(
            params.get(name) in values for name, values in self.params
        )

    def keeps_row(self, workload: str, runtime: str, mechanism: str) -> bool:
        """Whether a row of a workload is wanted, whatever its parameters (an
        n/a line or a note has no parameters of its own)."""
        return (
            (not self.workloads or workload in self.workloads)
            and (not self.runtimes or runtime in self.runtimes)
            and wanted_mechanism(self.mechanisms, runtime, mechanism)
        )


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
    "cpus": (1, 4096),  # a trial's: as many as the spawner's CPU set holds
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
    # The CPU counts each cell runs at, a cell for each (docs/usage.md, "CPUs");
    # empty: unconfined, on every CPU the harness may use.
    cpus: tuple[Annotated[int, pydantic.Field(strict=True, ge=BOUNDS["cpus"][0], le=BOUNDS["cpus"][1])], ...] = ()
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

    @pydantic.field_validator("cpus", mode="after")
    @classmethod
    def _each_count_once(cls, counts: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(sorted(set(counts)))

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
        """A selection from the command line: values it cannot combine fail in
        one line. The full profile sweeps this machine's CPUs unless told."""
        if values.get("profile") == "full" and not values.get("cpus"):
            values["cpus"] = cpus.sweep(len(cpus.usable()))
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
