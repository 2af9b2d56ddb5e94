"""A served table's percentile plot on the HTML page: the latency each row's
load met against the percentile, as HdrHistogram plots it, drawn by
charts.line_chart.

The percentile's axis is HdrHistogram's, x = log10(1 / (1 - p)): each step
of x is a nine more (90%, 99%, 99.9%), so that the tail, where servers
differ, has as much room as the body. 100% lies at infinity: the max is
drawn at the right edge, the first step past the last percentile the run's
requests tell apart from the max (99% of 100 requests, 99.9% of 1,000)."""

import math

from ..results import CellResult
from . import charts, latency
from .aggregate import Table
from .figures import seconds_text

# The figures the generator reported beside its distribution (served.latency),
# marked on each line: (name, key, percentile).
MARKED = (
    ("min", "min", 0.0),
    ("p50", "p50", 50.0),
    ("p90", "p90", 90.0),
    ("p99", "p99", 99.0),
    ("p99.9", "p999", 99.9),
    ("p99.99", "p9999", 99.99),
)


def nines(percentile: float) -> float:
    """A percentile's place on HdrHistogram's axis: 0 for 0%, 1 for 90%, 2 for 99%
    (rounded, so that 99.9%'s is 3, not a hair past it)."""
    return round(math.log10(100 / (100 - percentile)), 9)


def percentile_figure(table: Table, styles: dict[str, tuple[int, int]]) -> str:
    """One line per row with a load: the distribution of its timed run with
    the median p99, marked at the generator's own percentiles and at the max."""
    runs = [(cell, run) for cell in table.rows if (run := latency.median_run(cell))]
    if not runs:
        return ""
    edge = max(math.floor(math.log10(max(run["requests"], 1))) + 1 for _, run in runs)
    marked = {nines(p): (name, key) for name, key, p in MARKED if nines(p) < edge}
    places = sorted({*marked, *range(1, edge)}) + [edge]  # every step of the axis is a tick

    def line(cell: CellResult, run: dict) -> charts.Line:
        row = cell.key.row
        figures = {place: (name, run["latency_ns"][key]) for place, (name, key) in marked.items()}
        figures[edge] = ("max", run["latency_ns"]["max"])
        where = f"{row}, {latency.shortfall_text(cell) or 'the run with the median p99'}"
        points = [_mark(where, *figures[place]) if place in figures else None for place in places]
        # Through the distribution's ticks and the marks alike, so that each mark lies on its line.
        trace = {min(nines(p), edge): ns for p, ns in run["distribution"] if p < 100}
        trace.update((place, ns) for place, (_, ns) in figures.items())
        label = row + (" !" if latency.behind(cell) else "") + (" ~" if latency.late_text(cell) else "")
        return charts.Line(label, points, *styles[row], trace=[(place, trace[place] / 1e9) for place in sorted(trace)])

    def percent(place: float) -> str:
        if place == edge:
            return "max"
        return f"{100 - 100 / 10**place:.{max(0, math.ceil(place - 1e-9) - 2)}f}%"

    titled = " ".join(part for part in (table.title, table.params_text, table.machine_text) if part)
    chart = charts.line_chart(
        places,
        [line(cell, run) for cell, run in runs],
        percent,
        seconds_text,
        "percentile",
        "latency",
        f"{titled}: latency by percentile",
        log_y=True,
    )
    behind = any(latency.behind(cell) for cell, _ in runs)
    late = any(latency.late_text(cell) for cell, _ in runs)
    caption = (
        "<strong>Latency by percentile</strong>, lower is better: one line per mechanism, the distribution of "
        "its timed run with the median p99 (the table gives each percentile's median over the runs), marked at "
        f"{', '.join(name for name, _ in marked.values())} and the max. The percentile on HdrHistogram's scale, "
        "each step a nine more; 100% cannot be placed, so the max is drawn at the right edge, a step past the "
        "last percentile the runs' requests resolve. Log scale on y."
        + (
            " A name with ! is a row that fell behind the rate asked, as ! in the table says: its line is the "
            "latency of the load it managed."
            if behind
            else ""
        )
        + (
            f" A name with ~ is a row marked {latency.LATE}: in some run the generator sent a request later than "
            "that run's p99, so its line is partly the generator's own lateness, not the server's."
            if late
            else ""
        )
    )
    return f'<figure class="percentiles">{chart}<figcaption>{caption}</figcaption></figure>'


def _mark(where: str, name: str, ns: int) -> charts.Point:
    """A figure the generator reported, marked on its row's line (no interval: it is one run's)."""
    seconds = ns / 1e9
    return charts.Point(seconds, seconds, seconds, f"{where}: {name} {seconds_text(seconds)}")
