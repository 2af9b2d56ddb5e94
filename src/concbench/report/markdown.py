"""Markdown for a README: a table per workload and parameter set in its
seed's columns (Ruby's Benchmark: user, system, total, real; Concurrently's
executions in seconds; benchmark-ips' i/s (± cv) count in time), then the
diagnosis, the environment and the run that produced it. Also the machines
side by side (report --machines): a table of ratios per workload and parameter set.

Text from a run (names, titles, parameters, reasons, versions, the diagnosis)
goes through _inline or _cell, which escape HTML, since Markdown passes tags
through to the page; stderr goes in fenced blocks, where nothing is markup."""

import html
import re
from textwrap import dedent

from ..display import printable
from ..records import RunInfo
from ..results import CellResult
from .aggregate import Table
from .columns import SEEDS, TRIALS, Column, scaling_grid, seed_columns
from .figures import LEGEND, ratio_text, skipped_text
from .machines import READING, MachinesReport, SideBySide
from .run_report import RunReport
from .scaling import Scaling, placed
from .terminal import failure_lines


def render(report: RunReport) -> str:
    run = report.run
    parts = [
        f"## concbench run {run.id}",
        f"{_inline(run.request.get('profile'))} profile, started {_inline(run.started)}, {_inline(run.state)}.",
    ]
    if report.speed:
        parts.append(_inline(report.speed.line()) + ".")
    after = placed(report.scaling, report.tables)
    for table in report.tables:
        parts += _table(table)
        if table.label in after:
            parts += _scaling(after[table.label])
    # The legend as one paragraph: its line that opens with "* " would be a list item.
    parts.append(" ".join(LEGEND))
    if report.diagnosis:
        found = report.diagnosis
        items = "\n".join(f"- {_inline(paragraph)}" for paragraph in found.paragraphs)
        parts += ["### Diagnosis", f"{_inline(found.heading)}\n\n{items}\n\n{_inline(found.summary)}"]
    parts += [
        "### Environment",
        "\n".join(f"- {_inline(label)}: {_inline(value)}" for label, value in report.environment),
        _produced_by(run),
    ]
    return "\n\n".join(parts) + "\n"


def _table(table: Table) -> list[str]:
    """The heading, the table, then what the terminal prints under it: the
    rows whose order this run cannot settle, and each failure with its stderr
    (its control characters escaped by failure_lines: a `cat` of the file must not run them)."""
    machine = f", {_inline(table.machine_text)}" if table.machine_text else ""
    parts = [_heading(table) + machine, _grid(table)]
    remarks = [f"- {_inline(row)}: {_inline(what)}" for row, what in table.remarks()]
    unsettled = [
        f"- not settled: {_inline(a.key.row)} and {_inline(b.key.row)} (their intervals overlap)"
        for a, b in table.unsettled()
    ]
    if remarks or unsettled:
        parts.append("\n".join(remarks + unsettled))
    failures = [line.plain for cell in table.rows for line in failure_lines(cell)]
    if failures:
        parts.append(_code(dedent("\n".join(failures))))
    return parts


def _scaling(found: Scaling) -> list[str]:
    """The scaling block after a parameter set's tables: a row per mechanism,
    its speed-up against its own 1 CPU at each count above."""
    headers, rows = scaling_grid(found)
    machine = f", {_inline(found.first.machine_text)}" if found.first.machine_text else ""
    grid = [_row(["mechanism", *headers]), _row([":---"] + ["---:"] * len(headers))]
    grid += [_row([_cell(row), *(_cell(" ".join(parts or "-")) for parts in cells)]) for row, cells in rows]
    params = f": {_inline(found.params_text)}" if found.params_text else ""
    return [
        f"### {_inline(found.first.title)} ({_inline(found.first.workload)}){params}{machine}, "
        "speed-up against 1 CPU [95% CI] and efficiency",
        "\n".join(grid),
    ]


