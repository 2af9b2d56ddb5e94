"""The charts on a run's HTML page, drawn by charts.py: a line chart of time
(or rate), or a served workload's latency, and one of peak memory per
sweep, and two bar charts per table (a served table's percentile plot is
html_latency.py's); each with a caption that says what its whiskers are."""

from collections.abc import Callable

from ..cpus import counted
from ..display import html_safe
from ..formatting import percent
from ..records import row_runtime_label
from ..results import CellResult
from ..stats import Summary
from . import charts, latency
from .aggregate import Sweep, Table, sweeps
from .figures import megabytes_text, ratio_text, reading, seconds_text
from .html_page import section
from .scaling import Scaling, Speedup

# Scaling: a line chart of speed-up over CPUs per parameter set that ran at
# 1 CPU and more, then a line chart per sweep, each row's look the same in every one


def scaling(tables: list[Table], by_cpus: list[Scaling]) -> str:
    """Speed-up over CPUs for each parameter set that has it; then line charts of time (or rate), or
    of latency, and one of peak memory for each of the tables' sweeps."""
    looks = styles(tables)
    figures = [_cpus_figure(found, looks) for found in by_cpus]
    figures += [f for sweep in sweeps(tables) for f in _sweep_figures(sweep, looks)]
    figures = [f for f in figures if f]
    return section("Scaling", "Scaling", *figures) if figures else ""


def styles(tables: list[Table]) -> dict[str, tuple[int, int]]:
    """Each row's look in every chart of the page: its runtime's colour, and
    a marker of its own among its runtime's rows."""
    rows = list(dict.fromkeys(r.key.row for t in tables for r in t.rows))
    runtimes = list(dict.fromkeys(row_runtime_label(row) for row in rows))
    looks, used = {}, dict.fromkeys(runtimes, 0)
    for row in rows:
        runtime = row_runtime_label(row)
        looks[row], used[runtime] = (runtimes.index(runtime), used[runtime]), used[runtime] + 1
    return looks


# A speed-up chart's y axis ends at this many times the ideal at its most
# CPUs: a whisker of a few noisy pairs may reach far beyond, and would
# squeeze every line into the bottom of the chart.
CUT_ABOVE_IDEAL = 2


def _cpus_figure(found: Scaling, styles: dict[str, tuple[int, int]]) -> str:
    """A line per row of its speed-up at each CPU count against its own
    cpus=1 (x1 there, by definition), and the ideal, speed-up = CPUs, dashed."""
    xs = (1, *found.counts)
    lines = [
        charts.Line(
            row.row,
            [
                charts.Point(1, 1, 1, f"{row.row}, 1 CPU: x1, what it is set against"),
                *map(_speedup_point, row.speedups),
            ],
            *styles[row.row],
        )
        for row in found.rows
        if any(row.speedups)
    ]
    if not lines:
        return ""
    ideal = charts.Line("ideal", [None] * len(xs), trace=[(k, k) for k in xs], guide=True)
    factors = [s.factor for row in found.rows for s in row.speedups if s]
    # Up to twice the ideal, or the highest median: a whisker may be cut, a median never.
    log, most = charts.wide(xs), max(CUT_ABOVE_IDEAL * xs[-1], *(f.median for f in factors))
    table = found.first
    chart = charts.line_chart(
        xs,
        [*lines, ideal],
        _parameter_text,
        lambda factor: f"x{factor:g}",
        "CPUs",
        "median speed-up against 1 CPU",
        f"{table.title} {found.params_text}: speed-up over CPUs" + _on(table.machine_text),
        log,
        log,
        y_most=most,
    )
    rate = "rate at k / rate at 1" if table.rate_format else "time at 1 / time at k"
    caption = (
        f"<strong>{html_safe(table.title)}</strong> ({html_safe(table.workload)}"
        + (f", {html_safe(found.params_text)}" if found.params_text else "")
        + (f", {html_safe(table.machine_text)}" if table.machine_text else "")
        + f"): median speed-up over CPUs, each mechanism against itself at 1 CPU ({rate}, each trial paired "
        "with its nearest neighbour at 1 CPU), one line per mechanism; higher is better. Dashed: the ideal, "
        "speed-up = CPUs (efficiency 100%); a line that stays at x1 did not scale. "
        + _whiskers(factors)
        + (f" A whisker beyond x{most:g} is cut there." if any(f.bounds[1] > most for f in factors) else "")
        + (" Log scale on x and y." if log else "")
    )
    return f'<figure class="scaling cpus">{chart}<figcaption>{caption}</figcaption></figure>'


def _speedup_point(found: Speedup | None) -> charts.Point | None:
    if found is None:
        return None
    tip = (
        f"{found.cell.key.row}, {counted(found.cpus)}: speed-up {_summary_tip(found.factor, ratio_text)} pairs; "
        f"efficiency {percent(found.efficiency.median)}"
    )
    return charts.Point(found.factor.median, *found.factor.bounds, tip)


