"""The columns of a result table, each defined once: its header, its tooltip
on the HTML page, its text for a cell, and the tables it is in.

Two kinds of table show them. The terminal and Markdown print a seed's
table: the row, the figures of the report the workload comes from (SEEDS),
then seed_columns. The HTML page, with room for every digit and a tooltip
on each header, shows page_columns. Every table ends with the trials, which
each format marks its own way. A text of None is a figure the cell lacks:
"-" in plain text, "–" on the page. Where the formats differ on purpose, a
column says so: `page` is its text on the page, `fixed` its place in the
terminal's fixed-width line."""

from collections.abc import Callable
from dataclasses import dataclass, replace

from ..cpus import counted
from ..stats import Summary
from . import latency
from .aggregate import CellResult, Table
from .figures import (
    cv_text,
    interval_text,
    megabytes_text,
    ratio_text,
    reading,
    seconds_text,
    share_text,
    si,
    speedup_parts,
    trials_text,
    units_range,
    units_text,
)
from .scaling import Scaling, Speedup

Text = Callable[[CellResult], str | None]


@dataclass(frozen=True)
class Fixed:
    """A column's place in the terminal's line: gap spaces, then its text
    right-aligned in width (or its header's, if wider), under its header
    right-aligned in head (gap + width unless given: a few headers stand a
    character or two off their column, as they always have)."""

    width: int
    gap: int = 1
    head: int | None = None
    lacking_gap: int | None = None  # memory's "-" stands one character left of its figures


@dataclass(frozen=True)
class Column:
    """A column of one table: text, page and mark take a row's cell."""

    header: str
    text: Text
    tip: str = ""
    page: Text | None = None  # its text on the HTML page, where it differs
    mark: Callable[[CellResult], str] | None = None  # a sign after the text, the terminal's in a place of its own
    fixed: Fixed = Fixed(8)
    blank: bool = False  # the row shows it elsewhere: the terminal keeps its place empty, Markdown leaves it out


def seed_columns(table: Table) -> list[Column]:
    """What the terminal and Markdown print after a seed's figures."""
    # A served row's real time is its load's length, the same for every row:
    # its figures are its rate and latencies, and no ratio is taken of it.
    served = table.served
    return [
        *_overhead(table),
        replace(_ratio(table), blank=served),
        Column("95% CI", lambda c: interval_text(table.interval(c)), fixed=Fixed(13, head=13), blank=served),
        replace(_cv(table), blank=served or not SEEDS[table.rate_format].cv),
        _memory(table),
        _units(table),
        _live(table),
        *_evidence(table),
        *_latency(table),
    ]


def page_columns(table: Table) -> list[Column]:
    """What the HTML page shows of a row with a figure."""
    (text, _, _), figure = reading(table), table.figure
    slowest, fastest = "the slowest timed run", "the fastest timed run"
    return [
        Column(
            "ops/s" if table.rate_format else "real",
            lambda c: text(figure(c).median),
            "the median over the timed runs of verified trials",
        ),
        Column(
            "95%\u00a0CI",
            lambda c: _absolute_interval(figure(c), text),
            "the 95% confidence interval of the median (t: from 3 to 5 runs, Student's t on their logarithms); "
            "n<3: too few runs for one, the range stands in",
        ),
        Column("min", lambda c: text(figure(c).min), slowest if table.rate_format else fastest),
        Column("max", lambda c: text(figure(c).max), fastest if table.rate_format else slowest),
        _cv(table),
        *(
            []
            if table.served
            else [
                _ratio(table),
                Column(
                    "ratio\u00a0CI",
                    lambda c: _given(interval_text, table.ratio_summary(c)),
                    "the 95% confidence interval of that median, relative to it (t: from 3 to 5 pairs, Student's t "
                    "on their logarithms); n<3: fewer than 3 pairs of trials",
                ),
            ]
        ),
        *_overhead(table),
        Column("user", lambda c: seconds_text(c.user.median), "median CPU time in user mode"),
        Column("system", lambda c: seconds_text(c.system.median), "median CPU time in the kernel"),
        _memory(table),
        Column(
            "net",
            lambda c: (
                megabytes_text(c.memory_kb.median - table.floor_kb(c)) if c.memory_kb and table.floor_kb(c) else None
            ),
            "memory minus its kit's floor: the peak RSS of the runtime's kit answering a request to do nothing",
        ),
        _units(table),
        _live(table),
        *_evidence(table),
        *_latency(table),
        Column(
            "switches",
            _switches,
            "context switches per trial process (wait4, medians): voluntary (waits) / involuntary (preemptions)",
        ),
        Column(
            "warm-up (discarded)",
            lambda c: seconds_text(c.warmup_real.median) if c.warmup_real else None,
            "median real time of the warm-up runs: measured and verified, never counted",
        ),
    ]


