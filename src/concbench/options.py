"""The types of the command line's values: each refuses what no command can
use with a one-line reason, before anything is built."""

import functools
import math
import re
from pathlib import Path

import click

from . import workloads
from .selection import BOUNDS
from .store import postgresql


def names(ctx, param, values: tuple[str, ...]) -> tuple[str, ...]:
    """-w pipe -w queue and -w pipe,queue both work. An empty name is refused:
    it is what a variable that came out empty gives, and would select everything."""
    for value in values:
        if not all(name.strip() for name in value.split(",")):
            raise click.BadParameter(f"{value!r} has an empty name")
    return tuple(name.strip() for value in values for name in value.split(","))


def cpu_counts(ctx, param, value: str | None) -> tuple[int, ...] | None:
    """--cpus 1,2,4: the CPU counts to run each cell at, in order, each once."""
    if value is None:
        return None
    least, most = BOUNDS["cpus"]
    counts = [text.strip() for text in value.split(",")]
    if not all(text.isascii() and text.isdigit() and least <= int(text) <= most for text in counts):
        raise click.BadParameter(f"{value!r}: expected CPU counts from {least} to {most}, e.g. 1,2,4")
    return tuple(sorted({int(text) for text in counts}))


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


class Duration(click.ParamType):
    """A length of time within the plan's BOUNDS: '90', '90s', '50ms', '3m',
    '1.5h' (seconds without a unit); 'off' is 0 where off_ok."""

    UNITS = {"ms": 1e-3, "s": 1.0, "": 1.0, "m": 60.0, "h": 3600.0}

    def __init__(self, setting: str, off_ok: bool = False):
        self.name, self.off_ok = setting, off_ok
        self.least, self.most = BOUNDS[setting]

    def convert(self, value, param, ctx):
        if isinstance(value, float):
            return value
        text = value.strip().lower()
        if self.off_ok and text == "off":
            return 0.0
        amount = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s|m|h)?", text)
        seconds = float(amount[1]) * self.UNITS[amount[2] or ""] if amount else None
        if seconds is None or not self.least <= seconds <= self.most:  # an overflow to inf too
            shown = f"a time from {_bound_text(self.least)} to {_bound_text(self.most)}, e.g. 90s, 50ms, 3m"
            self.fail(f"{value!r}: expected {'off or ' if self.off_ok else ''}{shown}", param, ctx)
        return seconds


def _bound_text(seconds: float) -> str:
    """A bound as people say it: '7 days', '1 minute', '0.5 s'."""
    for size, unit in ((86400, "day"), (3600, "hour"), (60, "minute")):
        if seconds >= size and seconds % size == 0:
            count = int(seconds // size)
            return f"{count} {unit}{'s' if count > 1 else ''}"
    return f"{seconds:g} s"


class Percent(click.ParamType):
    """A percentage within the plan's BOUNDS: '3' or '3%'."""

    name = "percent"

    def __init__(self, setting: str):
        self.least, self.most = BOUNDS[setting]

    def convert(self, value, param, ctx):
        if isinstance(value, float):
            return value
        amount = re.fullmatch(r"(\d+(?:\.\d+)?)%?", value.strip())
        if not amount or not self.least <= float(amount[1]) <= self.most:
            self.fail(f"{value!r}: expected a percentage from {self.least:g} to {self.most:g}, e.g. 3%", param, ctx)
        return float(amount[1])


def run_number(ctx, param, value: str | None) -> str | None:
    """A stored run: its number, or 'latest'. An empty value, what a shell
    variable that came out empty gives, is refused: taken for none, it
    would start a new run of the whole suite."""
    if value is not None and value != "latest" and not (value.isascii() and value.isdigit()):
        raise click.BadParameter(f"{value!r}: expected a run number (or the option alone, for the latest)")
    return value


def machine_name(ctx, param, value: str | None) -> str | None:
    """A machine's name: what people call it in a report, so a short line of
    letters, digits and a few signs (no spaces at either end)."""
    if value is not None and not re.fullmatch(r"[\w.:@+-][\w .:@+/-]{0,62}[\w.:@+-]|[\w.:@+-]", value):
        raise click.BadParameter(f"{value!r} is not a machine name: 1 to 64 letters, digits, spaces or . : @ + / -")
    return value


def database(ctx, param, value: str | None) -> str | None:
    """A SQLite file (not a folder) or a PostgreSQL URL, whose form the store checks."""
    if value is None:
        return value
    if not value:  # not the current folder, which an empty path would name
        raise click.BadParameter("'' is empty: give a database file or a postgresql:// URL")
    if postgresql.is_url(value):
        if postgresql.has_password(value):
            _warn_of_password_in_arguments()
    elif Path(value).is_dir():
        raise click.BadParameter(f"{value!r} is a folder: give a database file or a postgresql:// URL")
    return value


@functools.cache  # once, however many URLs have one
def _warn_of_password_in_arguments() -> None:
    click.echo(
        "concbench: warning: every local user can read the database password on this command line (ps): "
        "give it in ~/.pgpass, a service file or PGPASSWORD, or the whole URL in $CONCBENCH_DB (docs/fleet.md)",
        err=True,
    )


def databases(ctx, param, values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(database(ctx, param, value) for value in values)
