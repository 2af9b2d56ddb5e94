"""The child's answer: parsing it, and the verdict on a trial.

Nothing a trial prints can crash the harness: its answer is read within
bounds (how deep it nests, how large its integers are, the range of each
figure, valid Unicode), and an answer that breaks one is GARBAGE, with why."""

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import accumulate
from typing import Annotated

import pydantic

from .spec import first_error
from .trial import STDOUT_LIMIT, Exit
from .warmup import Steady

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1  # what SQLite stores and every kit's language counts in
MAX_DEPTH = 16  # an answer nests 4 deep ({"runs": [{"result": {...}}]}): room to grow, none to recurse
MAX_DIGITS = 19  # an int64's most: a longer integer is refused before Python converts it
TEXT_LIMIT = 200  # characters of a runtime's name, version or flag
DETAIL_LIMIT = 300  # characters of a verdict's detail


class Status(StrEnum):
    OK = "ok"
    INVALID = "invalid"  # answered, but a run's result is not the expected one
    TIMEOUT = "timeout"  # killed at its time limit
    CRASH = "crash"  # died by a signal
    EXIT = "exit"  # exited non-zero without a clean refusal
    GARBAGE = "garbage"  # exited 0 without a parsable answer
    ERROR = "error"  # refused cleanly ({"ok": false}) or could not be started
    LIMIT = "limit"  # stopped at its memory or process cap
    STRAY = "stray"  # verified, but left processes running when it exited


def valid_unicode(text: str) -> str:
    """JSON escapes can spell lone surrogates, which no file or terminal can take."""
    try:
        text.encode()
    except UnicodeEncodeError:
        raise ValueError("not valid Unicode (a lone surrogate)") from None
    return text


Unicode = pydantic.AfterValidator(valid_unicode)
Text = Annotated[str, Unicode]
Label = Annotated[str, pydantic.StringConstraints(max_length=TEXT_LIMIT), Unicode]
Count = Annotated[int, pydantic.Field(ge=0, le=INT64_MAX)]
Integer = Annotated[int, pydantic.Field(ge=INT64_MIN, le=INT64_MAX)]


