"""The HTML report: one self-contained page (inline CSS and SVG; no script,
nothing fetched): the run and its environment, the diagnosis, an overview of
ratios, the scaling of its sweeps, a table and two charts per workload and
parameter set, and the failed trials. Also the page of machines side by
side (report --machines): a heatmap of their ratios per table.

Every text that came from a runtime or a user (names, parameters, stderr,
details, the environment) goes through _e. The markup is also well-formed
XML, so that the tests can parse it strictly."""

import math
import re
from collections.abc import Callable
from html import escape

from ..records import TrialRecord
from ..results import CellResult
from ..stats import Summary
from . import charts, heatmap
from .aggregate import Sweep, Table, sweeps
from .columns import TRIALS, Column, page_columns
from .diagnosis import Diagnosis
from .document import RunReport
from .figures import (
    LEGEND,
    failures_text,
    megabytes_text,
    ratio_text,
    reading,
    seconds_text,
    verified_text,
)
from .machines import READING, MachinesReport, SideBySide
from .stability import Stability


def _e(value) -> str:
    return escape(str(value), quote=True)


def render(report: RunReport) -> str:
    styles = _styles(list(dict.fromkeys(r.key.row for t in report.tables for r in t.rows)))
    sections = {
        "Diagnosis": _diagnosis(report.diagnosis),
        "Overview": _overview(report.tables),
        "Scaling": _scaling(sweeps(report.tables), styles),
        "Results": _results(report.tables),
        "Repeat check": _stability(report.repeat_check),
        "Failed trials": _failures(report.failed),
        "How to read": _reading(),
    }
    shown = {name: section for name, section in sections.items() if section}
    return _page(f"concbench run {report.run.id}", [_header(report, list(shown)), *shown.values()])