def _heading(table: Table) -> str:
    params = f": {_inline(table.params_text)}" if table.params_text else ""
    return f"### {_inline(table.title)} ({_inline(table.workload)}){params}"


def _grid(table: Table) -> str:
    """The Markdown table: the baseline marked, then the cells that did not run, with why."""
    seed = SEEDS[table.rate_format]
    columns = [column for column in seed_columns(table) if not column.blank]
    headers = ["mechanism", *seed.headers, *(column.header for column in columns), TRIALS.header]
    rows = [_row(list(map(_cell, headers))), _row([":---"] + ["---:"] * (len(headers) - 1))]
    for cell in table.rows:
        label = _cell(cell.key.row) + (" (baseline)" if cell is table.baseline else "")
        if table.figure(cell) is None:
            rows.append(_row([label, "no verified trial", *[""] * (len(headers) - 3), TRIALS.text(cell)]))
        else:
            marks = ", ".join(m.word for m in table.marks(cell))
            trials = TRIALS.text(cell) + (f" **{_cell(marks)}**" if marks else "")
            rows.append(_row([label, *seed.figures(cell), *(_figure(column, cell) for column in columns), trials]))
    rows += [_row([_cell(names), _cell(why), *[""] * (len(headers) - 2)]) for why, names in skipped_text(table).items()]
    return "\n".join(rows)


def _figure(column: Column, cell: CellResult) -> str:
    """A column's text, its mark escaped: a bare * may open emphasis."""
    text = column.text(cell)
    if text is None:
        return "-"
    return text + (column.mark(cell).replace("*", "\\*") if column.mark else "")


def render_machines(found: MachinesReport) -> str:
    """Per table, its ratios with a row per machine and a column per mechanism."""
    machines = [m.name for m in found.machines]
    parts = [
        "## concbench machines side by side",
        f"{_inline(READING)} For time tables a ratio below 1 is faster; for rate tables, marked [ops/s], "
        "above 1 is. n/a: the machine did not run the mechanism there; failed: no verified trial.",
        "\n".join(f"- {_inline(m.name)}: {_inline(m.summary())}" for m in found.machines),
    ]
    for side in found.tables:
        columns = side.columns
        rows = [_row(["machine", *map(_cell, columns)]), _row([":---"] + ["---:"] * len(columns))]
        rows += [_row([_cell(name), *(_ratio_cell(side, name, row) for row in columns)]) for name in machines]
        rate = " [ops/s]" if side.first.rate_format else ""
        parts += [_heading(side.first) + rate, "\n".join(rows), _inline(side.baselines()) + "."]
    return "\n\n".join(parts) + "\n"


def _ratio_cell(side: SideBySide, machine: str, row: str) -> str:
    """A machine's ratio of a row to its own baseline."""
    cell, table = side.cell(machine, row), side.tables.get(machine)
    if cell is None:
        return "n/a"
    if table.figure(cell) is None:
        return "failed"
    ratio = table.ratio(cell)
    return ratio_text(ratio) if ratio is not None else "-"


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _inline(text) -> str:
    """Text from a runtime or a user on one line (a line break would end a
    heading, list item or row), its HTML escaped (a tag would be markup) and
    its control characters too (a `cat` of the file must not run them)."""
    return html.escape(printable(" ".join(str(text).splitlines())), quote=False)


def _cell(text) -> str:
    """Text from a runtime or a user in a table cell, where | would end the cell."""
    return _inline(text).replace("\\", "\\\\").replace("|", "\\|")


def _code(text: str) -> str:
    """A fenced block: runtimes' stderr verbatim, its fence longer than any run of backticks in it."""
    fence = "`" * max([3] + [len(run) + 1 for run in re.findall("`+", text)])
    return f"{fence}\n{text}\n{fence}"


def _produced_by(run: RunInfo) -> str:
    commit = run.environment.get("concbench") or "an unknown commit"
    return f"Produced by concbench {_inline(commit)} from run {run.id} (`concbench report {run.id} --format md`)."
