"""Tables for the terminal in the seed's own format (Ruby's Benchmark:
user, system, total and (real), then ratio), with the figures none of the
seeds had: spread, peak memory, units and how many trials verified.

Every line is a rich Text, which is never read as markup; text from a run
(names, titles, reasons, details, stderr, the environment) goes through
printable, so that it cannot move the cursor or clear the screen either."""

from rich.text import Text

from .. import environment
from ..display import printable
from ..records import RunInfo, row_runtime_label
from ..results import CellResult
from ..stats import Summary
from ..status import Status
from .aggregate import Table
from .columns import SEEDS, TRIALS, Column, Parts, scaling_grid, seed_columns
from .comparison import ALPHA, CORRECTION, Change, Verdict
from .figures import (
    failures_text,
    ratio_text,
    relative_text,
    si,
    skipped_text,
    verified_text,
)
from .history import History, Point
from .scaling import Scaling


def run_header(run: RunInfo, described: list[tuple[str, str]] | None = None) -> Text:
    """The run, then its environment (described, or else its stored fingerprint)."""
    described = described or environment.describe(run.environment)
    return Text.assemble(
        (f"run {run.id}", "bold"),
        printable(f"  {run.started}  {run.request.get('profile')} profile  {run.state}"),
        "\n",
        printable("; ".join(f"{label} {value}" for label, value in described)),
        style=None,
    )


def _heading(table: Table) -> str:
    machine = f"  {table.machine_text}" if table.machine_text else ""
    return printable(f"{table.title} ({table.workload}): {table.params_text}{machine}")


def render(table: Table) -> list[Text]:
    width = max([len(printable(r.key.row)) for r in table.rows] + [len(printable(s.row)) for s in table.skipped] + [12])
    seed, columns = SEEDS[table.rate_format], seed_columns(table)
    heads = [_head(column) for column in columns]
    lines = [
        Text(_heading(table), style="bold"),
        Text(seed.head(width) + "".join(heads) + "  " + TRIALS.header, style="dim"),
    ]
    # A row without a figure says so where the ratio would stand.
    figures_width = len(seed.head(width) + "".join(heads[: [c.header for c in columns].index("ratio")]))
    for cell in table.rows:
        label = seed.label(printable(cell.key.row), width)
        if table.figure(cell) is None:
            lines.append(
                Text.assemble(
                    label, " " * (figures_width - len(label)), ("no verified trial", "red"), "  ", check_text(cell)
                )
            )
        else:
            lines.append(
                Text.assemble(
                    label,
                    seed.line(seed.figures(cell)),
                    *(_place(column, cell) for column in columns),
                    "  ",
                    check_text(cell),
                    _marks(table, cell),
                )
            )
    lines += _skipped_lines(table, width)
    lines += _remark_lines(table, width)
    lines += _repeated_lines(table, width)
    lines += _unsettled_lines(table)
    lines += [line for cell in table.rows for line in failure_lines(cell)]
    return lines


def render_scaling(found: Scaling) -> list[Text]:
    """The scaling block after a parameter set's tables: per row, its speed-up
    against its own cpus=1 at each count above 1, its 95% interval and its
    efficiency (the seed's figure first where it has one: Pbt's i/s)."""
    seed, (headers, rows) = SEEDS[found.first.rate_format], scaling_grid(found)
    labels = [printable(row) for row, _ in rows]
    columns = [_aligned(header, [cells[i] for _, cells in rows]) for i, header in enumerate(headers)]
    width = max([len(label) for label in labels] + [12])
    machine = f"  {found.first.machine_text}" if found.first.machine_text else ""
    params = f": {found.params_text}" if found.params_text else ""
    heading = f"{found.first.title} ({found.first.workload}){params}{machine}"
    return [
        Text(printable(heading) + ", speed-up against 1 CPU [95% CI] and efficiency", style="bold"),
        Text(" " * width + "".join(f"  {header}" for header, _ in columns), style="dim"),
        *(
            Text(seed.label(label, width) + "".join(f"  {texts[i]}" for _, texts in columns))
            for i, label in enumerate(labels)
        ),
    ]


