"""Tables for the terminal in the seed's own format (Ruby's Benchmark:
user, system, total and (real), then ratio), with the figures none of the
seeds had: spread, peak memory, units and how many trials verified."""

from dataclasses import dataclass
from typing import Callable

from rich.text import Text

from ..protocol import Status
from ..stats import Summary
from ..store import RunInfo
from .aggregate import CellResult, Table, ratio_text
from .comparison import ALPHA, Change, Verdict

LEGEND = (
    "user, system, total, (real): medians in seconds over the timed runs of verified trials,\n"
    "measured by the kit around the work only; ratio: real / real of the first row (the baseline);\n"
    "overhead: real minus the delay every unit slept (spawn); spread: coefficient of variation\n"
    "of real; memory: median peak RSS per trial process (wait4),\n"
    "* = the whole process tree (the parent's peak + each child's private memory); units: threads,\n"
    "fibers, processes or ractors created per run; trials: verified / run. A trial that is not\n"
    "verified never enters a figure.\n"
    "Rate workloads (executions, i/s): the count, time and units of the median run, the median\n"
    "ops/s with its coefficient of variation across runs; ratio: ops/s / ops/s of the first row\n"
    "(higher is faster)."
)


def run_header(run: RunInfo) -> Text:
    request, env = run.request, run.environment
    settings = f"{request.get('profile')} profile"
    return Text.assemble(
        (f"run {run.id}", "bold"), f"  {run.started}  {settings}  {run.state}\n",
        f"{env.get('cpu', '?')}, {env.get('cores', '?')} cores, Linux {env.get('kernel', '?')}, "
        f"load {', '.join(map(str, env.get('load', [])))}, concbench {env.get('concbench') or '?'}",
        style=None)


def render(table: Table) -> list[Text]:
    width = max([len(r.key.row) for r in table.rows] + [len(s.row) for s in table.skipped] + [12])
    layout = LAYOUTS[table.rate_format]
    header = layout.header(width) + ("   overhead" if table.delay else "")
    lines = [Text(f"{table.title} ({table.workload}): {table.params}", style="bold"),
             Text(header + ("     ratio   spread" if layout.spread else "     ratio") + _TAIL_HEADER,
                  style="dim")]
    for cell in table.rows:
        label = layout.label(cell.key.row, width)
        if table.figure(cell) is None:
            lines.append(Text.assemble(label, " " * (len(header) - len(label)),
                                       ("no verified trial", "red"), "  ", _check(cell)))
        else:
            spread = _spread(layout.spread(cell)) if layout.spread else ""
            overhead = f" {table.overhead(cell):10.6f}" if table.delay else ""
            lines.append(Text.assemble(label, layout.figures(cell), overhead, _ratio(table.ratio(cell)),
                                       spread, _tail(cell, table.rate_format is not None)))
    lines += [Text(f"{rows:<{width}}  {why}", style="dim") for why, rows in _skipped(table).items()]
    lines += [line for cell in table.rows for line in _failures(cell)]
    return lines


@dataclass(frozen=True)
class Layout:
    """How a table's rows start: the header over the figures, the row label, the figures."""
    header: Callable[[int], str]
    label: Callable[[str, int], str]
    figures: Callable[[CellResult], str]
    spread: Callable[[CellResult], Summary] | None  # the figure whose spread follows the ratio


def _benchmark(cell: CellResult) -> str:
    return (f" {cell.user.median:10.6f} {cell.system.median:10.6f} {cell.total.median:10.6f} "
            f"({cell.real.median:10.6f})")


def _executions(cell: CellResult) -> str:
    run = cell.median_run
    return (f" {run.ops:>12} executions in {run.wall_ns / 1e9:.4f} seconds"
            f" {_si(cell.rate.median):>10}")


def _ips(cell: CellResult) -> str:
    rate, runs = cell.rate, cell.rated_runs
    spread = f"(± {rate.cv * 100:4.1f}%)" if rate.n > 1 else "(     - )"
    return (f" {_si(rate.median):>10} {spread} i/s - {_si(sum(s.ops for s in runs)):>10} "
            f"in {sum(s.wall_ns for s in runs) / 1e9:11.6f}s")


LAYOUTS = {
    # Ruby's Benchmark, as the UringMachine seed prints it.
    None: Layout(lambda w: f"{'':<{w}}       user     system      total        real",
                 lambda row, w: f"{row:<{w}}", _benchmark, lambda cell: cell.real),
    # Concurrently's "proc.call:   11048400 executions in 1.0000 seconds", then ops/s.
    "executions": Layout(lambda w: f"{'':<{w + 1}}{'':>42}{'ops/s':>11}",
                         lambda row, w: f"{row + ':':<{w + 1}}", _executions, lambda cell: cell.rate),
    # benchmark-ips, as the Pbt seed prints it: "39.273 (± 2.5%) i/s - 198.000 in 5.042910s".
    "ips": Layout(lambda w: f"{'':<{w}}{'':>56}", lambda row, w: f"{row:>{w}}", _ips, None),
}


_TAIL_HEADER = "     memory      units  trials"


def _spread(summary) -> str:
    return f"   ±{summary.cv * 100:4.1f}%" if summary.n > 1 else f"{'-':>9}"


def _ratio(ratio: float | None) -> str:
    return f"{ratio_text(ratio):>10}" if ratio is not None else f"{'-':>10}"


