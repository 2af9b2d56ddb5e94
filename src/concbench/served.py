"""A served workload's trial (docs/protocol.md, "Servers under load"): the
address its server announces before each run, concbench's load generator
that the harness starts beside it, and what the generator measured, read
within bounds and checked against the load asked for.

The trial is untrusted, so the generator only ever connects to this
machine's loopback address or to a socket named plainly in the trial's own
scratch directory, which it finds through the descriptor the harness opened
before the trial started (trial.SCRATCH_FD): whatever else a line announces
is relayed as a refusal, which the generator reports as its error. The
request bytes follow from a seed drawn for each trial, so a server cannot
answer without reading them; the generator gets it on its stdin, where the
trial cannot read it, not on its command line."""

import json
import re
import secrets
from typing import Annotated

import pydantic

from . import loadgen, protocol, trial
from .protocol import Count
from .toml_models import first_error

ANNOUNCEMENT = '{"listening"'
ADDRESS_LIMIT = 300
_TCP = re.compile(r"tcp:127\.0\.0\.1:([1-9][0-9]{0,4})")
PERCENTILES = ("min", "mean", "p50", "p90", "p99", "p999", "p9999", "max")
# A plot's points: HdrHistogram's ticks stop near 100 within a few hundred.
MAX_POINTS = 500


def seeded(load: dict[str, int]) -> dict[str, int]:
    """The load with a seed of its own for its request bytes, from the OS's randomness."""
    return {**load, "seed": secrets.randbits(64)}


def beside(load: dict[str, int]) -> trial.Beside:
    """The load generator for a served workload's trial, with its seeded load."""
    argv = [loadgen.path(), "--folder-fd", str(trial.SCRATCH_FD)]
    for name in ("connections", "size", "rate", "requests"):
        argv += [f"--{name}", str(load[name])]
    return trial.Beside(argv, relay, opening=f"{load['seed']}\n".encode())


def relay(line: str, scratch: str) -> str | None:
    """The address a server's line announces, for the generator; None for a
    line that announces nothing."""
    if not line.startswith(ANNOUNCEMENT):
        return None
    try:
        data = protocol.load(line)
    except ValueError:  # not JSON, or out of bounds
        return "refused: an announcement that is not a JSON object"
    address = data.get("listening") if isinstance(data, dict) else None
    if not isinstance(address, str) or len(address) > ADDRESS_LIMIT:
        return "refused: an announcement whose address is no short string"
    return for_generator(address, scratch) or (
        f"refused: {json.dumps(address)} is not on 127.0.0.1 or a plain name in the trial's scratch"
    )


def for_generator(address: str, scratch: str) -> str | None:
    """A TCP port on 127.0.0.1 as it is, a Unix socket named plainly in the
    scratch directory as unix:NAME; None for any other address."""
    if match := _TCP.fullmatch(address):
        return address if int(match[1]) <= 65535 else None
    kind, _, path = address.partition(":")
    folder, _, name = path.rpartition("/")
    return f"unix:{name}" if kind == "unix" and folder == scratch and plain(name) else None


def plain(name: str) -> bool:
    """A file name that stays in its folder: no /, no control character, not . or .."""
    return name not in ("", ".", "..") and not any(c == "/" or ord(c) < 0x20 or c == "\x7f" for c in name)


# A pair in JSON's list; the percentile a number, whole or not.
Point = Annotated[tuple[Annotated[float, pydantic.Field(ge=0, le=100)], Count], pydantic.Field(strict=False)]


