"""The figures of a served workload's table (docs/protocol.md, "Servers
under load"): the rate the server sustained against the rate asked, and the
latency its load met at each percentile, the median over the row's timed
runs. A row whose server fell behind says so beside its rate: its latencies
were measured on the rate it managed, never on less load unflagged."""

import statistics

from ..results import CellResult
from .figures import scaled, seconds_text

# Below this share of the rate asked, a run did not keep up: the last of its
# requests came back later than a latency explains. (An honest run's share is
# a little below 1: the schedule's last request is due 1/rate before its end.)
SUSTAINED = 0.97
PERCENTILES = (("p50", "p50"), ("p99", "p99"), ("p99.9", "p999"), ("max", "max"))


def _loads(cell: CellResult) -> list[dict]:
    return [s.latency for t in cell.verified for s in t.timed if s.latency]


def achieved(latency: dict) -> float:
    """A run's requests over the time from the schedule's start to the last response."""
    return latency["requests"] / max(latency["elapsed_ns"], 1) * 1e9


def rate_text(cell: CellResult) -> str | None:
    loads = _loads(cell)
    if not loads:
        return None
    number, prefix = scaled(statistics.median(achieved(load) for load in loads))
    return f"{number}{prefix}/s"


def behind(cell: CellResult) -> bool:
    return any(achieved(load) < SUSTAINED * load["rate"] for load in _loads(cell))


def latency_text(cell: CellResult, key: str) -> str | None:
    loads = _loads(cell)
    if not loads:
        return None
    return seconds_text(statistics.median(load["latency_ns"][key] for load in loads) / 1e9).replace(" ", "")
