"""How runs differ: concbench compare (two runs) and history (every run of each cell)."""

import click
from rich.text import Text

from .. import environment, options
from ..display import printable
from ..report import comparison, run_report, terminal
from ..report.history import histories, latest_machine, other_machine_runs
from ..selection import CellFilter
from .console import console
from .shared_options import (
    ACROSS_MACHINES_OPTION,
    DB_OPTION,
    MECHANISM_OPTION,
    RUNTIME_OPTION,
    THRESHOLD_OPTION,
    WORKLOAD_OPTION,
    existing_store,
    param_option,
    suite_options,
)


@click.command()
@click.argument("before", type=int, metavar="RUN_A")
@click.argument("after", type=int, metavar="RUN_B")
@THRESHOLD_OPTION
@click.option(
    "--fail-on-regression",
    type=options.Finite(min=0),
    metavar="PCT",
    help="Exit 1 if a cell is called slower by PCT percent or more (for CI); "
    "lowers --threshold to PCT if that is lower.",
)
@ACROSS_MACHINES_OPTION
@DB_OPTION
@suite_options
def compare(before, after, threshold, fail_on_regression, across_machines, db, suite):
    """Compare two stored runs cell by cell: both medians and their ratio.

    Each cell is tested with a two-sided Mann-Whitney U test on the timed runs
    of the verified trials; the p-values of the comparison's cells are
    adjusted together (Benjamini-Hochberg), and a change is called only at
    q < 0.05 and when the medians differ by at least --threshold. With 3 runs
    a side no test can reach p < 0.05: give the runs more trials or runs
    (e.g. --trials 5). A cell whose noise could hide the threshold says so."""
    store = existing_store(db)
    runs = store.run(before), store.run(after)
    trials = store.trials(runs[0].id), store.trials(runs[1].id)
    if not across_machines:
        comparison.refuse_other_machines(runs, trials)
    specs = run_report.load_specs(suite)
    if fail_on_regression is not None:  # a regression that is not called cannot fail
        threshold = min(threshold, fail_on_regression)
    found = comparison.changes(*trials, specs, threshold / 100)
    for label, run_info in zip(("before", "after"), runs):
        console.print(Text(f"{label}: ") + terminal.run_header(run_info))
    for difference in environment.differences(runs[0].environment, runs[1].environment):
        console.print(Text.assemble(("differs:", "yellow"), printable(f" {difference}")))
    for line in terminal.render_changes(found):
        console.print(line)
    console.print()
    console.print(terminal.change_summary(found))
    if apart := comparison.cpu_counts_apart(trials):
        console.print(apart, style="yellow")
    return regressions(found, fail_on_regression)


@click.command()
@WORKLOAD_OPTION
@RUNTIME_OPTION
@MECHANISM_OPTION
@param_option("Only cells with this parameter value, as the titles print it.")
@THRESHOLD_OPTION
@click.option("--last", type=click.IntRange(min=1), metavar="N", help="Only the N latest runs of each cell.")
@click.option("--steps-only", is_flag=True, help="Only the cells where a step or a drift was called.")
@ACROSS_MACHINES_OPTION
@DB_OPTION
@suite_options
def history(workload, runtime, mechanism, param, threshold, last, steps_only, across_machines, db, suite):
    """How each cell's median moved across the stored runs, with the steps
    larger than the noise called.

    Each run is tested against the previous run with the cell, as compare
    tests two runs (p < 0.05 and --threshold), and the first against the
    last, for a drift of steps too small to call one by one."""
    wanted = CellFilter(workload, runtime, mechanism, tuple(param.items()))
    store = existing_store(db)
    stored = store.runs_with_trials()
    runs = [run for run, _ in stored]
    machine = None if across_machines else latest_machine(runs)
    found = histories(store.name, stored, run_report.load_specs(suite), threshold / 100, wanted, last, machine)
    for cell_history in found:
        if cell_history.moved or not steps_only:
            console.print()
            for line in terminal.render_history(cell_history):
                console.print(line)
    console.print()
    console.print(terminal.history_summary(found, threshold / 100))
    if machine is not None and (others := other_machine_runs(runs, machine)):
        console.print(
            printable(
                f"left out {others} run(s) of other machines than the latest run's, "
                f"{environment.machine_text(machine)} (--across-machines takes them in)"
            ),
            style="yellow",
        )
    console.print(terminal.HISTORY_LEGEND, style="dim")
    return 0


def regressions(found, fail_on_regression) -> int:
    """1 if a cell was called slower by fail_on_regression percent or more, each named."""
    if fail_on_regression is None:
        return 0
    slower = [c for c in found if c.verdict == comparison.Verdict.SLOWER and c.slowdown * 100 >= fail_on_regression]
    for c in slower:
        console.print(
            Text.assemble(
                ("regression", "bold red"),
                printable(f" {c.table.workload} {c.table.params_text} {c.row}: {c.slowdown:.1%} more time"),
            )
        )
    return 1 if slower else 0