def _aligned(header: str, cells: list[Parts]) -> tuple[str, list[str]]:
    """A column of the scaling block: each part of its cells right-aligned
    under the same part of the others, '-' for none, its header over them all."""
    cells = [tuple(map(printable, c)) if c else None for c in cells]
    widths = [max(map(len, part)) for part in zip(*filter(None, cells))]
    texts = [" ".join(f"{p:>{w}}" for p, w in zip(c, widths)) if c else "-" for c in cells]
    width = max(len(header), *map(len, texts))
    return f"{header:>{width}}", [f"{text:>{width}}" for text in texts]


# At most this many n/a lines under a table (or remarks, repetition lines or
# "not settled" ones); more collapse into one, whose details are in the HTML
# report (and `concbench list`), so that a table of fifty rows stays readable.
MOST_LINES = 3


def _skipped_lines(table: Table, width: int) -> list[Text]:
    found = skipped_text(table)
    if len(found) <= MOST_LINES:
        return [Text(f"{printable(rows):<{width}}  {printable(why)}", style="dim") for why, rows in found.items()]
    by_kind: dict[str, dict[str, int]] = {}
    for s in table.skipped:
        runtimes = by_kind.setdefault(s.kind, {})
        runtime = row_runtime_label(s.row)
        runtimes[runtime] = runtimes.get(runtime, 0) + 1
    counts = "; ".join(
        f"{kind} {sum(runtimes.values())} ({', '.join(f'{name} {n}' for name, n in runtimes.items())})"
        for kind, runtimes in by_kind.items()
    )
    return [Text(printable(f"{counts}: each with its reason in the HTML report and concbench list"), style="dim")]


def _remark_lines(table: Table, width: int) -> list[Text]:
    """What each marked row observed, and the notes its runtime gives it; many
    become a count of each mark (the rows carry their marks) and of the notes."""
    found = table.remarks(repeats=False)
    if len(found) <= MOST_LINES:
        return [Text.assemble(f"{printable(row):<{width}}  ", (printable(what), "yellow")) for row, what in found]
    marked: dict[str, int] = {}
    for cell in table.rows:
        for mark in table.marks(cell):
            marked[mark.word] = marked.get(mark.word, 0) + 1
    counts = [f"{word} {n}" for word, n in marked.items()]
    counts += [f"notes on {len(table.notes)} rows"] if table.notes else []
    return [
        Text(
            printable(f"{', '.join(counts)}: what each row observed, and each note, in the HTML report"), style="yellow"
        )
    ]


def _repeated_lines(table: Table, width: int) -> list[Text]:
    found = table.repeated()
    if len(found) <= MOST_LINES:
        return [
            Text.assemble(
                f"{printable(row):<{width}}  ",
                (printable(f"each timed run repeats the work {times}: its figures are per repetition"), "yellow"),
            )
            for row, times in found
        ]
    named = ", ".join(f"{row} {times}" for row, times in found)
    return [Text(printable(f"each timed run repeats the work, its figures per repetition: {named}"), style="yellow")]


def _unsettled_lines(table: Table) -> list[Text]:
    pairs = table.unsettled()
    if len(pairs) <= MOST_LINES:
        return [
            Text(printable(f"not settled: {a.key.row} and {b.key.row} (their intervals overlap)"), style="yellow")
            for a, b in pairs
        ]
    named = ", ".join(f"{a.key.row} ~ {b.key.row}" for a, b in pairs)
    return [Text(printable(f"not settled, {len(pairs)} pairs whose intervals overlap: {named}"), style="yellow")]


def _width(column: Column) -> int:
    """A column's width in the terminal: its own, or its header's where that is wider."""
    return max(column.fixed.width, len(printable(column.header)))


def _head(column: Column) -> str:
    fixed = column.fixed
    return f"{printable(column.header):>{fixed.head or fixed.gap + _width(column)}}"


def _place(column: Column, cell: CellResult) -> str:
    """The column's text in its place in the line; blank where the row shows it elsewhere."""
    fixed = column.fixed
    text = "" if column.blank else column.text(cell)
    gap = fixed.lacking_gap if text is None and fixed.lacking_gap is not None else fixed.gap
    mark = (column.mark(cell) or " ") if column.mark else ""
    return " " * gap + f"{printable('-' if text is None else text):>{_width(column)}}" + mark


def _marks(table: Table, cell: CellResult) -> tuple[str, str] | str:
    marks = table.marks(cell)
    return (printable("  " + ", ".join(m.word for m in marks)), "bold yellow") if marks else ""


def _ratio(ratio: float | None) -> str:
    return f"{ratio_text(ratio):>10}" if ratio is not None else f"{'-':>10}"