# The last column of every table.
TRIALS = Column("trials", trials_text, "verified / run")


def _overhead(table: Table) -> list[Column]:
    """Only in tables of workloads whose units sleep by design."""
    if not table.delay:
        return []
    return [
        Column(
            "overhead",
            lambda c: f"{table.overhead(c):.6f}",
            f"real time minus the {seconds_text(table.delay)} every unit slept",
            page=lambda c: seconds_text(table.overhead(c)),
            fixed=Fixed(10),
        )
    ]


def _ratio(table: Table) -> Column:
    return Column(
        "ratio",
        lambda c: _given(ratio_text, table.ratio(c)),
        "to the baseline: the median of the ratios of the row's trials to the baseline's trial that ran "
        "nearest to each" + (" (above 1 is faster)" if table.rate_format else ""),
        fixed=Fixed(10, gap=0),
    )


def _cv(table: Table) -> Column:
    return Column(
        "cv",
        lambda c: cv_text(table.figure(c)) if table.figure(c).n > 1 else None,
        "coefficient of variation: standard deviation / mean",
        fixed=Fixed(7),
    )


def _memory(table: Table) -> Column:
    return Column(
        "memory",
        lambda c: megabytes_text(c.memory_kb.median) if c.memory_kb else None,
        "median peak RSS of a trial process; * the whole process tree",
        mark=lambda c: "*" if c.memory_is_tree else "",
        fixed=Fixed(10, gap=2, head=11, lacking_gap=1),
    )


def _units(table: Table) -> Column:
    """Units in the narrow columns of plain text (27.2k-38.3k); every digit on the page."""
    return _counted(table, 0, "units", "threads, fibers, processes... started per run", Fixed(9, head=11))


def _live(table: Table) -> Column:
    return _counted(table, 1, "live", "the most units alive at once", Column.fixed)


def _counted(table: Table, which: int, header: str, tip: str, fixed: Fixed) -> Column:
    """One of a row's unit counts (units_and_live: 0 started, 1 alive at once)."""
    median_run = " (the median run)" if table.rate_format else ""
    return Column(
        header,
        lambda c: units_text(table.units_and_live(c)[which]),
        tip + median_run,
        page=lambda c: units_range(table.units_and_live(c)[which]),
        fixed=fixed,
    )


def _evidence(table: Table) -> list[Column]:
    """A column per kind of event the workload observes (contended, blocked...)."""
    return [
        Column(
            name,
            lambda c, name=name: share_text(table.observed_by_name(c).get(name)),
            f"the share of its {table.spec.evidence[name].of} events that went the concurrent way: "
            f"{table.spec.evidence[name].share}; ?: not observable",
        )
        for name in table.evidence_names
    ]


def _latency(table: Table) -> list[Column]:
    """A served workload's rate and latencies (latency.py); none for any other."""
    if not table.served:
        return []
    rate = Column(
        "rate",
        latency.rate_text,
        "requests a second the server sustained, the median run's; "
        f"! below {latency.SUSTAINED:.0%} of the rate asked: it fell behind",
        mark=lambda c: "!" if latency.behind(c) else "",
        fixed=Fixed(9),
    )
    percentiles = [
        Column(header, lambda c, key=key: latency.latency_text(c, key), f"latency at {header}, the median run's")
        for header, key in latency.PERCENTILES
    ]
    lag = Column(
        "lag",
        latency.send_lag_text,
        "the generator's own lateness, the median run's: the most it sent a request after it was due; "
        f"a row is marked {latency.LATE} where a run's lag passed its p99",
        fixed=Fixed(7),
    )
    return [rate, *percentiles[:2], lag, *percentiles[2:]]


def _switches(cell: CellResult) -> str | None:
    if cell.switches is None:
        return None
    voluntary, involuntary = cell.switches
    return f"{voluntary.median:,.0f} / {involuntary.median:,.0f}"


def _absolute_interval(summary: Summary, text: Callable[[float], str]) -> str:
    """The median's 95% CI in the figure's own unit."""
    return interval_text(summary, lambda s: f"{text(s.ci[0])} – {text(s.ci[1])}")


def _given(text: Callable, value) -> str | None:
    """text of value, None for none (no ratio without a baseline figure)."""
    return text(value) if value is not None else None


