"""The figures of a served workload's table (docs/protocol.md, "Servers
under load"): the rate the server sustained against the rate asked, and the
latency its load met at each percentile, the median over the row's timed
runs. A row whose server fell behind says so beside its rate: its latencies
were measured on the rate it managed, never on less load unflagged."""

import statistics

from ..records import TrialRecord
from ..results import CellResult
from ..stats import Summary, summarize
from .figures import scaled, seconds_text

# Below this share of the rate asked, a run did not keep up: the last of its
# requests came back later than a latency explains. (An honest run's share is
# near 1: of its N requests the last is due (N - 1) / rate after the start and
# comes back a latency later; 40 at 200 a second made 202 a second.)
SUSTAINED = 0.97
PERCENTILES = (("p50", "p50"), ("p99", "p99"), ("p99.9", "p999"), ("max", "max"))
# A run whose generator sent a request later than its server's p99: on a
# machine the two share, the server's CPU was taken from the generator too,
# and its figures are partly the generator's own lateness.
LATE = "late generator"


def trial_loads(trial: TrialRecord) -> list[dict]:
    """The load of each timed run of one trial, and the latency it met."""
    return [s.latency for s in trial.timed if s.latency]


def timed_loads(cell: CellResult) -> list[dict]:
    """The load of each timed run of the row's verified trials, and the latency it met."""
    return [load for t in cell.verified for load in trial_loads(t)]


def run_median(cell: CellResult, figure) -> float | None:
    """The median over the row's timed runs of figure(load); None for a row that served no load."""
    loads = timed_loads(cell)
    return statistics.median(figure(load) for load in loads) if loads else None


def achieved(latency: dict) -> float:
    """A run's requests over the time from the schedule's start to the last response."""
    return latency["requests"] / max(latency["elapsed_ns"], 1) * 1e9


def rate_text(cell: CellResult) -> str | None:
    loads = timed_loads(cell)
    if not loads:
        return None
    number, prefix = scaled(statistics.median(achieved(load) for load in loads))
    return f"{number}{prefix}/s"


def behind(cell: CellResult) -> bool:
    return any(achieved(load) < SUSTAINED * load["rate"] for load in timed_loads(cell))


def shortfall_text(cell: CellResult) -> str:
    """What a row that fell behind served, against the rate asked; '' for a row that kept up."""
    if not behind(cell):
        return ""
    asked = "".join(scaled(statistics.median(load["rate"] for load in timed_loads(cell))))
    return f"fell behind: {rate_text(cell)} of the {asked}/s asked"


def _ns_text(ns: float | None) -> str | None:
    return None if ns is None else seconds_text(ns / 1e9).replace(" ", "")


def latency_text(cell: CellResult, key: str) -> str | None:
    return _ns_text(run_median(cell, lambda load: load["latency_ns"][key]))


def send_lag_text(cell: CellResult) -> str | None:
    """The generator's own lateness, the median run's: the most it sent a request after it was due."""
    return _ns_text(run_median(cell, lambda load: load["send_lag_ns"]))


def late(trial: TrialRecord) -> bool | None:
    """Whether a timed run of the trial had a send lag above its p99; None for a trial that served no load."""
    loads = trial_loads(trial)
    return any(load["send_lag_ns"] > load["latency_ns"]["p99"] for load in loads) if loads else None


def late_text(cell: CellResult) -> str:
    """What a row whose generator was late saw; '' where it never was."""
    found = [t for t in cell.verified if late(t)]
    if not found:
        return ""
    lag = max(load["send_lag_ns"] for t in found for load in trial_loads(t))
    trials = f"{len(found)} of {len(cell.verified)} trials" if len(cell.verified) > 1 else "its trial"
    return (
        f"in {trials} the generator sent a request up to {seconds_text(lag / 1e9)} after it was due, "
        "more than the run's p99: its latencies are partly the generator's"
    )


def summary(cell: CellResult, key: str) -> Summary | None:
    """The latency at a percentile over the row's timed runs, in seconds."""
    return summarize(load["latency_ns"][key] / 1e9 for load in timed_loads(cell))


def median_run(cell: CellResult) -> dict | None:
    """The timed run whose p99 is the median of the row's (the lower of the
    two middle ones where there is an even number): one run's whole
    distribution, where the table gives each percentile's median over runs."""
    ranked = sorted(timed_loads(cell), key=lambda load: load["latency_ns"]["p99"])
    return ranked[(len(ranked) - 1) // 2] if ranked else None
