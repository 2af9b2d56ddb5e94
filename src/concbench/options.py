"""The types of the command line's values: each refuses what no command can
use with a one-line reason, before anything is built."""

import math
import re

import click

from . import workloads
from .plan import BOUNDS


def names(ctx, param, values: tuple[str, ...]) -> tuple[str, ...]:
    """-w pipe -w queue and -w pipe,queue both work. An empty name is refused:
    it is what a variable that came out empty gives, and would select everything."""
    for value in values:
        if not all(name.strip() for name in value.split(",")):
            raise click.BadParameter(f"{value!r} has an empty name")
    return tuple(name.strip() for value in values for name in value.split(","))


def overrides(ctx, param, values: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    return {name: tuple(texts) for name, texts in map(workloads.parse_override, values)}


class Finite(click.FloatRange):
    """A FloatRange that refuses nan (which no bound catches) and infinities."""

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number


class Cap(click.ParamType):
    """A cap on each trial: 'off' (0) or a number within the plan's BOUNDS, with
    the units of its kind (binary K, M, G, T for memory)."""

    def __init__(self, setting: str, units: dict[str, int], shown: str):
        self.name, self.units, self.shown = setting, units, shown
        self.least, self.most = BOUNDS[setting]

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        text = value.strip().lower()
        if text == "off":
            return 0
        amount = re.fullmatch(r"(\d+)([kmgt]?)(?:i?b)?", text)
        if (
            not amount
            or amount[2] not in self.units
            or not self.least <= int(amount[1]) * self.units[amount[2]] <= self.most
        ):
            self.fail(f"{value!r}: expected 'off' or {self.shown}", param, ctx)
        return int(amount[1]) * self.units[amount[2]]


MEMORY_LIMIT = Cap(
    "memory_limit", {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}, "a size from 16M to 1024T"
)
PROCESS_LIMIT = Cap("process_limit", {"": 1}, "a number from 8 to 4194304")