Parts = tuple[str, ...] | None  # a cell of the scaling block, in parts to align; None: nothing there


def scaling_grid(found: Scaling) -> tuple[list[str], list[tuple[str, list[Parts]]]]:
    """The scaling block of the terminal and Markdown: headers, then per row
    its cells, a column per CPU count above 1 with its speed-up, interval and
    efficiency (None: no verified pair there). A seed that ranks its rows by a
    figure (Pbt's i/s) has it at 1 CPU too, and before each speed-up, as its
    report would have printed each worker mode at each CPU count."""
    scaled = SEEDS[found.first.rate_format].scaled
    counts = (1, *found.counts) if scaled else found.counts
    rows = [
        (row.row, ([(scaled(row.one) or "-",)] if scaled else []) + [_speedup(s, scaled) for s in row.speedups])
        for row in found.rows
    ]
    return [counted(k) for k in counts], rows


def _speedup(found: Speedup | None, scaled: Callable[[CellResult], str | None] | None) -> Parts:
    """A count's cell: the seed's figure there, if it prints one, then the speed-up's parts."""
    if found is None:
        return None
    figure = (scaled(found.cell) or "-",) if scaled else ()
    return (*figure, *speedup_parts(found.factor, found.efficiency))


# The seeds' formats: the figures each prints first, named (Markdown's
# headers), and its own line in the terminal. Keyed by a table's rate_format.


@dataclass(frozen=True)
class Seed:
    headers: tuple[str, ...]
    figures: Callable[[CellResult], list[str]]
    head: Callable[[int], str]  # the terminal's header over the figures, for labels of a width
    label: Callable[[str, int], str]  # the row's name in the terminal
    line: Callable[[list[str]], str]  # the figures in the terminal
    cv: bool = True  # False where the figures already show the coefficient of variation
    # The figure its scaling block prints at 1 CPU and beside each speed-up
    # (scaling_grid), where the seed ranks its rows by one; None: speed-ups only.
    scaled: Callable[[CellResult], str | None] | None = None


def _benchmark(cell: CellResult) -> list[str]:
    """Ruby's Benchmark, as the UringMachine seed prints it: user, system, total, real."""
    return [f"{s.median:.6f}" for s in (cell.user, cell.system, cell.total, cell.real)]


def _executions(cell: CellResult) -> list[str]:
    """Concurrently's "proc.call:   11048400 executions in 1.0000 seconds", then ops/s."""
    sample = cell.median_sample
    return [str(sample.ops), f"{sample.wall_ns / 1e9:.4f}", si(cell.rate.median)]


def _ips(cell: CellResult) -> list[str]:
    """benchmark-ips, as the Pbt seed prints it: "39.273 (± 2.5%) i/s - 198.000 in 5.042910s"."""
    rate, samples = cell.rate, cell.rated_samples
    return [
        si(rate.median),
        cv_text(rate),
        si(sum(s.ops for s in samples)),
        f"{sum(s.wall_ns for s in samples) / 1e9:.6f}s",
    ]


def _ips_rate(cell: CellResult) -> str | None:
    """benchmark-ips' figure alone: '39.273 i/s'."""
    return f"{si(cell.rate.median)} i/s" if cell.rate else None


def _ips_line(rate: str, cv: str, count: str, seconds: str) -> str:
    spread = f"(± {cv:>5})" if cv != "-" else "(     - )"
    return f" {rate:>10} {spread} i/s - {count:>10} in {seconds:>12}"


SEEDS = {
    None: Seed(
        ("user", "system", "total", "real"),
        _benchmark,
        lambda w: f"{'':<{w}}       user     system      total        real",
        lambda row, w: f"{row:<{w}}",
        lambda f: f" {f[0]:>10} {f[1]:>10} {f[2]:>10} ({f[3]:>10})",
    ),
    "executions": Seed(
        ("executions", "in seconds", "ops/s"),
        _executions,
        lambda w: f"{'':<{w + 1}}{'':>42}{'ops/s':>11}",
        lambda row, w: f"{row + ':':<{w + 1}}",
        lambda f: f" {f[0]:>12} executions in {f[1]} seconds {f[2]:>10}",
    ),
    "ips": Seed(
        ("i/s", "±", "count", "in"),
        _ips,
        lambda w: f"{'':<{w}}{'':>56}",
        lambda row, w: f"{row:>{w}}",
        lambda f: _ips_line(*f),
        cv=False,
        scaled=_ips_rate,
    ),
}