def check_text(cell: CellResult) -> Text:
    """verified / run, green if every trial verified, then the failures in bold red."""
    failures = failures_text(cell)
    text = Text(verified_text(cell), style="red" if failures else "green")
    return text.append(" " + failures, style="bold red") if failures else text


def failure_lines(cell: CellResult) -> list[Text]:
    """Each distinct failure of a cell once, with the trials it hit and the end of its stderr."""
    seen: dict[tuple, list[int]] = {}
    for t in cell.trials:
        if t.status != Status.OK:
            seen.setdefault((t.status, t.detail, t.stderr), []).append(t.trial + 1)
    lines = []
    for (status, detail, stderr), numbers in seen.items():
        which = "trial" + ("s " if len(numbers) > 1 else " ") + ", ".join(map(str, numbers))
        lines.append(
            Text.assemble(
                printable(f"  {cell.key.row} {which}: "), (status.upper(), "bold red"), printable(f": {detail}")
            )
        )
        lines += [Text(f"    | {printable(line)[:160]}", style="dim") for line in stderr.strip().splitlines()[-3:]]
    return lines


def render_changes(changes: list[Change], sides: tuple[str, str] = ("before", "after")) -> list[Text]:
    """The Before/After tables: per cell both medians, their ratio, the test's
    p-value and the verdict; one table per workload and parameter set."""
    groups: dict[tuple[str, str], list[Change]] = {}
    for change in changes:
        groups.setdefault((change.table.workload, change.table.params_text), []).append(change)
    lines = []
    for group in groups.values():
        table = group[0].table
        width = max([len(printable(c.row)) for c in group] + [12])
        unit = "ops/s" if table.rate_format else "real"
        lines += [
            Text(),
            Text(_heading(table), style="bold"),
            Text(
                f"{'':<{width}} {sides[0] + ' ' + unit:>14} {sides[1] + ' ' + unit:>14}      ratio         q  change",
                style="dim",
            ),
        ]
        for change in group:
            before, after = change.medians
            ratio = _ratio(change.ratio)
            p = f"{change.q:9.3f}" if change.q is not None else f"{'-':>9}"
            lines.append(
                Text.assemble(
                    f"{printable(change.row):<{width}} {_figure(table, before)} {_figure(table, after)}",
                    ratio,
                    p,
                    "  ",
                    _verdict(change),
                )
            )
    return lines


def _figure(table: Table, value: float | None) -> str:
    if value is None:
        return f"{'-':>14}"
    return f"{si(value):>14}" if table.rate_format else f"{value:14.6f}"


def _verdict(change: Change) -> Text:
    slowdown = change.slowdown
    match change.verdict:
        case Verdict.FASTER:
            return Text(f"faster: {-slowdown:.1%} less time", style="bold green")
        case Verdict.SLOWER:
            return Text(f"slower: {slowdown:.1%} more time", style="bold red")
        case Verdict.SAME:
            why = (
                "within the noise"
                if change.judged_p >= ALPHA
                else f"under the {_threshold(change.threshold)} threshold"
            )
            return Text(f"no change ({slowdown:+.1%}, {why})", style="dim")
        case Verdict.NOISY:
            return Text(
                f"too noisy ({slowdown:+.1%}): its {change.noise_of} could be off by {change.noise:.0%}, "
                f"more than the {_threshold(change.threshold)} threshold: give it more runs",
                style="yellow",
            )
        case Verdict.UNTESTABLE:
            return Text(f"untested ({slowdown:+.1%}): {change.too_few}", style="yellow")
    missing = (
        "only in the after run"
        if change.before is None
        else "only in the before run"
        if change.after is None
        else "no verified run on one side"
    )
    return Text(missing, style="yellow")


def change_summary(changes: list[Change]) -> str:
    if not changes:
        return "no cells in either run"
    counts = {verdict: sum(c.verdict == verdict for c in changes) for verdict in Verdict}
    return (
        ", ".join(f"{n} {verdict}" for verdict, n in counts.items() if n)
        + f" (a change is called at q < {ALPHA}, p adjusted across the {sum(c.q is not None for c in changes)} "
        f"tested cells ({CORRECTION}), and {_threshold(changes[0].threshold)} or more)"
    )


