"""The rows of a database another machine wrote (a merge's source), checked
before any is copied. Every column is held to the bounds a trial's answer is
read within (protocol.py): JSON read by the same bounded reader, integers of
64 bits, counts and times never negative, text as long as the stderr a
trial keeps at most, every state and status one this concbench knows. A
trial stored as verified is verified again from its samples and its
workload's spec, as a fresh trial is; a failed one is kept as stored, since
a failure only takes a trial out of the figures. What fails is Refused,
with why in one line."""

import json
from datetime import datetime
from typing import Annotated, Any, Literal

import pydantic

from .. import protocol, served, verify
from ..calibration import MOST_RUNS
from ..protocol import Count, Integer, Label, Text
from ..records import CellKey
from ..selection import BOUNDS, Selection
from ..status import Status
from ..toml_models import first_error
from ..trial import STDERR_LIMIT, STDOUT_LIMIT, Exit
from ..workloads import Workload

# The runs one trial's samples stand for at most: what its answer could hold.
MOST_TRIAL_RUNS = BOUNDS["warmup"][1] + BOUNDS["runs"][1]
VERIFIED = (Status.OK, Status.STRAY)


class Refused(ValueError):
    """A row that cannot be copied, and why."""


def _json(fractions: bool):
    """A JSON column, read as a trial's answer is: no longer than the stdout a
    trial keeps, nested and numbered within protocol's bounds."""

    def parsed(text: object) -> object:
        if not isinstance(text, str):
            raise ValueError(f"JSON text expected, not {type(text).__name__}")
        if len(text) > STDOUT_LIMIT:
            raise ValueError(f"{len(text)} characters of JSON, more than a trial's answer holds ({STDOUT_LIMIT})")
        value = protocol.load(text, fractions)
        protocol.valid_unicode(json.dumps(value, ensure_ascii=False))  # every string, those no field names too
        return value

    return pydantic.BeforeValidator(parsed)


def _selection(request: dict) -> dict:
    """A run's request, checked as a resumed run's is (Selection), but for the
    settings an older concbench stored and this one no longer has."""
    known = {name: value for name, value in request.items() if name in Selection.model_fields}
    try:
        Selection.model_validate(known)
    except pydantic.ValidationError as e:
        raise ValueError(first_error(e)) from None
    return request


def _iso_time(text: str) -> str:
    try:
        datetime.fromisoformat(text)
    except ValueError:
        raise ValueError("not an ISO 8601 time") from None
    return text


Answer = _json(fractions=False)  # what a kit answered: integers only
Setting = _json(fractions=True)  # what the harness wrote: a run's settings, a fingerprint, parameters
Stored = Annotated[str, pydantic.StringConstraints(max_length=STDERR_LIMIT), protocol.Unicode]
Time = Annotated[Label, pydantic.AfterValidator(_iso_time)]
Repeat = Annotated[int, pydantic.Field(ge=1, le=MOST_RUNS)]
Uuid = Annotated[str, pydantic.StringConstraints(pattern="^[0-9a-f]{32}$")]


