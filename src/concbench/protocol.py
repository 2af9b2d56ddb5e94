"""The child's answer: parsing it, and the verdict on a trial."""

import json
from enum import StrEnum
from typing import Callable

import pydantic

from .spec import first_error
from .trial import Exit


class Status(StrEnum):
    OK = "ok"
    INVALID = "invalid"    # answered, but a run's result is not the expected one
    TIMEOUT = "timeout"    # killed at its time limit
    CRASH = "crash"        # died by a signal
    EXIT = "exit"          # exited non-zero without a clean refusal
    GARBAGE = "garbage"    # exited 0 without a parsable answer
    ERROR = "error"        # refused cleanly ({"ok": false}) or could not be started


class _Answer(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(strict=True, frozen=True)


class Run(_Answer):
    warmup: bool
    wall_ns: int = pydantic.Field(ge=0)
    user_ns: int = pydantic.Field(ge=0)
    sys_ns: int = pydantic.Field(ge=0)
    units: int = pydantic.Field(ge=0)
    result: dict[str, int]
    ops: int | None = pydantic.Field(default=None, ge=0)  # rate workloads: operations the kit counted


class RuntimeInfo(_Answer):
    name: str
    version: str
    flags: list[str] = []


class Response(_Answer):
    ok: bool
    runtime: RuntimeInfo
    runs: list[Run] = pydantic.Field(min_length=1)
    tree_rss_kb: int | None = pydantic.Field(default=None, ge=0)


class Refusal(_Answer):
    ok: bool
    error: str


def last_line(stdout: bytes) -> str:
    lines = stdout.decode(errors="replace").strip().splitlines()
    return lines[-1] if lines else ""


def parse(stdout: bytes) -> Response | Refusal | str:
    """The answer on the last line of stdout, or why there is none."""
    line = last_line(stdout)
    if not line:
        return "no answer on stdout"
    try:
        data = json.loads(line)
    except json.JSONDecodeError:
        return f"last line of stdout is not JSON: {line[:120]!r}"
    if isinstance(data, dict) and data.get("ok") is False:
        model = Refusal
    else:
        model = Response
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as e:
        return f"malformed answer: {first_error(e)}"


def verdict(exit: Exit, answer: Response | Refusal | str, expected: Callable[[int | None], dict[str, int]],
            warmup: int, runs: int, batch: int | None = None, delay_ns: int = 0) -> tuple[Status, str]:
    """Classify a finished trial; the detail says what went wrong, in one line.
    `expected` gives the result a run must report from the operations it
    counted; `batch` is set for rate workloads, whose every run must count a
    positive whole number of batches; `delay_ns` is what every unit slept,
    which units sleeping at the same time must take less than twice of."""
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
    if [r.warmup for r in answer.runs] != [True] * warmup + [False] * runs:
        return Status.INVALID, f"asked for {warmup} warm-up + {runs} runs, got {len(answer.runs)} runs in another order"
    for index, run in enumerate(answer.runs):
        mismatch = _bad_count(run.ops, batch) if batch else ""
        mismatch = mismatch or compare(run.result, expected(run.ops)) or _not_concurrent(run.wall_ns, delay_ns)
        if mismatch:
            return Status.INVALID, f"run {index + 1}: {mismatch}"
    return Status.OK, ""


def _bad_count(ops: int | None, batch: int) -> str:
    if ops is None:
        return "no ops counted by the rate loop"
    if ops <= 0 or ops % batch:
        return f"ops = {ops}, expected a positive multiple of batch = {batch}"
    return ""


def _not_concurrent(wall_ns: int, delay_ns: int) -> str:
    if delay_ns and wall_ns >= 2 * delay_ns:
        return (f"took {wall_ns / 1e9:.3f} s, twice the {delay_ns / 1e9:g} s delay or more: "
                "the units did not sleep at the same time")
    return ""


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
