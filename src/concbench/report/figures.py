"""What every format of a report (terminal, Markdown, HTML) says alike, as
plain text for each to lay out and escape its own way: the figures (ratios,
counts, shares, intervals, SI-scaled numbers, memory), the trials and
skipped columns, and the legend. Which figures make a table's columns is
columns.py's."""

import textwrap
from collections.abc import Callable
from typing import TYPE_CHECKING

from .. import warmup
from ..formatting import percent
from ..stats import T_LEAST, Summary

if TYPE_CHECKING:
    from ..results import CellResult
    from .aggregate import Observed, Table


def ratio_text(ratio: float) -> str:
    """x2.05, x0.07, x0.0035: two decimals, or two significant digits below
    0.1, where two decimals would round a real difference to x0.00."""
    return "x" + factor_text(ratio)


def factor_text(factor: float) -> str:
    """A ratio's digits without its x: 2.05, 0.0035."""
    return f"{factor:.2f}" if factor >= 0.1 else f"{factor:.2g}"


def speedup_parts(factor: Summary, efficiency: Summary) -> tuple[str, str, str]:
    """A speed-up, its 95% interval and its efficiency: ('x1.93', '[1.85, 2.01] t', '97%')
    (t: Student's t's interval; n<3: none)."""
    interval = interval_text(factor, lambda s: f"[{factor_text(s.ci[0])}, {factor_text(s.ci[1])}]")
    return ratio_text(factor.median), interval, percent(efficiency.median)


def count_text(n: int) -> str:
    """A count in at most five characters: 1234, 12.3k, 4.57M."""
    if n < 10_000:
        return str(n)
    value, suffix = (n / 1e6, "M") if n >= 999_500 else (n / 1e3, "k")
    return f"{value:.3g}{suffix}"


def units_text(units: tuple[int, ...]) -> str:
    """Units in the narrow columns of the terminal and Markdown: 40, 27.2k-38.3k."""
    if not units:
        return "-"
    return count_text(units[0]) if len(units) == 1 else f"{count_text(units[0])}-{count_text(units[-1])}"


def si(value: float) -> str:
    """A count the way benchmark-ips prints it: 7.765, 1.534k, 11.049M."""
    for factor, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if value >= factor:
            return f"{value / factor:.3f}{suffix}"
    return f"{value:.3f}"


# What an interval column shows without one: fewer values than any interval needs.
NO_INTERVAL = f"n<{T_LEAST}"


def interval_text(summary: Summary, bounds_text: Callable[[Summary], str] | None = None) -> str:
    """The confidence interval of the median, relative to it (or as
    bounds_text writes it), marked t where Student's t gave it (3 to 5
    values), or n<3 where there is none."""
    if not summary.ci:
        return NO_INTERVAL
    written = bounds_text(summary) if bounds_text else relative_text(summary, summary.ci)
    return written + (" t" if summary.by_t else "")


def relative_text(summary: Summary, bounds: tuple[float, float]) -> str:
    """Bounds relative to the median: '-3.1/+5.2%'."""
    low, high = (bound / summary.median - 1 for bound in bounds)
    return f"{low * 100:+.1f}/{high * 100:+.1f}%"


def cv_text(summary: Summary) -> str:
    return f"{summary.cv * 100:.1f}%" if summary.n > 1 else "-"


def verified_text(cell: "CellResult") -> str:
    """The trials column: verified / run."""
    return f"{len(cell.verified)}/{len(cell.trials)}"


def failures_text(cell: "CellResult") -> str:
    """The trials that did not verify, by status: '1 INVALID 2 TIMEOUT'; '' for none."""
    return " ".join(f"{n} {status.upper()}" for status, n in sorted(cell.failures.items()))


def trials_text(cell: "CellResult") -> str:
    """The trials column in plain text: '1/3 2 TIMEOUT'."""
    failures = failures_text(cell)
    return f"{verified_text(cell)} {failures}" if failures else verified_text(cell)


def skipped_text(table: "Table") -> dict[str, str]:
    """The rows that did not run, those with the same reason together:
    {'n/a: why': 'ruby/thread, c/pthread'}."""
    return {f"{kind}: {reason}": ", ".join(rows) for (kind, reason), rows in table.skipped_by_reason().items()}


def share_text(observed: "Observed | None") -> str:
    if observed is None:
        return "-"
    return "?" if observed.share is None else percent(observed.share)


