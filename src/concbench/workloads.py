"""Workload specs (workloads/<id>.toml): parameters with types and bounds,
values per profile, and the expected result, computed here from the
parameters (and, for rate workloads, from the operations a run counted)."""

import functools
import itertools
import math
from pathlib import Path
from typing import Literal

import pydantic

from . import expr, lcg, paths, series
from .errors import UserError
from .toml_models import Strict, load_toml
from .verify import Expectations
from .warmup import Steady

PROFILES = ("smoke", "quick", "standard", "full")

Value = int | float | str
Params = dict[str, Value]

# What `[expect]` may call: the catalogue's portable random inputs, and sums
# with no short closed form.
FUNCTIONS: expr.Functions = {
    "lcg_sum": lcg.lcg_sum,
    "lcg_first_above": lcg.lcg_first_above,
    "squares_mod_sum": series.squares_mod_sum,
    "decimal_digits_below": series.decimal_digits_below,
    "bisection_candidates": series.bisection_candidates,
}

# A rate workload's expectations may name the operations its run counted.
OPS = "ops"

# The parameter sets a workload's sweeps may make (their values multiplied),
# bounded before they are made: each one's expectations are computed when a
# run is planned, and it makes a cell per mechanism (plan.MAX_CELLS). The
# catalogue's full profile makes at most 6.
MAX_PARAM_SETS = 1000


class Param(Strict):
    type: Literal["int", "float", "choice"]
    min: int | float | None = None  # int and float
    max: int | float | None = None
    values: list[str] | None = None  # choice
    doc: str

    @pydantic.model_validator(mode="after")
    def _complete(self):
        if self.type == "choice":
            if not self.values or self.min is not None or self.max is not None:
                raise ValueError("a choice has `values` and no min or max")
        elif self.min is None or self.max is None or self.values is not None:
            raise ValueError(f"an {self.type} has `min` and `max` and no values")
        return self

    def coerce(self, name: str, value: Value) -> Value:
        """The value as this parameter's type, within its bounds; ValueError if not."""
        if self.type == "choice":
            if value not in self.values:
                raise ValueError(f"{name}={value} is not one of {', '.join(self.values)}")
            return value
        if self.type == "int" and (type(value) is not int):
            raise ValueError(f"{name}={value} is not an integer")
        if self.type == "float":
            if type(value) not in (int, float):
                raise ValueError(f"{name}={value} is not a number")
            value = float(value)
        if not self.min <= value <= self.max:
            raise ValueError(f"{name}={value} is out of bounds [{self.min}, {self.max}]")
        return value

    def parse(self, name: str, text: str) -> Value:
        """A value given on the command line."""
        try:
            value = {"int": int, "float": float, "choice": str}[self.type](text)
        except ValueError:
            raise ValueError(f"{name}={text} is not {'an integer' if self.type == 'int' else 'a number'}") from None
        return self.coerce(name, value)


class Evidence(Strict):
    """A count a run reports to show that its concurrency happened: how many
    of `of` events (an expression, like [expect]'s) went the concurrent way."""

    of: str
    share: str  # how the share reads: "of acquisitions found the lock held"
    mark: str  # the word for a cell where almost none did: "uncontended"


class Together(Strict):
    """The units the work keeps alive at once where it runs them concurrently
    (an expression, like [expect]'s), and the word for a row whose peak_live
    stayed below it: the units took turns."""

    live: str
    mark: str  # "pairs in turn"


class Load(Strict):
    """The load concbench's generator (loadgen/) puts on a served workload's
    trial in each run: each figure an expression over the parameters, as
    [expect]'s are (docs/protocol.md, "Servers under load")."""

    connections: str  # opened at once, all kept to the run's end
    size: str  # bytes of each request, echoed back whole
    rate: str  # requests a second, over all the connections
    requests: str  # in each run


