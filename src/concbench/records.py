"""What a stored run and a finished trial are, as the runner makes them, the
store keeps them and the reports read them."""

from dataclasses import dataclass, field

from .status import Status


@dataclass(frozen=True)
class RunInfo:
    """A stored run: what was asked, on which machine, and how far it got."""

    id: int
    started: str
    finished: str | None
    state: str  # running | complete | interrupted | planned
    request: dict
    environment: dict
    uuid: str | None = None

    @property
    def repeats(self) -> int | None:
        """The run this one repeats (run --repeat-check), as its stored request says."""
        first = self.request.get("repeat_of")
        return first if isinstance(first, int) and not isinstance(first, bool) else None


@dataclass(frozen=True)
class CellKey:
    """One cell: a workload with one parameter set, on one mechanism of one runtime."""

    workload: str
    runtime: str
    mechanism: str
    params: tuple[tuple[str, int | float | str], ...]
    options: tuple[str, ...] = ()
    # The CPUs its trials are confined to (docs/usage.md, "CPUs"); 0: every
    # CPU the harness may use, unconfined. Not a parameter of the work: the
    # kit is told it apart, and it leads the parameters in titles and ids.
    cpus: int = 0

    @property
    def runtime_label(self) -> str:
        """The runtime as its rows name it: 'ruby', or 'ruby+yjit' with options;
        each has a memory floor of its own."""
        return "+".join((self.runtime, *self.options))

    @property
    def row(self) -> str:
        """The row label: 'ruby/thread', or 'ruby+yjit/thread' with options."""
        return f"{self.runtime_label}/{self.mechanism}"

    @property
    def params_text(self) -> str:
        return " ".join(f"{k}={v}" for k, v in self.shown_params)

    @property
    def id(self) -> str:
        return (
            f"{self.workload} {self.row} {' '.join(f'{k}={v}' for k, v in (*self._cpus_param, *sorted(self.params)))}"
        )

    @property
    def shown_params(self) -> tuple[tuple[str, int | float | str], ...]:
        """Its parameters as its title shows them, its CPUs first (-p cpus=1 filters by them)."""
        return (*self._cpus_param, *self.params)

    @property
    def _cpus_param(self) -> tuple[tuple[str, int], ...]:
        return (("cpus", self.cpus),) if self.cpus else ()


@dataclass(frozen=True)
class Sample:
    """One timed execution of the work inside a trial process, measured by the
    kit (a "run" in the protocol's JSON and in --runs: docs/formats.md, "Words"),
    as the store keeps it: protocol.AnsweredSample once verified, or read back from a
    database whose older samples lack peak_live."""

    warmup: bool
    wall_ns: int
    user_ns: int
    sys_ns: int
    units: int
    result: dict[str, int]
    ops: int | None = None  # rate workloads: operations the kit's loop counted
    peak_live: int | None = None  # most units alive at once (None: stored before it was counted)
    evidence: dict[str, int | None] = field(default_factory=dict)  # the spec's [evidence] counts
    # A calibrated run repeats the work (calibration.py): its figures are then
    # the mean of that many repetitions, each verified.
    repeat: int = 1
    # A served workload's run: the load it served and the latency it met (served.latency).
    latency: dict | None = None


