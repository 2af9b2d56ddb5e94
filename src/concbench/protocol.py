"""The child's answer: parsing it, and the verdict on a trial."""

import json
from dataclasses import dataclass, field
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
    peak_live: int = pydantic.Field(ge=0)   # most units alive at once
    result: dict[str, int]
    ops: int | None = pydantic.Field(default=None, ge=0)  # rate workloads: operations the kit counted
    # What shows the concurrency happened (the spec's [evidence]); None: not observable.
    evidence: dict[str, int | None] = {}


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


Figure = Callable[[int | None], object]   # of the ops a run counted (None for fixed workloads)


@dataclass(frozen=True)
class Expectations:
    """What a trial must show to be verified, computed from the workload's spec
    and the cell's parameters (figures that depend on ops are functions of it)."""
    result: Callable[[int | None], dict[str, int]]
    warmup: int
    runs: int
    batch: int | None = None        # rate workloads: every run counts whole batches
    delay_ns: int = 0               # every unit sleeps this long: a run takes at least
                                    # this and less than twice it (they slept at once)
    least_units: Callable[[int | None], int | None] = lambda ops: None
    fixed_units: int | None = None  # the mechanism always runs on exactly this many
    evidence: Callable[[int | None], dict[str, int]] = field(default=lambda ops: {})


class Floor(_Answer):
    """The answer to a request to do nothing (the kit's memory floor)."""
    ok: bool
    runtime: RuntimeInfo
    runs: list[Run] = pydantic.Field(max_length=0)


def parse_floor(stdout: bytes) -> str:
    """'' if the kit answered a floor request as it should, else why not."""
    try:
        Floor.model_validate(json.loads(last_line(stdout)))
    except json.JSONDecodeError:
        return f"no JSON answer to the floor request: {last_line(stdout)[:120]!r}"
    except pydantic.ValidationError as e:
        return f"malformed answer to the floor request: {first_error(e)}"
    return ""


def verdict(exit: Exit, answer: Response | Refusal | str, expect: Expectations) -> tuple[Status, str]:
    """Classify a finished trial; the detail says what went wrong, in one line."""
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
    if [r.warmup for r in answer.runs] != [True] * expect.warmup + [False] * expect.runs:
        return Status.INVALID, (f"asked for {expect.warmup} warm-up + {expect.runs} runs, "
                                f"got {len(answer.runs)} runs in another order")
    walls = sum(run.wall_ns for run in answer.runs)
    if walls > exit.wall_ns:
        return Status.INVALID, (f"its runs took {walls / 1e9:.6f} s by its own clock, longer than "
                                f"the {exit.wall_ns / 1e9:.6f} s its process lived")
    for index, run in enumerate(answer.runs):
        mismatch = _mismatch(run, expect)
        if mismatch:
            return Status.INVALID, f"run {index + 1}: {mismatch}"
    return Status.OK, ""


def _mismatch(run: Run, expect: Expectations) -> str:
    """'' if the run did what was asked, else the first thing it did not."""
    if expect.batch:
        bad = _bad_count(run.ops, expect.batch)
        if bad:
            return bad
    return (compare(run.result, expect.result(run.ops)) or _bad_delay(run.wall_ns, expect.delay_ns)
            or _bad_units(run, expect) or _bad_evidence(run.evidence, expect.evidence(run.ops)))


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
        return (f"took {wall_ns / 1e9:.3f} s, less than the {delay_ns / 1e9:g} s every unit sleeps: "
                "the units did not sleep")
    if wall_ns >= 2 * delay_ns:
        return (f"took {wall_ns / 1e9:.3f} s, twice the {delay_ns / 1e9:g} s delay or more: "
                "the units did not sleep at the same time")
    return ""


def _bad_units(run: Run, expect: Expectations) -> str:
    if expect.fixed_units is not None and run.units != expect.fixed_units:
        return f"units = {run.units}, but this mechanism runs on {expect.fixed_units}"
    least = expect.least_units(run.ops) if expect.fixed_units is None else None
    if least is not None and run.units < least:
        return f"units = {run.units}, fewer than the {least} the work starts"
    if run.peak_live > run.units:
        return f"peak_live = {run.peak_live}, more units alive at once than the {run.units} started"
    if run.units and not run.peak_live:
        return f"peak_live = 0, but {run.units} units started"
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