class Workload(Strict):
    id: str
    title: str
    summary: str
    origin: str
    baseline: str
    # fixed: one run does the whole job; rate: the kit repeats batches of
    # `batch` operations until `seconds` have passed, and reports the count.
    kind: Literal["fixed", "rate"] = "fixed"
    # How a rate workload's table reads: Concurrently's "N executions in S
    # seconds", or benchmark-ips's "R (± P%) i/s".
    rate_format: Literal["executions", "ips"] | None = None
    # The kind of work it stands for, if it takes part in the diagnosis of
    # which mechanism wins for which work.
    work: str | None = None
    # The integer parameter (milliseconds) that every unit sleeps, if any. When
    # it is above 0, a run must take less than twice it, or its units did not
    # sleep at the same time; reports show the overhead, real time minus it.
    delay: str | None = None
    # Peak memory is a process's figure: trials of such a workload make one
    # timed run and no warm-up, so that the peak is that run's own.
    one_run_per_process: bool = False
    # A served workload's trial is a server: before each run it says where it
    # listens, and concbench's load generator drives it from beside the trial.
    load: Load | None = None
    # The units the work starts (an expression): a run that reports fewer is
    # INVALID, unless its mechanism's manifest fixes its units (none: 0).
    units: str | None = None
    # Where the spec says its units run at once: how many are alive together.
    together: Together | None = None
    # The evidence a run reports beside peak_live (docs/protocol.md).
    evidence: dict[str, Evidence] = {}
    params: dict[str, Param]
    expect: dict[str, str]
    # A list of values is a sweep: one cell per value.
    profiles: dict[Literal[PROFILES], dict[str, Value | list[Value]]]

    @pydantic.model_validator(mode="after")
    def _consistent(self):
        if self.kind == "rate":
            for name, kind in (("seconds", "float"), ("batch", "int")):
                if name not in self.params or self.params[name].type != kind:
                    raise ValueError(f"a rate workload has the {kind} parameter {name!r}")
            if not self.rate_format:
                raise ValueError("a rate workload has a rate_format")
        if self.load and self.kind != "fixed":
            raise ValueError("a served workload is fixed: each run serves the load once")
        if "cpus" in self.params:
            raise ValueError("params: 'cpus' is the CPUs a cell runs on (--cpus), not a workload's parameter")
        countable = {name for name, p in self.params.items() if p.type == "int"}
        if self.delay is not None and self.delay not in countable:
            raise ValueError(f"delay: {self.delay!r} is not an integer parameter")
        if self.kind == "rate":
            countable.add(OPS)
        for where, source in self._expressions():
            try:
                unknown = expr.names(source, FUNCTIONS) - countable
            except expr.ExpressionError as e:
                raise ValueError(f"{where}: {e}") from None
            if unknown:
                raise ValueError(
                    f"{where}: {sorted(unknown)[0]!r} is not an integer parameter"
                    + (" or ops" if self.kind == "rate" else "")
                )
        missing = [p for p in ("smoke", "quick", "standard") if p not in self.profiles]
        if missing:
            raise ValueError(f"profiles: no {missing[0]!r} profile")
        for profile, values in self.profiles.items():
            try:
                for params in _expand(values):
                    self.validate_params(params)
            except ValueError as e:
                raise ValueError(f"profiles.{profile}: {e}") from None
        return self

    def _expressions(self):
        yield from ((f"expect.{key}", source) for key, source in self.expect.items())
        yield from ((f"evidence.{name}.of", e.of) for name, e in self.evidence.items())
        if self.units:
            yield "units", self.units
        if self.together:
            yield "together.live", self.together.live
        if self.load:
            yield from ((f"load.{name}", source) for name, source in self.load.model_dump().items())

    def validate_params(self, params: Params) -> Params:
        """The parameters, each as its type; ValueError if one is missing, unknown or out of bounds."""
        unknown = set(params) - set(self.params)
        if unknown:
            raise ValueError(f"unknown parameter {sorted(unknown)[0]!r} (has: {', '.join(self.params)})")
        missing = [name for name in self.params if name not in params]
        if missing:
            raise ValueError(f"parameter {missing[0]!r} has no value")
        return {name: spec.coerce(name, params[name]) for name, spec in self.params.items()}

    def param_sets(self, profile: str, overrides: dict[str, list[str]]) -> list[Params]:
        """Every parameter set of a profile with the user's overrides (command-line
        text), sweeps expanded."""
        values = dict(self.profiles.get(profile) or self.profiles["standard"])
        try:
            for name, texts in overrides.items():
                if name in self.params:
                    values[name] = [self.params[name].parse(name, t) for t in texts]
            sets = [self.validate_params(params) for params in _expand(values)]
            for params in sets:  # parameters no run could satisfy are bad input, found now
                self.expected(params, 0 if self.kind == "rate" else None)
            return sets
        except (ValueError, ArithmeticError) as e:
            raise UserError(f"{self.id}: {e}") from None

    def expected(self, params: Params, ops: int | None = None) -> dict[str, int]:
        """The result a run must report; a rate workload's depends on its ops."""
        return {key: self._evaluate(source, params, ops) for key, source in self.expect.items()}

    def least_units(self, params: Params, ops: int | None = None) -> int | None:
        """The units the work starts, if the spec says."""
        return self._evaluate(self.units, params, ops) if self.units else None

    def live_together(self, params: Params) -> int | None:
        """The units alive at once where the work runs them concurrently, if the spec says."""
        return self._evaluate(self.together.live, params, None) if self.together else None

    def load_of(self, params: Params) -> dict[str, int]:
        """The figures of the load on a served workload's run (Load)."""
        load = self.load.model_dump() if self.load else {}
        return {name: self._evaluate(source, params, None) for name, source in load.items()}

    def evidence_of(self, params: Params, ops: int | None = None) -> dict[str, int]:
        """Per evidence, the events it is a share of."""
        return {name: self._evaluate(e.of, params, ops) for name, e in self.evidence.items()}

    @staticmethod
    def _evaluate(source: str, params: Params, ops: int | None) -> int:
        values = {k: v for k, v in params.items() if type(v) is int}
        if ops is not None:
            values[OPS] = ops
        return expr.evaluate(source, values, FUNCTIONS)

    def delay_ns(self, params: Params) -> int:
        """The time every unit of a run sleeps by design, in nanoseconds (0: none)."""
        return params[self.delay] * 1_000_000 if self.delay else 0

    def expectations(
        self, params: Params, warmup: int, runs: int, fixed_units: int | None = None, steady: Steady | None = None
    ) -> Expectations:
        """What a trial of these parameters, asked for warmup and runs, must show
        to be verified (fixed_units: the units its mechanism always runs on;
        steady: the rule it warms up by, beyond the warmup runs)."""
        return Expectations(
            result=functools.partial(self.expected, params),
            warmup=warmup,
            runs=runs,
            steady=steady,
            batch=params["batch"] if self.kind == "rate" else None,
            delay_ns=self.delay_ns(params),
            least_units=functools.partial(self.least_units, params),
            fixed_units=fixed_units,
            evidence=functools.partial(self.evidence_of, params),
            load=self.load_of(params) if self.load else None,
        )


