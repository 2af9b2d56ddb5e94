"""The child's answer, parsed: what a trial said, not whether it was right
(verify.py judges that).

Nothing a trial prints can crash the harness: its answer is read within
bounds (how deep it nests, how large its integers are, the range of each
figure, valid Unicode), and an answer that breaks one is GARBAGE, with why."""

import json
import math
import re
from itertools import accumulate
from typing import Annotated

import pydantic

from .toml_models import first_error
from .trial import STDOUT_LIMIT, Exit

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1  # what SQLite stores and every kit's language counts in
MAX_DEPTH = 16  # an answer nests 4 deep ({"runs": [{"result": {...}}]}): room to grow, none to recurse
MAX_DIGITS = 19  # an int64's most: a longer integer is refused before Python converts it
TEXT_LIMIT = 200  # characters of a runtime's name, version or flag
DETAIL_LIMIT = 300  # characters of a verdict's detail


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


class AnsweredSample(_Answer):
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
    # The CPUs the runtime sized itself to (GOMAXPROCS, its schedulers, its
    # pools' parallelism), read back from it: at most the request's cpus.
    parallelism: Count | None = None


class Response(_Answer):
    ok: bool
    runtime: RuntimeInfo
    runs: list[AnsweredSample] = pydantic.Field(min_length=1)
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


def timeless(samples: list[AnsweredSample], lifetime_ns: int) -> str:
    """'' unless a sample claims to have taken no time, which none can. One that
    claims more than its process lived lies about its time: verdict() finds
    that INVALID (verify.py), as it does samples that together claim more."""
    for sample in samples:
        if sample.wall_ns < 1:
            return (
                f"a run's wall_ns is {sample.wall_ns}: it must lie between 1 and the "
                f"{lifetime_ns / 1e9:.3g} s the process lived"
            )
    return ""


class Floor(_Answer):
    """The answer to a request to do nothing (the kit's memory floor)."""

    ok: bool
    runtime: RuntimeInfo
    runs: list[AnsweredSample] = pydantic.Field(max_length=0)


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
        return one_line(f"malformed answer to the floor request: {first_error(e)}")
    return ""


def one_line(text: str) -> str:
    """Whatever a trial said, as one line of valid Unicode of at most DETAIL_LIMIT characters."""
    line = " ".join(text.split())
    if len(line) > DETAIL_LIMIT:
        line = line[: DETAIL_LIMIT - 1] + "…"
    return line.encode(errors="replace").decode()
