"""concbench run (a selection's trials, taken and stored) and ab (two
versions of runtimes, trial beside trial)."""

import dataclasses
import shlex
import signal
import sys

import click

from .. import cpus as cpu_counts
from .. import environment, limits, options, paths, runtimes, session, versions, workloads
from ..display import printable
from ..errors import UserError
from ..plan import Plan, choose, make_plan, paired_plan
from ..records import Machine
from ..report import ab as ab_report
from ..report import run_report, terminal
from ..selection import BOUNDS, MIN_RUN, QUICK_MIN_RUN, TARGET, Selection
from ..store import open_store
from .compare import regressions
from .console import console, say
from .shared_options import (
    CPUS_OPTION,
    DB_OPTION,
    LEGEND_OPTION,
    MACHINE_OPTION,
    MECHANISM_OPTION,
    PARAM_OPTION,
    PROFILE_OPTION,
    RUNTIME_OPTION,
    WORKLOAD_OPTION,
    budget_option,
    database,
    option_option,
    suite_options,
    threshold_option,
)
from .show import tables


@click.command()
@WORKLOAD_OPTION
@RUNTIME_OPTION
@MECHANISM_OPTION
@PROFILE_OPTION
@PARAM_OPTION
@CPUS_OPTION
@option_option("Turn on a runtime option, e.g. yjit; recorded with every result.")
@click.option(
    "--trials",
    type=click.IntRange(*BOUNDS["trials"]),
    help="Exactly this many fresh processes per cell (a fixed plan). Default: the profile's 3 at "
    "least, then more until the cell settles (--target).",
)
@click.option(
    "--target",
    type=options.Percent("target"),
    metavar="PCT",
    help=f"Give a cell more trials until its median's 95%% interval lies within +-PCT of it "
    f"(default {TARGET * 100:g}%%), up to --max-trials or its share of --budget.",
)
@click.option(
    "--max-trials",
    type=click.IntRange(*BOUNDS["max_trials"]),
    help="The most trials a cell takes while it settles (default: the profile's, quick 100, standard 20).",
)
@budget_option(
    "End the run within this time (e.g. 3m, 90s) plus one trial: every cell's least trials "
    "first, then the rest to the cells whose intervals are widest. Default: none."
)
@click.option(
    "--min-run",
    type=options.Duration("min_run", off_ok=True),
    metavar="TIME|off",
    help=f"Repeat fixed work inside each timed run until it lasts this long, calibrated once per "
    f"cell (default {QUICK_MIN_RUN * 1000:g}ms, standard and full {MIN_RUN * 1000:g}ms; the smoke profile: off).",
)
@click.option("--warmup", type=click.IntRange(*BOUNDS["warmup"]), help="Warm-up runs in each process.")
@click.option("--runs", type=click.IntRange(*BOUNDS["runs"]), help="Timed runs in each process.")
@click.option(
    "--timeout",
    type=options.Finite(*BOUNDS["timeout"]),
    metavar="SECONDS",
    help="Kill a trial, and everything it started, after this long.",
)
@click.option(
    "--memory-limit",
    type=options.MEMORY_LIMIT,
    metavar="SIZE|off",
    help="Cap each trial's memory (resident and cached pages, by cgroup; e.g. 2G): the kernel "
    "stops a trial that needs more, and it is marked LIMIT. Default: half the machine's memory.",
)
@click.option(
    "--process-limit",
    type=options.PROCESS_LIMIT,
    metavar="N|off",
    help=f"Cap the processes and threads each trial has at once (by cgroup); a fork past it "
    f"fails, and the trial is marked LIMIT. Default: {limits.DEFAULT_TASKS}.",
)
@click.option(
    "--repeat-check",
    is_flag=True,
    help="Run the selection twice, back to back, and show how far each cell's median moved "
    "between the two: the noise of this machine, which any comparison must see through.",
)
@MACHINE_OPTION
@click.option(
    "--plan-only",
    is_flag=True,
    help="Store the run's plan in a PostgreSQL database and run nothing: `concbench worker` on "
    "each machine then takes its trials. A stored plan is fixed: each cell's --trials (the "
    "profile's 3 by default).",
)
@click.option(
    "--resume",
    is_flag=False,
    flag_value="latest",
    default=None,
    callback=options.run_number,
    metavar="[RUN]",
    help="Continue an interrupted run (the latest, or RUN) without repeating finished trials.",
)
@LEGEND_OPTION
@DB_OPTION
@suite_options
def run(
    workload,
    runtime,
    mechanism,
    profile,
    param,
    cpus,
    option,
    trials,
    warmup,
    runs,
    timeout,
    target,
    max_trials,
    budget,
    min_run,
    memory_limit,
    process_limit,
    repeat_check,
    machine,
    plan_only,
    resume,
    legend,
    db,
    suite,
):
    """Run workloads on mechanisms, verify and store every trial, print tables.

    Each trial is a fresh process; every finished trial is stored at once, so
    Ctrl-C loses nothing (continue with --resume). Exits 1 if any trial failed
    or did not verify."""
    asked = dict(
        workloads=workload,
        runtimes=runtime,
        mechanisms=mechanism,
        params=param,
        cpus=cpus,
        options=option,
        trials=trials,
        warmup=warmup,
        runs=runs,
        timeout=timeout,
        target=target,
        max_trials=max_trials,
        budget=budget,
        min_run=min_run,
        memory_limit=memory_limit,
        process_limit=process_limit,
    )
    request = session.Request(
        asked, profile, resume=resume, repeat_check=repeat_check, plan_only=plan_only, machine=machine, suite=suite
    )
    return session.run(request, database(db), _screen(suite, legend))