@dataclass(frozen=True)
class TrialRecord:
    cell: CellKey
    trial: int  # index of the trial within its cell
    status: Status
    detail: str
    expected: dict[str, int]
    wall_ns: int | None = None  # the process, seen by the harness (wait4 and its clock)
    user_ns: int | None = None
    sys_ns: int | None = None
    maxrss_kb: int | None = None
    tree_rss_kb: int | None = None
    voluntary_switches: int | None = None  # wait4's context switches of the trial
    involuntary_switches: int | None = None
    exit_code: int | None = None
    signal: int | None = None
    strays: int | None = None  # processes still running after the trial exited, killed by the spawner
    runtime_info: dict = field(default_factory=dict)
    stderr: str = ""
    samples: tuple[Sample, ...] = ()
    machine: str = ""  # the name of the machine that ran it ('' in runs stored before machines were)
    machine_id: str = ""
    cpu_set: str = ""  # the CPUs a confined trial ran on, as the kernel lists them ("0-1"); '' unconfined
    # Its place in the order its run's trials finished (None: unknown), which
    # tells the trials of another cell that ran nearest to it (pairs.py).
    seq: int | None = None

    @property
    def peak_kb(self) -> int | None:
        """Peak memory: the process tree's where the kit counted it, never less than wait4's."""
        figures = [f for f in (self.maxrss_kb, self.tree_rss_kb) if f is not None]
        return max(figures) if figures else None

    @property
    def memory_method(self) -> str:
        return "tree" if self.tree_rss_kb is not None else "wait4"

    @property
    def timed(self) -> tuple[Sample, ...]:
        return tuple(s for s in self.samples if not s.warmup)


# The figures of a trial's process, as wait4 and the spawner saw it, in the
# order the reports list them ("process" in JSON, process_* in CSV).
PROCESS_FIGURES = (
    "wall_ns",
    "user_ns",
    "sys_ns",
    "maxrss_kb",
    "exit_code",
    "signal",
    "voluntary_switches",
    "involuntary_switches",
    "strays",
)


@dataclass(frozen=True)
class Machine:
    """Who ran a trial: the name it goes by and its stable id (environment.py)."""

    name: str
    id: str

    @classmethod
    def of(cls, environment: dict) -> "Machine":
        return cls(environment.get("machine", ""), environment.get("machine_id", ""))


def row_parts(row: str) -> tuple[str, str]:
    """The runtime and the mechanism of a row label (CellKey.row), its options left out."""
    runtime, _, mechanism = row.partition("/")
    return runtime.split("+")[0], mechanism


def row_runtime_label(row: str) -> str:
    """The runtime of a row label (CellKey.row) with its options: 'ruby+yjit'."""
    return row.partition("/")[0]


@dataclass(frozen=True)
class Note:
    """What a reader of a row must know, from its runtime's manifest: why its
    units ran one after another, say."""

    workload: str
    row: str
    text: str


@dataclass(frozen=True)
class Skipped:
    """A cell that does not run: n/a (cannot be expressed) or unavailable here."""

    workload: str
    row: str
    kind: str  # "n/a" or "unavailable"
    reason: str
    params: str = ""  # the parameter set it was planned with; "" for every set


@dataclass(frozen=True)
class Calibration:
    """How many repetitions of the work a cell's timed runs make, from one
    untimed trial that measured a run (calibration.py)."""

    repeat: int
    run_ns: int | None = None  # the calibrating run's wall time; None where it failed
    trial_ns: int | None = None  # the calibrating trial's, start-up included
    detail: str = ""  # '' if measured in its run; else where it comes from ('run 3'), or why it failed


@dataclass(frozen=True)
class Probe:
    """The machine's speed at one moment of a run: how long a fixed amount of
    pure CPU work took in the harness's own process, between trials (noise.py)."""

    at_ns: int  # when, in nanoseconds since the epoch
    work_ns: int  # its wall time


@dataclass(frozen=True)
class StoredRun:
    """A stored run as a report reads it: its trials and what was stored with
    them, loaded from the store by the report's caller."""

    run: RunInfo
    trials: list[TrialRecord]
    skipped: list[Skipped]
    notes: list[Note]
    floors: dict[str, int | None]  # each runtime's memory floor (kB), None where it could not be measured
    probes: list[Probe]
    repeated: list[TrialRecord] | None  # the trials of the run it repeats; None if it repeats none


@dataclass(frozen=True)
class MachineTrials:
    """A machine's trials in the latest run it took part in (report --machines)."""

    name: str
    run: RunInfo
    environment: dict  # the machine's fingerprint: the run's, or its worker's ({} where none was stored)
    trials: list[TrialRecord]