class LoadRun(pydantic.BaseModel):
    """One run's load as the generator measured it (loadgen/loadgen.c)."""

    model_config = pydantic.ConfigDict(strict=True, frozen=True, extra="forbid")

    run: Count
    requests: Count
    bytes: Count
    connect_ns: Count  # opening every connection, before the schedule starts
    elapsed_ns: Count  # from the schedule's start to the last response
    send_lag_ns: Count  # the generator's own lateness: the most a request was sent after it was due
    latency_ns: dict[str, Count]
    distribution: list[Point] = pydantic.Field(max_length=MAX_POINTS)  # (percentile, latency)

    @pydantic.field_validator("latency_ns")
    @classmethod
    def _percentiles(cls, figures: dict[str, int]) -> dict[str, int]:
        if set(figures) != set(PERCENTILES):
            raise ValueError(f"latency_ns has {', '.join(PERCENTILES)}")
        return figures


def failure(load: trial.Exit | None) -> str:
    """Why the generator failed on its own, or '' (it did not, it never ran,
    or the time limit stopped it with the trial)."""
    if load is None or load.timed_out or (load.exit_code == 0 and load.signal is None):
        return ""
    lines = protocol.last_line(load.stdout)
    try:
        said = protocol.load(lines)
    except ValueError:
        said = None
    if isinstance(said, dict) and isinstance(said.get("error"), str):
        return f"the load generator: {said['error']}"
    how = f"signal {load.signal}" if load.signal is not None else f"exit status {load.exit_code}"
    stderr = load.stderr.strip().splitlines()
    return f"the load generator failed ({how}){': ' + stderr[-1] if stderr else ''}"


def runs(load: trial.Exit | None) -> list[LoadRun] | str:
    """Each run's load, or why the generator's output says none."""
    if load is None:
        return "announced no address: no load was served"
    if load.stdout_size > len(load.stdout):
        return f"the load generator's output passed the {trial.STDOUT_LIMIT >> 20} MiB cap"
    found = []
    for line in load.stdout.decode(errors="replace").splitlines():
        try:
            found.append(LoadRun.model_validate(protocol.load(line, fractions=True)))
        except ValueError as e:
            detail = first_error(e) if isinstance(e, pydantic.ValidationError) else str(e)
            return protocol.one_line(f"the load generator's output is malformed: {detail}")
    return found


def check(load: trial.Exit | None, served: int, asked: dict[str, int]) -> str:
    """'' if the generator served every run of the trial the load asked for,
    else the first thing it did not."""
    found = runs(load)
    if isinstance(found, str):
        return found
    if len(found) != served:
        return f"the server answered {served} runs, the load generator finished {len(found)}"
    for index, run in enumerate(found):
        if run.requests != asked["requests"] or run.bytes != asked["requests"] * asked["size"]:
            return (
                f"run {index + 1}: the load generator had {run.requests} requests and {run.bytes} bytes "
                f"echoed, expected {asked['requests']} and {asked['requests'] * asked['size']}"
            )
    return ""


def latency(run: LoadRun, asked: dict[str, int]) -> dict:
    """What a sample stores of its load: the load asked for and what it met."""
    return {
        "connections": asked["connections"],
        "rate": asked["rate"],
        "seed": asked["seed"],
        **run.model_dump(exclude={"run", "bytes"}),
        "distribution": [list(point) for point in run.distribution],
    }


def stored(latencies: list[dict | None], asked: dict[str, int]) -> trial.Exit | None:
    """The generator's exit as a stored trial's samples tell it, to verify
    the trial again (a merge's source); None where a sample has no load."""
    if any(latency is None for latency in latencies):
        return None
    fields = set(LoadRun.model_fields) - {"run", "bytes"}
    lines = [
        json.dumps(
            {"run": index, "bytes": latency.get("requests", 0) * asked["size"]}
            | {k: v for k, v in latency.items() if k in fields}
        )
        for index, latency in enumerate(latencies, 1)
    ]
    output = "".join(line + "\n" for line in lines).encode()
    return trial.Exit(
        wall_ns=0,
        user_ns=None,
        sys_ns=None,
        maxrss_kb=None,
        voluntary_switches=None,
        involuntary_switches=None,
        exit_code=0,
        signal=None,
        timed_out=False,
        stdout=output,
        stdout_size=len(output),
        stderr="",
    )