def _sweep_figures(sweep: Sweep, styles: dict[str, tuple[int, int]]) -> list[str]:
    """The sweep's time (or rate), or, for a served workload, whose time is
    its load's duration, its latency at p99 and at p50; then its peak memory."""
    if not sweep.tables[0].served:
        return [_sweep_figure(sweep, styles), _sweep_memory_figure(sweep, styles)]
    return [*(_sweep_latency_figure(sweep, styles, key) for key in LATENCIES), _sweep_memory_figure(sweep, styles)]


def _sweep_figure(sweep: Sweep, styles: dict[str, tuple[int, int]]) -> str:
    """The sweep's time (or rate) over its parameter."""
    text, what, better = reading(sweep.tables[0])
    if any(t.delay for t in sweep.tables):  # the units sleep by design: plot what they cost, as the bars do
        what = f"overhead ({what} minus the delay every unit slept)"
    return _sweep_chart(sweep, styles, "time", what, text, better, lambda t, cell: t.figure(cell), _point)


def _sweep_memory_figure(sweep: Sweep, styles: dict[str, tuple[int, int]]) -> str:
    """The sweep's peak memory over its parameter: what holding more units costs."""

    def point(table: Table, row: str, where: str, _: Callable[[float], str]) -> charts.Point | None:
        cell = next((c for c in table.rows if c.key.row == row and c.memory_kb), None)
        if cell is None:
            return None
        memory = cell.memory_kb  # plotted in MB, as the memory bars are
        tip = f"{row}, {where}: {_summary_tip(memory, megabytes_text)}"
        return charts.Point(memory.median / 1024, *(b / 1024 for b in memory.bounds), tip)

    def megabytes(mb: float) -> str:
        return f"{mb:g} MB"

    return _sweep_chart(
        sweep, styles, "memory", "peak memory", megabytes, "lower is better", lambda t, cell: cell.memory_kb, point
    )


# A chart each, not p50 dashed beside p99: the charts name each line at its
# end, and one chart would name every row twice; on a log scale of its own,
# each keeps its rows apart where p99 may be a hundred times p50.
LATENCIES = ("p99", "p50")


def _sweep_latency_figure(sweep: Sweep, styles: dict[str, tuple[int, int]], key: str) -> str:
    """The sweep's latency at a percentile over its parameter: the median over
    each row's runs, as the table gives it. A row that fell behind the rate
    asked has no point: its latency there was met on less load."""

    def figure(_: Table, cell: CellResult) -> Summary | None:
        return None if latency.behind(cell) else latency.summary(cell, key)

    def point(table: Table, row: str, where: str, text: Callable[[float], str]) -> charts.Point | None:
        cell = next((c for c in table.rows if c.key.row == row), None)
        found = figure(table, cell) if cell else None
        if found is None:
            return None
        return charts.Point(found.median, *found.bounds, f"{row}, {where}: {_summary_tip(found, text)}")

    better = "lower is better; a line has no point where its row fell behind the rate asked (less load)"
    return _sweep_chart(sweep, styles, f"latency {key}", f"{key} latency", seconds_text, better, figure, point)


def _sweep_chart(
    sweep: Sweep,
    styles: dict[str, tuple[int, int]],
    kind: str,
    what: str,
    text: Callable[[float], str],
    better: str,
    figure: Callable[[Table, CellResult], Summary | None],
    point: Callable[[Table, str, str, Callable[[float], str]], charts.Point | None],
) -> str:
    """A line per mechanism of figure(table, cell) over the sweep's values,
    each point made by point(table, row, where, text); kind classes the figure."""
    rows = list(dict.fromkeys(r.key.row for t in sweep.tables for r in t.rows if figure(t, r)))
    if not rows:
        return ""
    lines = [
        charts.Line(
            row, [point(t, row, f"{sweep.param}={v}", text) for t, v in zip(sweep.tables, sweep.values)], *styles[row]
        )
        for row in rows
    ]
    ys = [p.y for line in lines for p in line.points if p]
    log_x, log_y = charts.wide(sweep.values), charts.wide(ys)
    chart = charts.line_chart(
        sweep.values,
        lines,
        _parameter_text,
        text,
        sweep.param,
        f"median {what}",
        f"{sweep.title}: median {what} over {sweep.param}" + _on(sweep.machine_text),
        log_x,
        log_y,
    )
    scales = [axis for axis, log in (("x", log_x), ("y", log_y)) if log]
    summaries = [figure(t, r) for t in sweep.tables for r in t.rows if figure(t, r)]
    caption = (
        f"<strong>{html_safe(sweep.title)}</strong> ({html_safe(sweep.workload)}"
        + (f", {html_safe(sweep.fixed)}" if sweep.fixed else "")
        + (f", {html_safe(sweep.machine_text)}" if sweep.machine_text else "")
        + f"): median {what} over {html_safe(sweep.param)}, "
        f"one line per mechanism; {better}. {_whiskers(summaries)}"
        + (f" Log scale on {' and '.join(scales)}." if scales else "")
    )
    return f'<figure class="scaling {kind}">{chart}<figcaption>{caption}</figcaption></figure>'


