"""The results on a run's HTML page: an index, then a section per workload
and parameter set with its table of rows, what was remarked and what did
not run, and its two charts (and a served workload's percentile plot)."""

from ..display import html_safe
from ..results import CellResult
from .aggregate import Table
from .columns import TRIALS, Column, page_columns
from .figures import failures_text, verified_text
from .html_charts import group_starts, styles, table_charts
from .html_latency import percentile_figure
from .html_page import section, slug


def results(tables: list[Table]) -> str:
    index = "".join(
        f'<li><a href="#{html_safe(anchor(t))}">{html_safe(t.title)} <span class="params">{html_safe(t.params_text)}</span>'
        f"{_machine(t)}</a></li>"
        for t in tables
    )
    looks = styles(tables)
    return section("Results", "Results", f'<ol class="index">{index}</ol>', *(_table_section(t, looks) for t in tables))


def _table_section(table: Table, looks: dict[str, tuple[int, int]]) -> str:
    heading = f"<h3>{table_title(table)}{_machine(table)}</h3>"
    return (
        f'<section class="result" id="{html_safe(anchor(table))}">\n{heading}\n'
        + "\n".join(
            p
            for p in (
                _rows_table(table),
                _remarks(table),
                _unsettled(table),
                table_charts(table),
                percentile_figure(table, looks),
                _skipped(table),
            )
            if p
        )
        + "\n</section>"
    )


def anchor(table: Table) -> str:
    return "t-" + slug(table.label)


def table_title(table: Table) -> str:
    return (
        f'{html_safe(table.title)} <span class="workload">({html_safe(table.workload)})</span> '
        f'<span class="params">{html_safe(table.params_text)}</span>'
    )


def _machine(table: Table) -> str:
    """Which machine's trials a table holds, where a run's came from several."""
    return f' <span class="machine">{html_safe(table.machine_text)}</span>' if table.machine_text else ""


def _rows_table(table: Table) -> str:
    if not table.rows:
        return ""
    columns = page_columns(table)
    head = "".join(f'<th class="num" title="{html_safe(c.tip)}">{html_safe(c.header)}</th>' for c in columns)
    body = []
    starts = group_starts(table.rows)
    for i, cell in enumerate(table.rows):
        base = cell is table.baseline
        classes = " ".join(name for name, on in (("baseline", base), ("runtime-start", i in starts)) if on)
        tag, row_class = (
            ('<span class="tag">baseline</span>' if base else ""),
            (f' class="{classes}"' if classes else ""),
        )
        tag += "".join(
            f'<span class="tag mark" title="{html_safe(m.seen)}">{html_safe(m.word)}</span>' for m in table.marks(cell)
        )
        figures = (
            "".join(f'<td class="num">{html_safe(_figure(column, cell))}</td>' for column in columns)
            if table.figure(cell)
            else f'<td class="none" colspan="{len(columns)}">no verified trial</td>'
        )
        body.append(
            f'<tr{row_class}><th class="mech">{html_safe(cell.key.row)}{tag}</th>{figures}'
            f'<td class="num">{_trials(cell)}</td></tr>'
        )
    return (
        f'<div class="scroll"><table class="rows"><thead><tr><th>mechanism</th>{head}'
        f'<th class="num" title="{html_safe(TRIALS.tip)}">{html_safe(TRIALS.header)}</th></tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def _figure(column: Column, cell: CellResult) -> str:
    """A column's text on the page, which has room for every digit."""
    text = (column.page or column.text)(cell)
    if text is None:
        return "–"
    return text + (column.mark(cell) if column.mark else "")


def _trials(cell: CellResult) -> str:
    failures = failures_text(cell)
    link = f' <a class="status" href="#failed-trials">{html_safe(failures)}</a>' if failures else ""
    return html_safe(verified_text(cell)) + link


def _remarks(table: Table) -> str:
    """What the marks of the rows say was observed, and the notes on rows."""
    items = "".join(f"<li>{html_safe(row)}: {html_safe(what)}</li>" for row, what in table.remarks())
    return f'<ul class="remarks">{items}</ul>' if items else ""


def _unsettled(table: Table) -> str:
    pairs = table.unsettled()
    if not pairs:
        return ""
    items = "".join(
        f"<li>{html_safe(a.key.row)} and {html_safe(b.key.row)}: intervals overlap, their order is not settled by this run</li>"
        for a, b in pairs
    )
    return f'<ul class="warn">{items}</ul>'


def _skipped(table: Table) -> str:
    """The rows that did not run, those with the same reason together."""
    items = "".join(
        f'<li><span class="kind">{html_safe(kind)}</span> {html_safe(", ".join(rows))}: {html_safe(reason)}</li>'
        for (kind, reason), rows in table.skipped_by_reason().items()
    )
    return f'<ul class="skipped">{items}</ul>' if items else ""
