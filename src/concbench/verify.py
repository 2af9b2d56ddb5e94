"""Whether a trial did what it was asked: what its answer must say, given
its workload's spec and its cell's parameters (Expectations), and the
verdict on the trial's process and parsed answer (protocol.py): a Status,
and one line saying what went wrong."""

from collections.abc import Callable
from dataclasses import dataclass, field

from . import served
from .cpus import counted
from .protocol import AnsweredSample, Refusal, Response, one_line
from .status import Status
from .trial import Exit
from .warmup import Steady


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
    load: dict[str, int] | None = None  # a served workload's load on each run (served.py)
    cpus: int = 0  # the CPUs the trial is confined to; 0: unconfined

    def known_result(self, ops: int | None) -> dict[str, int]:
        """The result expected of a run that counted ops; {} for ops the spec has none for."""
        try:
            return self.result(ops)
        except ArithmeticError:
            return {}

    def stored_result(self, answer: Response | None) -> dict[str, int]:
        """The expectation stored with a trial: a rate workload's is that of its
        last run, and unknown without one."""
        if self.batch is None:
            return self.result(None)
        ops = answer.runs[-1].ops if answer else None
        return self.known_result(ops) if ops is not None else {}


def verdict(exit: Exit, answer: Response | Refusal | str, expect: Expectations) -> tuple[Status, str]:
    """Classify a finished trial; the detail says what went wrong, in one line.
    A resource limit changes what the trial could do, so it comes first; what a
    trial left running is told whatever else went wrong."""
    if exit.limit_hit:
        return Status.LIMIT, one_line(exit.limit_hit + _strays(exit, "; "))
    status, detail = _classify(exit, answer, expect)
    if status == Status.OK and exit.strays:
        return Status.STRAY, _strays(exit, "")
    return status, one_line(detail + _strays(exit, "; "))


def _strays(exit: Exit, separator: str) -> str:
    if not exit.strays:
        return ""
    processes = "process" if exit.strays == 1 else "processes"
    return f"{separator}left {exit.strays} {processes} running when it exited (killed)"


def _classify(exit: Exit, answer: Response | Refusal | str, expect: Expectations) -> tuple[Status, str]:
    # Killed at its deadline, a server resets the generator's connections:
    # whatever the generator then says, the trial timed out.
    if exit.timed_out:
        return Status.TIMEOUT, "killed at its time limit"
    # A generator that failed stopped the server waiting for its load: its
    # reason is the trial's.
    if expect.load is not None and (failed := served.failure(exit.beside)):
        return Status.INVALID, failed
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
    beyond = _beyond_cpus(exit, answer, expect.cpus)
    if beyond:
        return Status.INVALID, beyond
    for index, sample in enumerate(answer.runs):
        mismatch = _mismatch(sample, expect)
        if mismatch:
            return Status.INVALID, f"run {index + 1}: {mismatch}"
    if expect.load is not None and (unserved := served.check(exit.beside, len(answer.runs), expect.load)):
        return Status.INVALID, unserved
    return Status.OK, ""


# CPU time a trial confined to k CPUs may show beyond k x its wall time: the
# clocks' rounding. wait4's figures are exact to a microsecond; a kit's own
# may come from times(2), whose user and system time each tick every 10 ms.
PROCESS_CPU_SLACK = (0.02, 5_000_000)  # a share of k x wall, and nanoseconds
RUN_CPU_SLACK = (0.05, 20_000_000)


def _beyond_cpus(exit: Exit, answer: Response, cpus: int) -> str:
    """'' if a confined trial's runtime sized itself to at most its CPUs and
    its CPU time, the process's and each run's, shows it ran on no more;
    else what shows it did not."""
    if not cpus:
        return ""
    sized = answer.runtime.parallelism
    if sized is None:
        return f"confined to {counted(cpus)}, its kit did not say how many its runtime sized itself to (parallelism)"
    if sized > cpus:
        return f"confined to {counted(cpus)}, its runtime sized itself to {sized}"
    if exit.user_ns is not None and exit.sys_ns is not None:
        over = _over(exit.user_ns + exit.sys_ns, exit.wall_ns, cpus, PROCESS_CPU_SLACK)
        if over:
            return f"its process {over}"
    for index, run in enumerate(answer.runs):
        over = _over(run.user_ns + run.sys_ns, run.wall_ns, cpus, RUN_CPU_SLACK)
        if over:
            return f"run {index + 1} {over}"
    return ""


def _over(cpu_ns: int, wall_ns: int, cpus: int, slack: tuple[float, int]) -> str:
    share, least = slack
    if cpu_ns <= cpus * wall_ns * (1 + share) + least:
        return ""
    return (
        f"used {cpu_ns / 1e9:.6f} s of CPU in {wall_ns / 1e9:.6f} s, "
        f"{cpu_ns / wall_ns:.2f} CPUs at once where it was confined to {cpus}"
    )


def _misordered(runs: list[AnsweredSample], expect: Expectations) -> str:
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


def _mismatch(sample: AnsweredSample, expect: Expectations) -> str:
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


def _bad_units(sample: AnsweredSample, expect: Expectations) -> str:
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