def _page(title: str, body: list[str]) -> str:
    """A self-contained page: its style inline, nothing fetched."""
    return (
        f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8"/>\n'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"/>\n'
        f"<title>{_e(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


# Figures as text


def _styles(rows: list[str]) -> dict[str, tuple[int, int]]:
    """Each row's look in every chart: its runtime's colour, and a marker of
    its own among its runtime's rows."""
    runtimes = list(dict.fromkeys(row.split("/")[0] for row in rows))
    looks, used = {}, dict.fromkeys(runtimes, 0)
    for row in rows:
        runtime = row.split("/")[0]
        looks[row], used[runtime] = (runtimes.index(runtime), used[runtime]), used[runtime] + 1
    return looks


def _anchor(table: Table) -> str:
    return "t-" + _slug(table.label)


# The page's parts


def _section(name: str, title: str, *parts: str) -> str:
    """A top-level section; its id comes from its name, as the links of the header's navigation do."""
    return f'<section id="{_slug(name)}">\n<h2>{_e(title)}</h2>\n' + "\n".join(p for p in parts if p) + "\n</section>"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-").lower()


def _header(report: RunReport, sections: list[str]) -> str:
    run, failed = report.run, report.failed
    facts = [
        ("started", run.started),
        ("finished", run.finished or "–"),
        ("state", run.state),
        ("profile", run.request.get("profile", "?")),
        ("asked for", _selection(run.request)),
        ("trials", f"{len(report.trials) - len(failed)} of {len(report.trials)} verified"),
    ]
    if report.speed:
        facts.append(("machine speed", report.speed.text()))
    alert = (
        f'<p class="alert">{len(failed)} of {len(report.trials)} trials failed or did not verify: '
        '<a href="#failed-trials">the failed trials</a>. A trial that is not verified never enters '
        "a figure.</p>"
        if failed
        else ""
    )
    nav = " · ".join(f'<a href="#{_slug(name)}">{_e(name)}</a>' for name in sections)
    return (
        f'<header>\n<h1>concbench <span class="run">run {run.id}</span></h1>\n<div class="about">'
        + _facts("Run", facts)
        + _facts("Environment", report.environment)
        + f"</div>\n{alert}\n<nav>{nav}</nav>\n</header>"
    )


def _facts(caption: str, pairs: list[tuple[str, str]]) -> str:
    rows = "".join(f"<tr><th>{_e(label)}</th><td>{_e(value)}</td></tr>" for label, value in pairs)
    return f'<table class="facts"><caption>{_e(caption)}</caption>{rows}</table>'


def _selection(request: dict) -> str:
    """What the run command asked for, beyond the profile."""
    parts = [
        f"{key} {', '.join(map(str, request[key]))}"
        for key in ("workloads", "runtimes", "mechanisms", "options")
        if request.get(key)
    ]
    parts += [f"{name}={','.join(map(str, values))}" for name, values in (request.get("params") or {}).items()]
    parts += [
        f"{key} {request[key]}"
        for key in ("trials", "warmup", "runs", "timeout", "target", "max_trials", "budget", "min_run", "repeat_of")
        if request.get(key) is not None
    ]
    return "; ".join(parts) or "everything"


def _diagnosis(found: Diagnosis | None) -> str:
    """The diagnosis: its paragraphs as a list between its heading and its summary."""
    if not found:
        return ""
    items = "<ul>" + "".join(f"<li>{_e(paragraph)}</li>" for paragraph in found.paragraphs) + "</ul>"
    return _section("Diagnosis", "Diagnosis", f"<p>{_e(found.heading)}</p>", items, f"<p>{_e(found.summary)}</p>")


def _stability(found: Stability | None) -> str:
    """A repeat check's summary and the cells that moved most."""
    if not found:
        return ""
    rows = "".join(f"<tr><td>{_e(cell)}</td><td>{difference:.1%}</td></tr>" for cell, difference in found.worst)
    worst = (
        f'<table class="facts"><caption>the {len(found.worst)} cells that moved most</caption>'
        f"<tr><th>cell</th><th>difference</th></tr>{rows}</table>"
    )
    return _section("Repeat check", "Repeat check", f"<p>{_e(found.summary())}</p>", worst)


# The overview: a heatmap of every table's ratios, wrapped by runtime

# A heatmap's columns at most, so that its text stays legible at the page's
# width; more mechanisms wrap into further heatmaps, whole runtimes each.
OVERVIEW_COLUMNS = 10


def _overview(tables: list[Table]) -> str:
    shown = [t for t in tables if t.rows]
    if not shown:
        return ""
    rows = [(t.label + (" [ops/s]" if t.rate_format else ""), "#" + _anchor(t)) for t in shown]
    cells = [{cell.key.row: _heat(table, cell) for cell in table.rows} for table in shown]
    heatmaps = _heatmaps(rows, cells, "ratio of every cell to its table's baseline")
    return _section(
        "Overview",
        "Overview: ratio to the baseline",
        f'<figure class="heatmap-figure">{heatmaps}'
        "<figcaption>Each cell: the median of a mechanism (column) divided by the median of "
        "its table's baseline (outlined, x1.00), for every table (row; click it for its details). "
        f"{HEAT_COLOURS} (n/a or unavailable). Past {OVERVIEW_COLUMNS} mechanisms the columns wrap, "
        "whole runtimes at a time.</figcaption></figure>",
    )


# How to read a heatmap's cells, in the caption of every one.
HEAT_COLOURS = (
    "For time tables a ratio below 1 is faster; for rate tables, marked [ops/s], a ratio "
    "above 1 is. The colour says which, whatever the kind of table: blue is better than the "
    "baseline, red worse, on a log scale (full colour at 100 times); grey: no verified trial; "
    "blank: the mechanism did not run there"
)


def _heatmaps(
    rows: list[tuple[str, str]], cells: list[dict[str, heatmap.Heat]], label: str, legend: bool = True
) -> str:
    """Heatmaps of rows (label, link) by mechanisms, each row's cells by
    mechanism: past OVERVIEW_COLUMNS mechanisms they wrap into further
    heatmaps, whole runtimes at a time, the legend (if asked) under the last."""
    columns, groups = _by_runtime(list(dict.fromkeys(row for row_cells in cells for row in row_cells)))
    parts, heatmaps, first = _wrapped(groups, OVERVIEW_COLUMNS), [], 0
    for n, part in enumerate(parts):
        part_columns = columns[first : first + sum(count for _, count in part)]
        first += len(part_columns)
        found = {
            (i, part_columns.index(column)): heat
            for i, row_cells in enumerate(cells)
            for column, heat in row_cells.items()
            if column in part_columns
        }
        named = f"{label}: " + ", ".join(name for name, _ in part)
        heatmaps.append(heatmap.heatmap(rows, part_columns, found, named, part, legend=legend and n == len(parts) - 1))
    return "".join(heatmaps)


def _wrapped(groups: list[tuple[str, int]], most: int) -> list[list[tuple[str, int]]]:
    """The runtimes' groups of columns in parts of at most `most` columns, a
    runtime never split: one with more has a part of its own."""
    parts: list[list[tuple[str, int]]] = []
    for group in groups:
        if parts and sum(count for _, count in parts[-1]) + group[1] <= most:
            parts[-1].append(group)
        else:
            parts.append([group])
    return parts


def _by_runtime(rows: list[str]) -> tuple[list[str], list[tuple[str, int]]]:
    """The rows side by side by runtime (with its options), the runtimes in the
    order they first appear, and each runtime's name with its count of rows."""
    runtime = {row: row.split("/")[0] for row in rows}
    order = list(dict.fromkeys(runtime.values()))
    grouped = sorted(rows, key=lambda row: order.index(runtime[row]))
    return grouped, [(name, sum(runtime[row] == name for row in rows)) for name in order]


def _heat(table: Table, cell: CellResult) -> heatmap.Heat:
    where = f"{cell.key.row} on {table.label}"
    if table.figure(cell) is None:
        return heatmap.Heat(None, "failed", f"{where}: no verified trial")
    ratio = table.ratio(cell)
    if ratio is None:
        return heatmap.Heat(None, "–", f"{where}: the baseline has no figure to compare with")
    better = ratio if table.rate_format else 1 / ratio
    how = (
        "as fast as"
        if math.isclose(better, 1)
        else (f"{better:.3g} times as fast as" if better > 1 else f"{1 / better:.3g} times slower than")
    )
    return heatmap.Heat(
        math.log10(better),
        ratio_text(ratio),
        f"{where}: {ratio_text(ratio)}, {how} {table.baseline.key.row}",
        reference=cell is table.baseline,
    )


# Machines side by side (concbench report --machines): a heatmap per table


def render_machines(found: MachinesReport) -> str:
    header = (
        '<header id="machines">\n<h1>concbench <span class="run">machines side by side</span></h1>\n'
        f'<div class="about">{_facts("Machines", [(m.name, m.summary()) for m in found.machines])}</div>\n</header>'
    )
    names = [m.name for m in found.machines]
    return _page(
        "concbench machines",
        [
            header,
            _section(
                "Ratios",
                "Ratios to each machine's own baseline",
                f"<p>{_e(READING)} {HEAT_COLOURS} on that machine (n/a, unavailable, or not in its run).</p>",
                *(_side_by_side(side, names, side is found.tables[-1]) for side in found.tables),
            ),
        ],
    )


def _side_by_side(side: SideBySide, machines: list[str], legend: bool) -> str:
    """A table's heatmap of machines by mechanisms: every machine a row, blank where it lacks the table;
    the colours' legend under the last table's."""
    table = side.first
    rows = [(name, "#machines") for name in machines]
    cells = [
        {cell.key.row: _heat(mine, cell) for cell in mine.rows} if (mine := side.tables.get(name)) else {}
        for name in machines
    ]
    label = f"{table.workload} {table.params_text}".strip() + ": each machine's ratios to its own baseline"
    rate = ' <span class="params">[ops/s]</span>' if table.rate_format else ""
    return (
        f'<figure class="heatmap-figure"><h3>{_title(table)}{rate}</h3>{_heatmaps(rows, cells, label, legend)}'
        f"<figcaption>{_e(side.baselines())} (outlined).</figcaption></figure>"
    )


# Scaling: a line chart per sweep


def _scaling(found: list[Sweep], styles: dict[str, tuple[int, int]]) -> str:
    figures = [f for sweep in found for f in (_sweep_figure(sweep, styles), _sweep_memory_figure(sweep, styles)) if f]
    return _section("Scaling", "Scaling", *figures) if figures else ""


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
        f"<strong>{_e(sweep.title)}</strong> ({_e(sweep.workload)}"
        + (f", {_e(sweep.fixed)}" if sweep.fixed else "")
        + (f", {_e(sweep.machine_text)}" if sweep.machine_text else "")
        + f"): median {what} over {_e(sweep.param)}, "
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


def _summary_tip(figure: Summary, text: Callable[[float], str]) -> str:
    low, high = figure.bounds
    interval = "95% CI" if figure.ci else "range"
    return f"median {text(figure.median)}, {interval} {text(low)} – {text(high)}, n={figure.n}"


def _whiskers(summaries: list[Summary]) -> str:
    """What the whiskers of a chart stand for: Summary.bounds of each figure."""
    with_ci = sum(1 for s in summaries if s.ci)
    if with_ci == len(summaries):
        return "Whiskers: the 95% confidence interval of the median."
    if with_ci == 0:
        return "Whiskers: the min–max range (fewer than 6 values: too few for a 95% confidence interval)."
    return (
        "Whiskers: the 95% confidence interval of the median, or the min–max range where a row has fewer than 6 values."
    )


# The results: a table and two charts per workload and parameter set


def _results(tables: list[Table]) -> str:
    index = "".join(
        f'<li><a href="#{_e(_anchor(t))}">{_e(t.title)} <span class="params">{_e(t.params_text)}</span>'
        f"{_machine(t)}</a></li>"
        for t in tables
    )
    return _section("Results", "Results", f'<ol class="index">{index}</ol>', *map(_table_section, tables))


def _table_section(table: Table) -> str:
    heading = f"<h3>{_title(table)}{_machine(table)}</h3>"
    return (
        f'<section class="result" id="{_e(_anchor(table))}">\n{heading}\n'
        + "\n".join(
            p for p in (_rows_table(table), _remarks(table), _unsettled(table), _charts(table), _skipped(table)) if p
        )
        + "\n</section>"
    )


def _title(table: Table) -> str:
    return (
        f'{_e(table.title)} <span class="workload">({_e(table.workload)})</span> '
        f'<span class="params">{_e(table.params_text)}</span>'
    )


def _machine(table: Table) -> str:
    """Which machine's trials a table holds, where a run's came from several."""
    return f' <span class="machine">{_e(table.machine_text)}</span>' if table.machine_text else ""


def _titled(table: Table) -> str:
    """A chart's label: the table's title, its parameters and its machine."""
    return f"{table.title} {table.params_text}" + _on(table.machine_text)


def _on(machine_text: str) -> str:
    return f" {machine_text}" if machine_text else ""


def _rows_table(table: Table) -> str:
    if not table.rows:
        return ""
    columns = page_columns(table)
    head = "".join(f'<th class="num" title="{_e(c.tip)}">{_e(c.header)}</th>' for c in columns)
    body = []
    starts = _group_starts(table.rows)
    for i, cell in enumerate(table.rows):
        base = cell is table.baseline
        classes = " ".join(name for name, on in (("baseline", base), ("runtime-start", i in starts)) if on)
        tag, row_class = (
            ('<span class="tag">baseline</span>' if base else ""),
            (f' class="{classes}"' if classes else ""),
        )
        tag += "".join(f'<span class="tag mark" title="{_e(m.seen)}">{_e(m.word)}</span>' for m in table.marks(cell))
        figures = (
            "".join(f'<td class="num">{_e(_figure(column, cell))}</td>' for column in columns)
            if table.figure(cell)
            else f'<td class="none" colspan="{len(columns)}">no verified trial</td>'
        )
        body.append(
            f'<tr{row_class}><th class="mech">{_e(cell.key.row)}{tag}</th>{figures}'
            f'<td class="num">{_trials(cell)}</td></tr>'
        )
    return (
        f'<div class="scroll"><table class="rows"><thead><tr><th>mechanism</th>{head}'
        f'<th class="num" title="{_e(TRIALS.tip)}">{_e(TRIALS.header)}</th></tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def _figure(column: Column, cell: CellResult) -> str:
    """A column's text on the page, which has room for every digit."""
    text = (column.page or column.text)(cell)
    if text is None:
        return "–"
    return text + (column.mark(cell) if column.mark else "")


def _group_starts(rows) -> set[int]:
    """Where a runtime's rows begin, after another runtime's: set apart in tables and charts."""
    runtimes = [r.key.row.split("/")[0] for r in rows]
    return {i for i in range(1, len(runtimes)) if runtimes[i] != runtimes[i - 1]}


def _trials(cell: CellResult) -> str:
    failures = failures_text(cell)
    link = f' <a class="status" href="#failed-trials">{_e(failures)}</a>' if failures else ""
    return _e(verified_text(cell)) + link


def _remarks(table: Table) -> str:
    """What the marks of the rows say was observed, and the notes on rows."""
    items = "".join(f"<li>{_e(row)}: {_e(what)}</li>" for row, what in table.remarks())
    return f'<ul class="remarks">{items}</ul>' if items else ""


def _unsettled(table: Table) -> str:
    pairs = table.unsettled()
    if not pairs:
        return ""
    items = "".join(
        f"<li>{_e(a.key.row)} and {_e(b.key.row)}: intervals overlap, their order is not settled by this run</li>"
        for a, b in pairs
    )
    return f'<ul class="warn">{items}</ul>'


def _skipped(table: Table) -> str:
    """The rows that did not run, those with the same reason together."""
    items = "".join(
        f'<li><span class="kind">{_e(kind)}</span> {_e(", ".join(rows))}: {_e(reason)}</li>'
        for (kind, reason), rows in table.skipped_by_reason().items()
    )
    return f'<ul class="skipped">{items}</ul>' if items else ""


def _charts(table: Table) -> str:
    rows = [r for r in table.rows if table.figure(r)]
    if not rows:
        return ""
    return (
        f'<div class="charts">{_time_chart(table, rows)}'
        + _memory_chart(table, [r for r in rows if r.memory_kb])
        + "</div>"
    )


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
    chart = charts.bar_chart(bars, text, f"{_titled(table)}: {name}", _group_starts(rows))
    return (
        f'<figure class="time">{chart}<figcaption><strong>{_e(name[0].upper() + name[1:])}</strong>, '
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
    chart = charts.bar_chart(bars, lambda mb: f"{mb:g} MB", f"{_titled(table)}: peak memory", _group_starts(rows))
    tree = (
        " * the whole process tree (the parent's peak and each child's private memory)."
        if any(r.memory_is_tree for r in rows)
        else ""
    )
    return (
        f'<figure class="memory">{chart}<figcaption><strong>Peak memory</strong> (median peak RSS of a '
        f"trial process), lower is better. {_whiskers([r.memory_kb for r in rows])}{tree}</figcaption></figure>"
    )


# Failed trials


def _failures(failed: list[TrialRecord]) -> str:
    if not failed:
        return ""
    cells = {cell: i for i, cell in enumerate(dict.fromkeys(t.cell for t in failed))}  # each cell's trials together
    rows = "".join(
        f'<tr><td>{_e(t.cell.workload)} <span class="params">{_e(t.cell.params_text)}</span></td>'
        f'<td class="mech">{_e(t.cell.row)}</td><td class="num">{t.trial + 1}</td>'
        f'<td class="status">{_e(str(t.status).upper())}</td><td>{_e(t.detail)}{_stderr(t.stderr)}</td></tr>'
        for t in sorted(failed, key=lambda t: (cells[t.cell], t.trial))
    )
    return _section(
        "Failed trials",
        f"Failed trials ({len(failed)})",
        "<p>Every trial that failed or did not verify, with the end of its stderr; none of them enters a figure.</p>",
        f'<div class="scroll"><table class="failed"><thead><tr><th>workload</th><th>mechanism</th>'
        f'<th class="num">trial</th><th>status</th><th>detail</th></tr></thead>'
        f"<tbody>{rows}</tbody></table></div>",
    )


def _stderr(stderr: str) -> str:
    if not stderr.strip():
        return '<div class="muted">no stderr</div>'
    lines = len(stderr.rstrip("\n").splitlines())
    summary = f"stderr ({lines} line{'s' if lines > 1 else ''})"
    return f"<details><summary>{summary}</summary><pre>{_e(stderr)}</pre></details>"


def _reading() -> str:
    return _section("How to read", "How to read", "<ul>" + "".join(f"<li>{_e(item)}</li>" for item in LEGEND) + "</ul>")


CSS = """
:root { --ink: #1d2330; --muted: #5b6475; --rule: #d9dde5; --faint: #eef0f4; --accent: #2f5f98;
        --bad: #b2182b; --warn: #7a4d00; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1340px; padding: 28px 32px 72px; color: var(--ink); background: #fff;
       font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
h1 { font-size: 26px; margin: 0 0 10px; font-weight: 650; }
h1 .run { color: var(--muted); font-weight: 400; }
h2 { font-size: 20px; margin: 44px 0 12px; padding-bottom: 4px; border-bottom: 2px solid var(--ink); }
h3 { font-size: 16px; margin: 0 0 8px; }
h3 .workload, .params { color: var(--muted); font-weight: 400; }
.machine { color: var(--accent); font-weight: 600; }   /* a table of one of a run's machines */
.params, .mech, pre, .index { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace;
                               font-size: 12.5px; }
nav { margin-top: 14px; font-size: 13px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 4px 7px; text-align: left; vertical-align: top; border-bottom: 1px solid var(--faint); }
thead th { font-size: 12px; font-weight: 600; color: var(--muted); border-bottom: 1px solid var(--rule);
           vertical-align: bottom; }
th.mech { font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; }
td.num { white-space: nowrap; }
table.rows { font-size: 13px; }
table.rows th, table.rows td { padding: 4px 5px; }   /* sixteen columns fit a wide window */
table.rows tbody tr:hover { background: #f7f9fc; }
tr.baseline { background: #f2f6fb; }
tr.runtime-start > * { border-top: 2px solid var(--muted); }
.tag { font: 600 10px/1 system-ui, sans-serif; color: var(--accent); border: 1px solid var(--accent);
       border-radius: 3px; padding: 1px 3px; margin-left: 6px; vertical-align: 1px; }
table.facts th { font-weight: 600; color: var(--muted); white-space: nowrap; padding-left: 0; }
table.facts td, table.facts th { border: 0; padding-top: 1px; padding-bottom: 1px; }
table.facts td { overflow-wrap: anywhere; }   /* a long path of an outside runtime */
.none, .muted { color: var(--muted); font-style: italic; }
.status { color: var(--bad); font-weight: 650; white-space: nowrap; }
.alert { color: var(--bad); background: #fdf0f0; border-left: 4px solid var(--bad); padding: 6px 12px; }
ul.remarks { color: var(--warn); margin: 6px 0; }
.tag.mark { color: var(--warn); border-color: var(--warn); }
ul.warn { color: var(--warn); background: #fff7e6; border-left: 4px solid #e0a100; padding: 6px 12px 6px 30px;
          margin: 10px 0; }
ul.skipped { color: var(--muted); font-size: 13px; margin: 8px 0; padding-left: 20px; }
ul.skipped .kind { font-weight: 600; }
.scroll { overflow-x: auto; }
section.result { margin: 0 0 20px; padding: 18px 0 10px; border-top: 1px solid var(--rule); }
ol.index { columns: 2; column-gap: 32px; padding-left: 28px; margin: 0 0 24px; }
.charts { display: flex; flex-wrap: wrap; gap: 8px 36px; align-items: flex-start; }
.about { display: grid; grid-template-columns: repeat(auto-fit, minmax(360px, 1fr)); gap: 8px 48px;
          align-items: start; }
table.facts caption { text-align: left; font-size: 11px; font-weight: 600; letter-spacing: 0.06em;
                      text-transform: uppercase; color: var(--muted); padding-bottom: 2px; }
figure { margin: 14px 0 8px; break-inside: avoid; }
.charts > figure { flex: 1 1 400px; max-width: 500px; }
figcaption { font-size: 12.5px; color: var(--muted); margin-top: 6px; max-width: 720px; }
figcaption strong { color: var(--ink); font-weight: 600; }
svg.chart { display: block; max-width: 100%; height: auto; }
svg.chart a:hover text { text-decoration: underline; }
table.failed td { font-size: 13px; }
details summary { cursor: pointer; color: var(--muted); font-size: 12.5px; }
pre { white-space: pre-wrap; word-break: break-word; max-height: 28em; overflow: auto; margin: 4px 0;
      background: #f6f7f9; border: 1px solid var(--rule); border-radius: 3px; padding: 8px 10px; }
@page { size: A4 landscape; margin: 12mm; }
@media print {
  body { max-width: none; padding: 0; font-size: 11px; }
  table.rows { font-size: 11px; }
  nav, ol.index { display: none; }
  h2 { break-after: avoid; }
  section.result { break-inside: avoid-page; }
  .scroll { overflow: visible; }
  pre { max-height: none; }
}
"""