def _tail(cell: CellResult, rate: bool) -> Text:
    memory = cell.memory_kb
    # A time-boxed run creates as many units as it had time for: show the
    # median run's, the run whose count the row prints.
    units = (cell.median_run.units,) if rate else cell.units
    return Text.assemble(
        f"  {memory.median / 1024:7.1f} MB" if memory else "          -",
        "*" if cell.memory_is_tree else " ",
        f" {_units(units):>9}  ",
        _check(cell),
    )


def _si(value: float) -> str:
    """A count the way benchmark-ips prints it: 7.765, 1.534k, 11.049M."""
    for factor, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if value >= factor:
            return f"{value / factor:.3f}{suffix}"
    return f"{value:.3f}"


def _check(cell: CellResult) -> Text:
    verified, total = len(cell.verified), len(cell.trials)
    text = Text(f"{verified}/{total}", style="green" if verified == total else "red")
    for status, count in sorted(cell.failures.items()):
        text.append(f" {count} {status.upper()}", style="bold red")
    return text


def _units(units: tuple[int, ...]) -> str:
    if not units:
        return "-"
    return _count(units[0]) if len(units) == 1 else f"{_count(units[0])}-{_count(units[-1])}"


def _count(n: int) -> str:
    """A count in at most five characters: 1234, 12.3k, 4.57M."""
    if n < 10_000:
        return str(n)
    value, suffix = (n / 1e6, "M") if n >= 999_500 else (n / 1e3, "k")
    return f"{value:.3g}{suffix}"


def _skipped(table: Table) -> dict[str, str]:
    """The rows that did not run, those with the same reason on one line."""
    rows: dict[str, list[str]] = {}
    for s in table.skipped:
        rows.setdefault(f"{s.kind}: {s.reason}", []).append(s.row)
    return {why: ", ".join(names) for why, names in rows.items()}


def _failures(cell: CellResult) -> list[Text]:
    """Each distinct failure of a cell once, with the trials it hit and the end of its stderr."""
    seen: dict[tuple, list[int]] = {}
    for t in cell.trials:
        if t.status != Status.OK:
            seen.setdefault((t.status, t.detail, t.stderr), []).append(t.trial + 1)
    lines = []
    for (status, detail, stderr), numbers in seen.items():
        which = "trial" + ("s " if len(numbers) > 1 else " ") + ", ".join(map(str, numbers))
        lines.append(Text.assemble(f"  {cell.key.row} {which}: ", (status.upper(), "bold red"),
                                   f": {detail}"))
        lines += [Text(f"    | {line[:160]}", style="dim") for line in stderr.strip().splitlines()[-3:]]
    return lines


def render_changes(changes: list[Change]) -> list[Text]:
    """The Before/After tables: per cell both medians, their ratio, the test's
    p-value and the verdict; one table per workload and parameter set."""
    groups: dict[tuple[str, str], list[Change]] = {}
    for change in changes:
        groups.setdefault((change.table.workload, change.table.params), []).append(change)
    lines = []
    for group in groups.values():
        table = group[0].table
        width = max([len(c.row) for c in group] + [12])
        unit = "ops/s" if table.rate_format else "real"
        lines += [Text(), Text(f"{table.title} ({table.workload}): {table.params}", style="bold"),
                  Text(f"{'':<{width}} {'before ' + unit:>14} {'after ' + unit:>14}      ratio         p  change",
                       style="dim")]
        for change in group:
            before, after = change.medians
            ratio = _ratio(after / before) if before and after else f"{'-':>10}"
            p = f"{change.p:9.3f}" if change.p is not None else f"{'-':>9}"
            lines.append(Text.assemble(f"{change.row:<{width}} {_figure(table, before)} {_figure(table, after)}",
                                       ratio, p, "  ", _verdict(change)))
    return lines


def _figure(table: Table, value: float | None) -> str:
    if value is None:
        return f"{'-':>14}"
    return f"{_si(value):>14}" if table.rate_format else f"{value:14.6f}"


def _verdict(change: Change) -> Text:
    slowdown = change.slowdown
    match change.verdict:
        case Verdict.FASTER:
            return Text(f"faster: {-slowdown:.1%} less time", style="bold green")
        case Verdict.SLOWER:
            return Text(f"slower: {slowdown:.1%} more time", style="bold red")
        case Verdict.SAME:
            why = "within the noise" if change.p >= ALPHA else f"under the {change.threshold:.0%} threshold"
            return Text(f"no change ({slowdown:+.1%}, {why})", style="dim")
        case Verdict.UNTESTABLE:
            n, m = change.sizes
            return Text(f"untested ({slowdown:+.1%}): {n} and {m} runs cannot give p < {ALPHA}",
                        style="yellow")
    missing = ("only in the after run" if change.before is None else
               "only in the before run" if change.after is None else "no verified run on one side")
    return Text(missing, style="yellow")


def change_summary(changes: list[Change]) -> str:
    if not changes:
        return "no cells in either run"
    counts = {verdict: sum(c.verdict == verdict for c in changes) for verdict in Verdict}
    return (", ".join(f"{n} {verdict}" for verdict, n in counts.items() if n) +
            f" (a change is called at p < {ALPHA} and {changes[0].threshold:.0%} or more)")
