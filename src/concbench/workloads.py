"""Workload specs (workloads/<id>.toml): parameters with bounds, values per
profile, and the expected result, computed here from the parameters."""

import itertools
from pathlib import Path
from typing import Literal

import pydantic

from . import expr, paths
from .errors import UserError
from .spec import Strict, load_toml

PROFILES = ("smoke", "quick", "standard", "full")

Params = dict[str, int]


class Param(Strict):
    type: Literal["int"]
    min: int
    max: int
    doc: str

    def check(self, name: str, value: int) -> None:
        if not self.min <= value <= self.max:
            raise ValueError(f"{name}={value} is out of bounds [{self.min}, {self.max}]")


class Workload(Strict):
    id: str
    title: str
    summary: str
    origin: str
    baseline: str
    params: dict[str, Param]
    expect: dict[str, str]
    # A list of values is a sweep: one cell per value.
    profiles: dict[Literal[PROFILES], dict[str, int | list[int]]]

    @pydantic.model_validator(mode="after")
    def _consistent(self):
        for key, source in self.expect.items():
            try:
                unknown = expr.names(source) - set(self.params)
            except expr.ExpressionError as e:
                raise ValueError(f"expect.{key}: {e}") from None
            if unknown:
                raise ValueError(f"expect.{key}: unknown parameter {sorted(unknown)[0]!r}")
        missing = [p for p in ("smoke", "quick", "standard") if p not in self.profiles]
        if missing:
            raise ValueError(f"profiles: no {missing[0]!r} profile")
        for profile, values in self.profiles.items():
            for params in _expand(values):
                try:
                    self.validate_params(params)
                except ValueError as e:
                    raise ValueError(f"profiles.{profile}: {e}") from None
        return self

    def validate_params(self, params: Params) -> None:
        unknown = set(params) - set(self.params)
        if unknown:
            raise ValueError(f"unknown parameter {sorted(unknown)[0]!r} (has: {', '.join(self.params)})")
        for name, spec in self.params.items():
            if name not in params:
                raise ValueError(f"parameter {name!r} has no value")
            spec.check(name, params[name])

    def param_sets(self, profile: str, overrides: dict[str, list[int]]) -> list[Params]:
        """Every parameter set of a profile with the user's overrides, sweeps expanded."""
        values = dict(self.profiles.get(profile) or self.profiles["standard"])
        for name, override in overrides.items():
            if name in self.params:
                values[name] = override
        sets = _expand(values)
        for params in sets:
            try:
                self.validate_params(params)
            except ValueError as e:
                raise UserError(f"{self.id}: {e}") from None
        return sets

    def expected(self, params: Params) -> dict[str, int]:
        return {key: expr.evaluate(source, params) for key, source in self.expect.items()}


def _expand(values: dict[str, int | list[int]]) -> list[Params]:
    names = list(values)
    axes = [v if isinstance(v, list) else [v] for v in values.values()]
    return [dict(zip(names, combination)) for combination in itertools.product(*axes)]


def parse_override(text: str) -> tuple[str, list[int]]:
    """'groups=1,5,10' -> ('groups', [1, 5, 10])."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip() or not value.strip():
        raise UserError(f"--param {text!r}: expected NAME=VALUE or NAME=V1,V2,...")
    try:
        return name.strip(), [int(v) for v in value.split(",")]
    except ValueError:
        raise UserError(f"--param {text!r}: values must be integers") from None


def load_all() -> dict[str, Workload]:
    specs: dict[str, Workload] = {}
    for folder in paths.workload_dirs():
        for path in sorted(Path(folder).glob("*.toml")):
            spec = load_toml(path, Workload)
            if spec.id != path.stem:
                raise UserError(f"{path}: id {spec.id!r} does not match the file name")
            specs.setdefault(spec.id, spec)
    return specs