def _expand(values: dict[str, Value | list[Value]]) -> list[Params]:
    names = list(values)
    axes = [v if isinstance(v, list) else [v] for v in values.values()]
    count = math.prod(len(axis) for axis in axes)
    if count > MAX_PARAM_SETS:
        sweeps = " x ".join(f"{name} ({len(axis):,} values)" for name, axis in zip(names, axes) if len(axis) > 1)
        raise ValueError(f"sweeping {sweeps} makes {count:,} parameter sets, at most {MAX_PARAM_SETS:,}")
    return [dict(zip(names, combination)) for combination in itertools.product(*axes)]


def parse_override(text: str) -> tuple[str, list[str]]:
    """'groups=1,5,10' -> ('groups', ['1', '5', '10']); each workload converts
    the values to its parameter's type."""
    name, sep, value = text.partition("=")
    values = [v.strip() for v in value.split(",")]
    if not sep or not name.strip() or not all(values):
        raise UserError(f"--param {text!r}: expected NAME=VALUE or NAME=V1,V2,...")
    return name.strip(), values


def load_all(folders: list[Path] | None = None) -> dict[str, Workload]:
    """Every workload of these folders, else the suite's."""
    specs: dict[str, Workload] = {}
    where: dict[str, Path] = {}
    for folder in paths.Suite().workload_dirs() if folders is None else folders:
        for path in sorted(Path(folder).glob("*.toml")):
            spec = load_toml(path, Workload)
            if spec.id != path.stem:
                raise UserError(f"{path}: id {spec.id!r} does not match the file name")
            if spec.id in where:
                raise UserError(f"two workloads with the id {spec.id!r}: {where[spec.id]} and {path}")
            specs[spec.id], where[spec.id] = spec, path
    # Grouped by origin, so that each seed's suite is planned and shown together.
    return dict(sorted(specs.items(), key=lambda item: item[1].origin))