def _screen(suite: paths.Suite, legend: bool = False) -> session.Screen:
    """The terminal, a run's tables titled by the suite's specs, the legend
    under them if asked or if the run is its database's first."""

    def run_tables(store, run_id: int) -> int:
        return tables(store, run_id, suite=suite, legend=legend or store.runs()[0].id == run_id)

    return session.Screen(console, run_tables)


AB_LEAST_PAIRS = 6  # the fewest pairs a signed-rank test can call a change with at p < 0.05
AB_BUDGET = 180.0  # seconds: an A/B run's, unless --trials fixes its pairs
AB_VERSION_HELP = (
    "current (this checkout), dir:PATH (a folder of runtimes, in place of this checkout's of the same "
    "name) or git:REV (this checkout's runtimes at a git revision)"
)


@click.command()
@WORKLOAD_OPTION
@RUNTIME_OPTION
@MECHANISM_OPTION
@PROFILE_OPTION
@PARAM_OPTION
@CPUS_OPTION
@option_option("A runtime option both versions take.")
@click.option(
    "--a", "a", default=versions.CURRENT, show_default=True, metavar="VERSION", help=f"Version A: {AB_VERSION_HELP}."
)
@click.option(
    "--b", "b", default=versions.CURRENT, show_default=True, metavar="VERSION", help=f"Version B: {AB_VERSION_HELP}."
)
@click.option(
    "--a-option", multiple=True, metavar="NAME", callback=options.names, help="A runtime option only A takes."
)
@click.option(
    "--b-option",
    multiple=True,
    metavar="NAME",
    callback=options.names,
    help="A runtime option only B takes, e.g. yjit, or the C and Go kits' test hook slow5.",
)
@budget_option(
    "End within this time plus one trial: every cell's least pairs first, then more to the widest "
    "intervals (default 3m; none with --trials)."
)
@click.option(
    "--max-trials",
    type=click.IntRange(AB_LEAST_PAIRS, BOUNDS["max_trials"][1]),
    default=200,
    show_default=True,
    help="The most trials a side of a cell takes.",
)
@click.option(
    "--trials",
    type=click.IntRange(AB_LEAST_PAIRS, BOUNDS["trials"][1]),
    help="Exactly this many pairs of trials a cell, instead of as many as the budget holds.",
)
@threshold_option(2.0)
@click.option(
    "--fail-on-regression",
    type=options.Finite(min=0),
    metavar="PCT",
    help="Exit 1 if a cell is called slower by PCT percent or more (for CI).",
)
@MACHINE_OPTION
@DB_OPTION
@suite_options
def ab(
    workload,
    runtime,
    mechanism,
    profile,
    param,
    cpus,
    option,
    a,
    b,
    a_option,
    b_option,
    budget,
    max_trials,
    trials,
    threshold,
    fail_on_regression,
    machine,
    db,
    suite,
):
    """Two versions of runtimes, A and B, run in one run, cell by cell, each
    trial of B beside one of A (the order turning round every other pair),
    with a verdict per cell: faster, slower, no change or too noisy.

    The verdict is a paired test (Wilcoxon's signed-rank on the pairs' log
    ratios, p adjusted across the cells, Benjamini-Hochberg): a change is
    called at q < 0.05 and --threshold or more. Every trial is stored as in
    run. Examples: concbench ab -r ruby --b-option yjit;
    concbench ab -r c --a git:HEAD~3; concbench ab -r mine --a dir:v1 --b dir:v2."""
    if fail_on_regression is not None:  # a regression that is not called cannot fail
        threshold = min(threshold, fail_on_regression)
    sides = versions.parse("a", a, option + a_option), versions.parse("b", b, option + b_option)
    cpu_counts.check(cpus or ())  # before the versions are built
    store = open_store(database(db))
    store.said = say
    store.hold_for_run()
    screen = _screen(suite)
    session.clean_leftovers(screen)
    with versions.Checkouts(suite) as checkouts:
        signal.signal(signal.SIGTERM, session.interrupt)
        try:
            plan, selection, found = _ab_plan(
                checkouts,
                sides,
                suite,
                dict(
                    profile=profile,
                    workloads=workload,
                    runtimes=runtime,
                    mechanisms=mechanism,
                    params=param,
                    cpus=cpus or (),
                    trials=trials,
                    budget=budget if budget or trials else AB_BUDGET,
                    **({} if trials else dict(max_trials=max_trials, target=_settling_target(threshold))),
                ),
            )
        except KeyboardInterrupt:
            say("interrupted while the versions were built: nothing was run; their builds were stopped")
            return session.INTERRUPTED
        here = environment.fingerprint(found, selection.caps, machine, suite)
        run_id = store.begin_run(selection.to_json(), here)
        again = shlex.join(["concbench", *sys.argv[1:]])
        code = session.take_plan(
            plan, selection, store, run_id, Machine.of(here), screen, show=False, again=f"start it again with: {again}"
        )
    if code == session.INTERRUPTED:
        return code
    found = ab_report.changes(
        store.trials(run_id), run_report.load_specs(suite), ab_report.Sides.of(selection.to_json()), threshold / 100
    )
    console.print(terminal.run_header(store.run(run_id)))
    for letter in ("a", "b"):
        console.print(printable(f"{letter}: {selection.ab[letter]}"))
    for line in terminal.render_changes(found, sides=("A", "B")):
        console.print(line)
    console.print()
    console.print(terminal.change_summary(found))
    return max(code, regressions(found, fail_on_regression))