HISTORY_LEGEND = (
    "real (ops/s for rate workloads): the median over the timed runs of verified trials; interval: where\n"
    "the median lies, relative to it: its 95% CI (CI t: from 3 to 5 runs, Student's t on their logarithms),\n"
    "or the range below 3 timed runs; ratio: to the previous run with the cell. A step is called as\n"
    "compare calls a change: p < 0.05 (Mann-Whitney U) and the threshold or more, in time. 'same commit':\n"
    "both runs were made from one clean commit, so the step is the machine's, not the code's. 'run A to\n"
    "run B' tests the first run against the last: a drift too gradual to call step by step."
)


def render_history(history: History) -> list[Text]:
    """One cell across the runs: a title, then per run its date, commit,
    median, interval, ratio to the previous run and the step called there."""
    latest = history.latest
    table, width = latest.table, max(len(f"run {p.run.id}") for p in history.points)
    unit = "ops/s" if table.rate_format else "real"
    lines = [
        Text(f"{_heading(table)}  {printable(latest.cell.key.row)}", style="bold"),
        Text(f"  {'':<{width}}  {'started':<16}  {'commit':<13}{unit:>14}  {'interval':<18}{'ratio':>10}", style="dim"),
    ]
    lines += [_history_line(point, width) for point in history.points]
    if len(history.points) == 1:
        lines[-1].append("  one run, nothing to compare", style="dim")
    if history.drift:
        drift = history.drift
        lines.append(
            Text.assemble(
                f"  run {drift.previous.run.id} to run {drift.run.id}: {ratio_text(_ratio_of(drift.change))}  ",
                _called(drift, "drift"),
            )
        )
    return lines


def _history_line(point: Point, width: int) -> Text:
    run = point.run
    start = printable(
        f"  {'run ' + str(run.id):<{width}}  {run.started[:16].replace('T', ' '):<16}  {point.commit or '?':<13}"
    )
    state = Text(printable(f"  {run.state}") if run.state != "complete" else "", style="yellow")
    if point.figure is None:
        return Text.assemble(start, ("  no verified trial ", "red"), check_text(point.cell), state)
    if point.change is None:
        return Text.assemble(start, _figure(point.table, point.figure.median), f"  {_interval(point.figure)}", state)
    return Text.assemble(
        start,
        _figure(point.table, point.figure.median),
        f"  {_interval(point.figure):<18}",
        _ratio(_ratio_of(point.change)),
        "  ",
        _called(point, "step"),
        state,
    )


def _ratio_of(change: Change) -> float:
    before, after = change.medians
    return after / before


def _interval(summary: Summary) -> str:
    """Where the median lies, relative to it: the 95% CI (CI t: Student's t's),
    or the range below 3 values."""
    kind = ("CI t" if summary.by_t else "CI") if summary.ci else "range"
    return f"{kind:<5} {relative_text(summary, summary.bounds):>12}"


def _called(point: Point, name: str) -> Text:
    """'step: slower 12.3% (p=0.004)' (of time) where a change is called, else
    the p-value, or why there is none."""
    change = point.change
    match change.verdict:
        case Verdict.SLOWER | Verdict.FASTER:
            text = Text(
                f"{name}: {change.verdict} {abs(change.slowdown):.1%} (q={change.q:.3f})",
                style="bold red" if change.verdict == Verdict.SLOWER else "bold green",
            )
            if point.same_code:
                text.append(", same commit", style="yellow")
            return text
        case Verdict.UNTESTABLE:
            n, m = change.sizes
            return Text(f"untested: {n} and {m} runs cannot give p < {ALPHA}", style="yellow")
    return Text(f"q={change.q:.2f}", style="dim")


def history_summary(histories: list[History], threshold: float) -> str:
    runs = {p.run.id for h in histories for p in h.points}
    steps = sum(len(h.steps) for h in histories)
    stepped = sum(bool(h.steps) for h in histories)
    drifts = sum(h.drift is not None and h.drift.is_step for h in histories)
    return (
        f"{_plural(len(histories), 'cell')} over {_plural(len(runs), 'run')}: {_plural(steps, 'step')} "
        f"in {_plural(stepped, 'cell')}, {_plural(drifts, 'drift')} "
        f"(called at q < {ALPHA}, the tests adjusted together ({CORRECTION}), and {_threshold(threshold)} or more)"
    )


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' * (n != 1)}"


def _threshold(share: float) -> str:
    """A threshold as given, in percent: 2%, 2.5%, 0.1% (not rounded to 0%)."""
    return f"{share * 100:g}%"