class _Answer(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(strict=True, frozen=True)


class Sample(_Answer):
    """One timed execution of the work in a trial, as the kit's answer gives it
    (its `runs`: docs/formats.md, "Words"), validated; the runner stores it as
    a records.Sample."""

    warmup: bool
    wall_ns: Count  # at least 1, which parse() checks
    user_ns: Count
    sys_ns: Count
    units: Count
    peak_live: Count  # most units alive at once
    result: dict[Text, Integer]
    ops: Count | None = None  # rate workloads: operations the kit counted
    # What shows the concurrency happened (the spec's [evidence]); None: not observable.
    evidence: dict[Text, Count | None] = {}


class RuntimeInfo(_Answer):
    name: Label
    version: Label
    flags: list[Label] = []


class Response(_Answer):
    ok: bool
    runtime: RuntimeInfo
    runs: list[Sample] = pydantic.Field(min_length=1)
    tree_rss_kb: Count | None = None


class Refusal(_Answer):
    ok: bool
    error: Text


class OutOfBounds(ValueError):
    """JSON that no answer can be: read no further than to see it."""


def _lines(stdout: bytes) -> list[str]:
    return stdout.decode(errors="replace").strip().splitlines()


def last_line(stdout: bytes) -> str:
    lines = _lines(stdout)
    return lines[-1] if lines else ""


def parse(exit: Exit) -> Response | Refusal | str:
    """The answer on the last line of the trial's stdout, or why there is none."""
    lines = _lines(exit.stdout)
    if exit.stdout_size > len(exit.stdout) and len(lines) <= 1:  # the line's start was dropped
        return (
            f"the answer's last line passed the {STDOUT_LIMIT / 2**20:g} MiB stdout cap "
            f"({exit.stdout_size / 2**20:.1f} MiB written)"
        )
    if not lines:
        return "no answer on stdout"
    try:
        data = load(lines[-1])
    except OutOfBounds as e:
        return str(e)
    except json.JSONDecodeError:
        return f"last line of stdout is not JSON: {lines[-1][:120]!r}"
    model = Refusal if isinstance(data, dict) and data.get("ok") is False else Response
    try:
        answer = model.model_validate(data)
    except pydantic.ValidationError as e:
        return f"malformed answer: {first_error(e)}"
    if isinstance(answer, Response):
        return timeless(answer.runs, exit.wall_ns) or answer
    return answer


def load(line: str, fractions: bool = False) -> object:
    """The line's JSON value; OutOfBounds before json recurses into nesting or
    converts a number that no answer holds. With fractions, finite numbers
    that are not integers are taken too (a stored run's settings have them)."""
    if _depth(line) > MAX_DEPTH:
        raise OutOfBounds(f"answer nested deeper than {MAX_DEPTH}")
    return json.loads(
        line, parse_int=_integer, parse_float=_finite if fractions else _fraction, parse_constant=_fraction
    )


_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def _depth(line: str) -> int:
    """How deep the brackets outside strings nest: at least as deep as json.loads
    would recurse before it stopped, at valid JSON's end or at its first fault."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", line))
    return max(accumulate(map(_STEP.get, brackets)), default=0)


def _integer(digits: str) -> int:
    length = len(digits.lstrip("-"))
    if length > MAX_DIGITS:
        raise OutOfBounds(f"an integer of {length} digits: answers hold 64-bit integers, at most {MAX_DIGITS}")
    return int(digits)


def _fraction(number: str):
    raise OutOfBounds(f"a number that is not an integer: {number[:40]}")


def _finite(number: str) -> float:
    value = float(number)
    if not math.isfinite(value):
        raise OutOfBounds(f"a number out of range: {number[:40]}")
    return value


def timeless(samples: list[Sample], lifetime_ns: int) -> str:
    """'' unless a sample claims to have taken no time, which none can. One that
    claims more than its process lived lies about its time: verdict() finds
    that INVALID, as it does samples that together claim more."""
    for sample in samples:
        if sample.wall_ns < 1:
            return (
                f"a run's wall_ns is {sample.wall_ns}: it must lie between 1 and the "
                f"{lifetime_ns / 1e9:.3g} s the process lived"
            )
    return ""


Figure = Callable[[int | None], object]  # of the ops a run counted (None for fixed workloads)


@dataclass(frozen=True)
class Expectations:
    """What a trial must show to be verified, computed from the workload's spec
    and the cell's parameters (figures that depend on ops are functions of it,
    which raise ArithmeticError for ops the spec gives no figure for)."""

    result: Callable[[int | None], dict[str, int]]
    warmup: int  # warm-up runs asked for: all of them, or the least of a steady warm-up
    runs: int  # timed samples asked for: the request's "runs", as --runs names it
    batch: int | None = None  # rate workloads: every run counts whole batches
    delay_ns: int = 0  # every unit sleeps this long: a run takes at least
    # this and less than twice it (they slept at once)
    least_units: Callable[[int | None], int | None] = lambda ops: None
    fixed_units: int | None = None  # the mechanism always runs on exactly this many
    evidence: Callable[[int | None], dict[str, int]] = field(default=lambda ops: {})
    steady: Steady | None = None  # warm up until steady (warmup.py); None: exactly `warmup` runs

    def known_result(self, ops: int | None) -> dict[str, int]:
        """The result expected of a run that counted ops; {} for ops the spec has none for."""
        try:
            return self.result(ops)
        except ArithmeticError:
            return {}


class Floor(_Answer):
    """The answer to a request to do nothing (the kit's memory floor)."""

    ok: bool
    runtime: RuntimeInfo
    runs: list[Sample] = pydantic.Field(max_length=0)


def parse_floor(stdout: bytes) -> str:
    """'' if the kit answered a floor request as it should, else why not (one line)."""
    line = last_line(stdout)
    try:
        Floor.model_validate(load(line))
    except OutOfBounds as e:
        return f"unbounded answer to the floor request: {e}"
    except json.JSONDecodeError:
        return f"no JSON answer to the floor request: {line[:120]!r}"
    except pydantic.ValidationError as e:
        return _one_line(f"malformed answer to the floor request: {first_error(e)}")
    return ""


def _one_line(text: str) -> str:
    """Whatever a trial said, as one line of valid Unicode of at most DETAIL_LIMIT characters."""
    line = " ".join(text.split())
    if len(line) > DETAIL_LIMIT:
        line = line[: DETAIL_LIMIT - 1] + "…"
    return line.encode(errors="replace").decode()


def verdict(exit: Exit, answer: Response | Refusal | str, expect: Expectations) -> tuple[Status, str]:
    """Classify a finished trial; the detail says what went wrong, in one line.
    A resource limit changes what the trial could do, so it comes first; what a
    trial left running is told whatever else went wrong."""
    if exit.limit_hit:
        return Status.LIMIT, _one_line(exit.limit_hit + _strays(exit, "; "))
    status, detail = _classify(exit, answer, expect)
    if status == Status.OK and exit.strays:
        return Status.STRAY, _strays(exit, "")
    return status, _one_line(detail + _strays(exit, "; "))


def _strays(exit: Exit, separator: str) -> str:
    if not exit.strays:
        return ""
    processes = "process" if exit.strays == 1 else "processes"
    return f"{separator}left {exit.strays} {processes} running when it exited (killed)"


def _classify(exit: Exit, answer: Response | Refusal | str, expect: Expectations) -> tuple[Status, str]:
    if exit.timed_out:
        return Status.TIMEOUT, "killed at its time limit"
    if exit.signal is not None:
        return Status.CRASH, f"killed by signal {exit.signal}{_stderr_end(exit)}"
    if isinstance(answer, Refusal):
        return Status.ERROR, answer.error
    if exit.exit_code != 0:
        return Status.EXIT, f"exit status {exit.exit_code}{_stderr_end(exit)}"
    if isinstance(answer, str):
        return Status.GARBAGE, answer
    misordered = _misordered(answer.runs, expect)
    if misordered:
        return Status.INVALID, misordered
    walls = sum(sample.wall_ns for sample in answer.runs)
    if walls > exit.wall_ns:
        return Status.INVALID, (
            f"its runs took {walls / 1e9:.6f} s by its own clock, longer than "
            f"the {exit.wall_ns / 1e9:.6f} s its process lived"
        )
    for index, sample in enumerate(answer.runs):
        mismatch = _mismatch(sample, expect)
        if mismatch:
            return Status.INVALID, f"run {index + 1}: {mismatch}"
    return Status.OK, ""


def _misordered(runs: list[Sample], expect: Expectations) -> str:
    """'' if the runs are the warm-ups asked for, then the timed runs; else what they are not."""
    warmups = next((i for i, run in enumerate(runs) if not run.warmup), len(runs))
    timed = runs[warmups:]
    fixed = expect.steady is None
    if any(run.warmup for run in timed) or len(timed) != expect.runs or (fixed and warmups != expect.warmup):
        asked = f"{expect.warmup} warm-up" if fixed else "a steady warm-up"
        return f"asked for {asked} + {expect.runs} runs, got {len(runs)} runs in another order"
    if fixed:
        return ""
    taken = expect.steady.runs(expect.warmup, runs[:warmups])
    if taken is None:
        return f"stopped warming up after {warmups} runs, before its runs were steady"
    if taken != warmups:
        return f"warmed up for {warmups} runs, where its runs say the steady rule stops after {taken}"
    return ""


def _mismatch(sample: Sample, expect: Expectations) -> str:
    """'' if the sample did what was asked, else the first thing it did not."""
    if expect.batch:
        bad = _bad_count(sample.ops, expect.batch)
        if bad:
            return bad
    try:
        return (
            compare(sample.result, expect.result(sample.ops))
            or _bad_delay(sample.wall_ns, expect.delay_ns)
            or _bad_units(sample, expect)
            or _bad_evidence(sample.evidence, expect.evidence(sample.ops))
        )
    except ArithmeticError as e:
        return f"the spec gives no expected figures for ops = {sample.ops}: {e}"


def _bad_count(ops: int | None, batch: int) -> str:
    if ops is None:
        return "no ops counted by the rate loop"
    if ops <= 0 or ops % batch:
        return f"ops = {ops}, expected a positive multiple of batch = {batch}"
    return ""


def _bad_delay(wall_ns: int, delay_ns: int) -> str:
    if not delay_ns:
        return ""
    if wall_ns < delay_ns:
        return (
            f"took {wall_ns / 1e9:.3f} s, less than the {delay_ns / 1e9:g} s every unit sleeps: the units did not sleep"
        )
    if wall_ns >= 2 * delay_ns:
        return (
            f"took {wall_ns / 1e9:.3f} s, twice the {delay_ns / 1e9:g} s delay or more: "
            "the units did not sleep at the same time"
        )
    return ""


def _bad_units(sample: Sample, expect: Expectations) -> str:
    if expect.fixed_units is not None and sample.units != expect.fixed_units:
        return f"units = {sample.units}, but this mechanism runs on {expect.fixed_units}"
    least = expect.least_units(sample.ops) if expect.fixed_units is None else None
    if least is not None and sample.units < least:
        return f"units = {sample.units}, fewer than the {least} the work starts"
    if sample.peak_live > sample.units:
        return f"peak_live = {sample.peak_live}, more units alive at once than the {sample.units} started"
    if sample.units and not sample.peak_live:
        return f"peak_live = 0, but {sample.units} units started"
    return ""


def _bad_evidence(reported: dict[str, int | None], declared: dict[str, int]) -> str:
    for name, of in declared.items():
        if name not in reported:
            return f"no {name!r} in the evidence"
        value = reported[name]
        if value is not None and not 0 <= value <= of:
            return f"{name} = {value}, expected 0 to {of}"
    extra = set(reported) - set(declared)
    return f"unexpected {sorted(extra)[0]!r} in the evidence" if extra else ""


def compare(result: dict[str, int], expected: dict[str, int]) -> str:
    """'' if the result is the expected one, else the first difference."""
    for key, value in expected.items():
        if key not in result:
            return f"no {key!r} in the result"
        if result[key] != value:
            return f"{key} = {result[key]}, expected {value}"
    extra = set(result) - set(expected)
    return f"unexpected {sorted(extra)[0]!r} in the result" if extra else ""


def _stderr_end(exit: Exit) -> str:
    lines = exit.stderr.strip().splitlines()
    return f": {lines[-1][:200]}" if lines else ""