PREFIXES = ((1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n"))


def scaled(value: float) -> tuple[str, str]:
    """Four significant digits and an SI prefix: ('121.8', 'm') for 0.1218."""
    if value == 0:
        return "0", ""
    factor, prefix = next(((f, p) for f, p in PREFIXES if abs(value) >= f), PREFIXES[-1])
    return f"{value / factor:.4g}", prefix


def seconds_text(value: float) -> str:
    """Seconds on the HTML page, where figures of any size share a chart: 121.8 ms."""
    number, prefix = scaled(value)
    return f"{number} {prefix}s"


def rate_text(value: float) -> str:
    """Operations per second on the HTML page: 13.99M (the tables print si()'s, the seeds' own)."""
    number, prefix = scaled(value)
    return number + prefix


def reading(table: "Table") -> tuple[Callable[[float], str], str, str]:
    """How a table's figure reads on the page: its text, its name and which way is better."""
    if table.rate_format:
        return rate_text, "operations per second", "higher is better"
    return seconds_text, "real time", "lower is better"


def megabytes_text(kb: float) -> str:
    """Memory in every format: kB as '13.6 MB'."""
    return f"{kb / 1024:.1f} MB"


def units_range(units: tuple[int, ...]) -> str:
    """Units on the HTML page, which has room for every digit: 40, 27,200–38,300."""
    if not units:
        return "–"
    return f"{units[0]:,}" if len(units) == 1 else f"{units[0]:,}–{units[-1]:,}"


# How to read a table: one legend, which the terminal prints under the
# tables (with --legend, and under a database's first run), Markdown as a
# paragraph and the HTML page as a list.
LEGEND = (
    "Every trial is a fresh process; the runtime's kit measures its timed runs around the work only. "
    "Warm-up runs are measured and verified too, but never counted, and a trial that is not verified "
    "(INVALID, or any other failure) never enters a figure. A JIT's trials warm up until their last "
    f"{warmup.WINDOW} warm-ups lie within {warmup.SPREAD:.0%} of each other (a served workload's by their CPU "
    f"time, its wall time being the load's), {warmup.MOST} at most; a row "
    "is marked unsteady where a trial's last warm-ups still differed by more (its cap ended them).",
    "user, system, total, (real): medians in seconds over the timed runs of the verified trials; "
    "ratio: to the first row, the baseline, from neighbours: each trial's real time over that of the "
    "baseline's trial that ran nearest to it (trials of a table run back to back), and the median of "
    "those ratios, so that the machine's slow spells and drift, which hit both trials of a pair, cancel. "
    "A run of fixed work shorter than the minimum "
    "(10 ms in the quick profile, 50 ms in standard and full) repeats the work, as often as the cell's first "
    "trial (which ran it once a run) said, and its figures "
    "are per repetition; the table says under it which rows repeat.",
    "Rate workloads (executions, i/s): the count, time, units and live of the median run, then the median "
    "ops/s; ratio: ops/s / ops/s of the first row (higher is faster).",
    "95% CI: the 95% confidence interval of the ratio (the median of its pairs), relative to it; for the "
    "baseline, of its median: from 6 pairs (or timed runs), distribution-free, from order statistics; from 3 "
    "to 5, marked t, Student's t on their logarithms, which assumes log-normal noise; below 3 there is none "
    "(n<3) and the min-max range stands in when ranking. "
    "cv: coefficient of variation. 'not settled': two neighbours in rank order whose intervals overlap, "
    "so this run cannot say which is faster. A run that gives cells trials until their interval is within a "
    "target (+-3% by default) marks wide a row whose interval is still wider when its trials stopped, at "
    "their cap or the budget.",
    "memory: median peak RSS per trial process (wait4); * = the whole process tree of a mechanism that forks "
    "(the parent's peak + each child's private memory). The memory floor is each kit's peak RSS answering "
    "a request to do nothing, which every row of its runtime carries; net (HTML) is memory minus it.",
    "overhead (workloads whose units sleep by design): real time minus the delay every unit slept.",
    "units: threads, fibers, processes or ractors started per run; live: the most of them alive at once; "
    "contended, blocked, switched: the share of the workload's events that went the concurrent way "
    "(acquisitions that found the lock held, pushes and pops that waited, yields that let another unit "
    "run; ?: not observable by the mechanism). A row whose units never overlapped is marked serial, one "
    "where under 1% of the events did with the spec's word (uncontended, unblocked, no switch), with what "
    "was observed under the table: honest rows (a GVL is real), but no contention.",
    "Served workloads (echo): rate, the requests a second the server sustained (! below 97% of the rate "
    "asked: it fell behind); p50, p99, p99.9, max, the latency from when a request was due to when its echo "
    "arrived; lag, the generator's own lateness, the most it sent a request after it was due (medians over "
    "the timed runs). The generator shares the machine with the server, which can take its CPU: a row "
    "where some run's lag passed that run's p99 is marked late generator, its latencies partly the "
    "generator's.",
    "Speed-up over CPUs (run --cpus 1,2,...): after a parameter set's tables, each row against itself at 1 CPU: "
    "time at 1 / time at k (rate at k / rate at 1), from each trial at k and the trial at 1 that ran nearest "
    "to it, the median of those pairs with its 95% CI [low, high] (t: Student's t), and the efficiency, "
    "speed-up / k: 100% scales perfectly, 1/k (50% at 2) not at all, as a row under a GIL.",
    "switches (HTML): the trial process's context switches (wait4): voluntary ones are waits, involuntary "
    "ones preemptions. trials: verified / run.",
    "In the terminal, more than 3 n/a lines under a table (or remarks and notes, repetition or 'not settled' lines) become one line "
    "(the HTML report has each of them); -w, -r and -m narrow show and report to some rows.",
)


def legend_text(width: int = 96) -> str:
    """The legend for a terminal: each item wrapped to width."""
    return "\n".join(textwrap.fill(item, width) for item in LEGEND)