class _Strict(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(strict=True, frozen=True, extra="forbid")


class Fingerprint(pydantic.BaseModel):
    """A machine's fingerprint (environment.fingerprint) as the reports read
    it: each field it ever had of its type, absent in older runs; others
    (a newer concbench's) only bounded."""

    model_config = pydantic.ConfigDict(strict=True, frozen=True, extra="allow")

    machine: Label = ""
    machine_id: Label = ""
    cpu: Stored = ""
    cores: Count | None = None
    usable_cores: Count | None = None
    memory_kb: Count | None = None
    kernel: Stored = ""
    load: list[float] = []
    governor: Stored | None = None
    cpu_mhz: float | None = None
    python: Stored = ""
    concbench: Stored = ""
    runtimes: dict[Stored, Stored] = {}
    origins: dict[Stored, Stored] = {}
    libraries: dict[Stored, Stored] = {}
    loader: dict[Stored, Stored] = {}
    limits: Stored = ""
    trials: Stored = ""


class _NoAnswer(_Strict):
    """The runtime_info of a trial without an answer: {}."""


class RunRow(_Strict):
    id: Count
    uuid: Uuid
    started: Time
    finished: Time | None
    state: Literal["running", "complete", "interrupted", "planned"]
    request: Annotated[dict[Stored, Any], Setting, pydantic.AfterValidator(_selection)]
    environment: Annotated[Fingerprint, Setting]


class TrialRow(_Strict):
    id: Count
    run_id: Count
    cell: Stored
    workload: Label
    runtime: Label
    mechanism: Label
    options: Annotated[list[Label], Setting]
    params: Annotated[dict[Label, int | float | Label], Setting]
    cpus: Annotated[int, pydantic.Field(ge=0, le=BOUNDS["cpus"][1])]
    trial: Count
    status: Literal[tuple(status.value for status in Status)]
    detail: Stored
    expected: Annotated[dict[Text, Integer], Answer]
    wall_ns: Count | None
    user_ns: Count | None
    sys_ns: Count | None
    maxrss_kb: Count | None
    tree_rss_kb: Count | None
    exit_code: Integer | None
    signal: Count | None
    runtime_info: Annotated[protocol.RuntimeInfo | _NoAnswer, Answer]
    stderr: Stored
    finished: Time
    voluntary_switches: Count | None
    involuntary_switches: Count | None
    strays: Count | None
    machine: Label
    machine_id: Label
    cpu_set: Annotated[str, pydantic.StringConstraints(max_length=protocol.TEXT_LIMIT, pattern=r"^[0-9,-]*$")]


class SampleRow(_Strict):
    trial_id: Count
    idx: Count
    warmup: Literal[0, 1]
    wall_ns: Count
    user_ns: Count
    sys_ns: Count
    units: Count
    result: Annotated[dict[Text, Integer], Answer]
    ops: Count | None
    peak_live: Count | None  # None: stored before it was counted
    evidence: Annotated[dict[Text, Count | None], Answer]
    repeat: Repeat
    latency: Annotated[dict[Text, Any], Setting] | None = None  # served workloads only: what the generator measured


class SkippedRow(_Strict):
    run_id: Count
    workload: Label
    row: Stored
    kind: Literal["n/a", "unavailable"]
    reason: Stored
    params: Stored


class FloorRow(_Strict):
    run_id: Count
    runtime: Stored
    maxrss_kb: Count | None
    detail: Stored


class NoteRow(_Strict):
    run_id: Count
    workload: Label
    row: Stored
    text: Stored


class CalibrationRow(_Strict):
    run_id: Count
    cell: Stored
    repeat: Repeat
    run_ns: Count | None
    trial_ns: Count | None
    detail: Stored


class PlannedRow(_Strict):
    run_id: Count
    seq: Count
    cell: Stored
    trial: Count
    state: Literal["waiting", "claimed", "done"]
    worker: Stored
    lease_until: Integer | None
    claims: Count


class WorkerRow(_Strict):
    run_id: Count
    worker: Stored
    machine: Label
    machine_id: Label
    environment: Annotated[Fingerprint, Setting]
    started: Time


class ProbeRow(_Strict):
    run_id: Count
    at: Count
    work_ns: Count


# Each table's rows, column by column (schema.py has the columns).
ROWS: dict[str, type[_Strict]] = {
    "runs": RunRow,
    "trials": TrialRow,
    "samples": SampleRow,
    "skipped": SkippedRow,
    "floors": FloorRow,
    "notes": NoteRow,
    "calibrations": CalibrationRow,
    "planned": PlannedRow,
    "workers": WorkerRow,
    "probes": ProbeRow,
}


def check(table: str, row: dict) -> pydantic.BaseModel:
    """The row, read as its table's model; Refused if a column breaks it."""
    try:
        return ROWS[table].model_validate(row)
    except pydantic.ValidationError as e:
        raise Refused(first_error(e)) from None


def check_trial(row: dict, samples: list[dict], specs: dict[str, Workload]) -> None:
    """A trial and its samples (in the order of their idx), each within its
    bounds, its cell its own, and its verdict its samples' own where it is
    stored as verified."""
    trial = check("trials", row)
    key = CellKey(
        trial.workload, trial.runtime, trial.mechanism, tuple(trial.params.items()), tuple(trial.options), trial.cpus
    )
    if trial.cell != key.id:
        raise Refused(f"cell {trial.cell[:200]!r} is not its workload, row and parameters ({key.id!r})")
    checked = []
    for number, sample in enumerate(samples, 1):
        try:
            checked.append(check("samples", sample))
        except Refused as e:
            raise Refused(f"sample {number}: {e}") from None
    runs = sum(sample.repeat for sample in checked)
    if runs > MOST_TRIAL_RUNS:
        raise Refused(f"its samples stand for {runs} runs, more than a trial's answer holds ({MOST_TRIAL_RUNS})")
    if trial.status in VERIFIED:
        _check_verdict(trial, checked, specs)


def _check_verdict(trial: TrialRow, samples: list[SampleRow], specs: dict[str, Workload]) -> None:
    stored = f"stored as {trial.status}, but"
    workload = specs.get(trial.workload)
    if workload is None:
        raise Refused(f"{stored} its workload {trial.workload!r} is not one this concbench knows to verify it by")
    if trial.wall_ns is None:
        raise Refused(f"{stored} without its process's wall_ns")
    try:
        params = workload.validate_params(trial.params)
    except ValueError as e:
        raise Refused(f"{stored} not of its workload: {e}") from None
    status, detail = _verdict(trial, samples, workload, params)
    if status != trial.status:
        raise Refused(f"{stored} its samples make it {status}: {detail}")


def _verdict(trial: TrialRow, samples: list[SampleRow], workload: Workload, params: dict) -> tuple[Status, str]:
    """The verdict on the trial, from its process's figures and its
    samples, as they would have been answered, against its workload's spec.
    The warm-ups and runs it was asked for are not stored: those it has."""
    runs = [run for sample in samples for run in _answered(sample)]
    warmups = sum(run.warmup for run in runs)
    expect = workload.expectations(params, warmups, len(runs) - warmups)
    exit = Exit(
        wall_ns=trial.wall_ns,
        user_ns=trial.user_ns,
        sys_ns=trial.sys_ns,
        maxrss_kb=trial.maxrss_kb,
        voluntary_switches=trial.voluntary_switches,
        involuntary_switches=trial.involuntary_switches,
        exit_code=trial.exit_code,
        signal=trial.signal,
        timed_out=False,
        stdout=b"",
        stdout_size=0,
        stderr=trial.stderr,
        strays=trial.strays,
        beside=served.stored([sample.latency for sample in samples], expect.load) if expect.load else None,
    )
    try:
        answer = protocol.Response(ok=True, runtime=trial.runtime_info, runs=runs, tree_rss_kb=trial.tree_rss_kb)
    except pydantic.ValidationError as e:
        return Status.GARBAGE, f"malformed answer: {first_error(e)}"
    return verify.verdict(exit, protocol.timeless(runs, exit.wall_ns) or answer, expect)


def _answered(sample: SampleRow) -> list[protocol.AnsweredSample]:
    """The runs a stored sample stands for: a calibrated one is the mean of
    `repeat` runs, each of which was verified as the mean is (calibration.py).
    One stored before peak_live was counted is verified without it."""
    run = protocol.AnsweredSample(
        warmup=bool(sample.warmup),
        wall_ns=sample.wall_ns,
        user_ns=sample.user_ns,
        sys_ns=sample.sys_ns,
        units=sample.units,
        peak_live=sample.units if sample.peak_live is None else sample.peak_live,
        result=sample.result,
        ops=sample.ops,
        evidence=sample.evidence,
    )
    return [run] * sample.repeat