def _parameter_text(value: float) -> str:
    """A swept parameter's value on an axis: 1,000,000, not 1e+06."""
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:g}"


def _point(table: Table, row: str, where: str, text: Callable[[float], str]) -> charts.Point | None:
    cell = next((c for c in table.rows if c.key.row == row and table.figure(c)), None)
    if cell is None:
        return None
    figure, shift = table.figure(cell), table.delay if not table.rate_format else 0.0
    return charts.Point(
        figure.median - shift,
        *(b - shift for b in figure.bounds),
        f"{row}, {where}: {_overhead_tip(figure.median - shift, shift)}{_summary_tip(figure, text)}",
    )


# A table's bar charts: its time (or rate) and its peak memory


def table_charts(table: Table) -> str:
    rows = [r for r in table.rows if table.figure(r)]
    if not rows:
        return ""
    # A served row's real time is its load's length: its percentile plot
    # (html_latency.py) stands in for the time chart.
    time = "" if table.served else _time_chart(table, rows)
    return f'<div class="charts">{time}' + _memory_chart(table, [r for r in rows if r.memory_kb]) + "</div>"


def _time_chart(table: Table, rows: list[CellResult]) -> str:
    text, what, better = reading(table)
    shift = table.delay if not table.rate_format else 0.0  # the overhead, as the seed charts it
    summaries = [table.figure(r) for r in rows]
    bars = [
        charts.Bar(
            r.key.row,
            s.median - shift,
            s.bounds[0] - shift,
            s.bounds[1] - shift,
            text(s.median - shift),
            f"{r.key.row}: {_overhead_tip(s.median - shift, shift)}{_summary_tip(s, text)}",
        )
        for r, s in zip(rows, summaries)
    ]
    name = f"overhead: {what} minus the {seconds_text(shift)} every unit slept" if shift else f"median {what}"
    chart = charts.bar_chart(bars, text, f"{_titled(table)}: {name}", group_starts(rows))
    return (
        f'<figure class="time">{chart}<figcaption><strong>{html_safe(name[0].upper() + name[1:])}</strong>, '
        f"{better}. {_whiskers(summaries)}</figcaption></figure>"
    )


def _overhead_tip(overhead: float, delay: float) -> str:
    return f"overhead {seconds_text(overhead)}; real time: " if delay else ""


def _memory_chart(table: Table, rows: list[CellResult]) -> str:
    if not rows:
        return ""
    bars = [
        charts.Bar(
            r.key.row,
            r.memory_kb.median / 1024,
            *(b / 1024 for b in r.memory_kb.bounds),
            megabytes_text(r.memory_kb.median) + ("*" if r.memory_is_tree else ""),
            f"{r.key.row}: {_summary_tip(r.memory_kb, megabytes_text)}",
        )
        for r in rows
    ]
    chart = charts.bar_chart(bars, lambda mb: f"{mb:g} MB", f"{_titled(table)}: peak memory", group_starts(rows))
    tree = (
        " * the whole process tree (the parent's peak and each child's private memory)."
        if any(r.memory_is_tree for r in rows)
        else ""
    )
    return (
        f'<figure class="memory">{chart}<figcaption><strong>Peak memory</strong> (median peak RSS of a '
        f"trial process), lower is better. {_whiskers([r.memory_kb for r in rows])}{tree}</figcaption></figure>"
    )


# What both kinds share (and the rows of the results' tables: group_starts)


def group_starts(rows) -> set[int]:
    """Where a runtime's rows begin, after another runtime's: set apart in tables and charts."""
    runtimes = [r.key.runtime_label for r in rows]
    return {i for i in range(1, len(runtimes)) if runtimes[i] != runtimes[i - 1]}


def _titled(table: Table) -> str:
    """A chart's label: the table's title, its parameters and its machine."""
    return f"{table.title} {table.params_text}" + _on(table.machine_text)


def _on(machine_text: str) -> str:
    return f" {machine_text}" if machine_text else ""


def _summary_tip(figure: Summary, text: Callable[[float], str]) -> str:
    low, high = figure.bounds
    interval = ("95% CI (t)" if figure.by_t else "95% CI") if figure.ci else "range"
    return f"median {text(figure.median)}, {interval} {text(low)} – {text(high)}, n={figure.n}"


def _whiskers(summaries: list[Summary]) -> str:
    """What the whiskers of a chart stand for: Summary.bounds of each figure."""
    with_ci = sum(1 for s in summaries if s.ci)
    if with_ci == len(summaries):
        return "Whiskers: the 95% confidence interval of the median."
    if with_ci == 0:
        return "Whiskers: the min–max range (fewer than 3 values: too few for a 95% confidence interval)."
    return (
        "Whiskers: the 95% confidence interval of the median, or the min–max range where a row has fewer than 3 values."
    )