def _settling_target(threshold: float) -> float | None:
    """The interval a cell's pairs settle to: half the threshold, within what
    --target takes (a 300% threshold needs no interval narrower than 100%),
    so that no threshold fails as a --target the user never gave; the
    profile's for none."""
    least, most = BOUNDS["target"]
    return min(max(threshold / 2, least), most) if threshold else None


def _ab_plan(checkouts, sides, suite: paths.Suite, asked: dict) -> tuple[Plan, Selection, list[runtimes.Runtime]]:
    """The paired plan of both versions, the selection that records them, and
    both versions' runtimes."""
    a, b = sides
    origins = {
        "a": checkouts.origin(a),
        "b": checkouts.origin(b),
        "a_options": ",".join(a.options),
        "b_options": ",".join(b.options),
    }
    specs = workloads.load_all(suite.workload_dirs())
    selections = [Selection.asked(options=v.options, ab=origins, **asked) for v in sides]
    choices = [_chosen(s, specs, checkouts.runtimes(v), v) for s, v in zip(selections, sides)]
    session.build([rt for c in choices for rt in c.runtimes])
    plans = [make_plan(c) for c in choices]
    for version, choice in zip(sides, choices):
        for rt in choice.runtimes:
            if versions.lettered(a, b, rt):
                rt.name = f"{rt.manifest.name}@{version.letter}"
    plan = paired_plan(*plans)
    if not plan.cells:
        failed = [
            f"{rt.manifest.name} of {v.letter.upper()}: {rt.build_error}"
            for v, c in zip(sides, choices)
            for rt in c.runtimes
            if rt.build_error
        ]
        raise UserError("; ".join(["nothing to run: no selected cell runs on both versions", *failed]))
    least = max(AB_LEAST_PAIRS, plan.settings.trials)
    plan = dataclasses.replace(plan, settings=dataclasses.replace(plan.settings, trials=least))
    return plan, selections[0], [rt for c in choices for rt in c.runtimes]


def _chosen(selection: Selection, specs, found: dict[str, runtimes.Runtime], version: versions.Version):
    """The version's choice; what it lacks (a mechanism, a runtime) names the version."""
    try:
        return choose(selection, specs, found)
    except UserError as e:
        raise UserError(f"--{version.letter} {version.given}: {e}") from None
