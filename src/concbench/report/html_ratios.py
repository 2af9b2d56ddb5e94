"""The heatmaps of ratios to the baseline on the HTML pages: a run's
overview, every table a row, and a table's machines side by side, every
machine a row; past OVERVIEW_COLUMNS mechanisms they wrap, whole runtimes
at a time."""

import math

from ..display import html_safe
from ..records import row_runtime_label
from ..results import CellResult
from . import heatmap
from .aggregate import Table
from .figures import ratio_text
from .html_page import section
from .html_results import anchor, table_title
from .machines import SideBySide

# A heatmap's columns at most, so that its text stays legible at the page's
# width; more mechanisms wrap into further heatmaps, whole runtimes each.
OVERVIEW_COLUMNS = 10


def overview(tables: list[Table]) -> str:
    shown = [t for t in tables if t.rows]
    if not shown:
        return ""
    rows = [(t.label + (" [ops/s]" if t.rate_format else ""), "#" + anchor(t)) for t in shown]
    cells = [{cell.key.row: _heat(table, cell) for cell in table.rows} for table in shown]
    heatmaps = _heatmaps(rows, cells, "ratio of every cell to its table's baseline")
    return section(
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


def side_by_side(side: SideBySide, machines: list[str], legend: bool) -> str:
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
        f'<figure class="heatmap-figure"><h3>{table_title(table)}{rate}</h3>{_heatmaps(rows, cells, label, legend)}'
        f"<figcaption>{html_safe(side.baselines())} (outlined).</figcaption></figure>"
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
    runtime = {row: row_runtime_label(row) for row in rows}
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
