"""The `concbench` command: run, ab, worker, show, report, compare, history, merge, list, doctor, setup."""

import contextlib
import dataclasses
import json
import os
import signal
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import click
from rich.console import Console
from rich.text import Text

from . import environment, leftovers, limits, options, paths, runtimes, turns, versions, worker, workloads
from . import setup as system
from .display import printable
from .errors import UserError
from .formatting import duration_text
from .plan import (
    BOUNDS,
    MIN_RUN,
    PROFILE_SETTINGS,
    QUICK_MIN_RUN,
    TARGET,
    Plan,
    Selection,
    choose,
    make_plan,
    paired_plan,
)
from .progress import ProgressDisplay, schedule_lines
from .records import Machine
from .report import ab as ab_report
from .report import comparison, document, export, figures, html, markdown, serialize, terminal
from .report import machines as machines_view
from .report.history import histories
from .runner import execute
from .schedule import Schedule
from .selection import CellFilter
from .status import Status
from .store import Store, merge, open_store, postgresql
from .warmup import MOST as MOST_WARMUPS
from .warmup import STEADY

# Nothing printed is read as markup: names, docs, versions and paths come from
# manifests, runtimes and users, and a '[/]' in one would crash rich. Styles are
# given as style= or in a Text; untrusted text goes through printable.
console = Console(markup=False, highlight=False, soft_wrap=True)


DB_OPTION = click.option(
    "--db",
    default=None,
    callback=options.database,
    metavar="FILE|URL",
    help="A SQLite file, or a PostgreSQL server's postgresql://USER@HOST/NAME (default: "
    "results/concbench.db in the project, or $CONCBENCH_DB). Its password goes in ~/.pgpass, "
    "PGPASSWORD or $CONCBENCH_DB, not here: every local user can read a command line.",
)


def _folders(kind: str):
    """An option's folders of workloads or runtimes, added to the project's own."""

    def add(ctx, param, values: tuple[Path, ...]) -> None:
        paths.add(kind, values)

    return click.option(
        f"--{kind}",
        multiple=True,
        metavar="DIR",
        expose_value=False,
        callback=add,
        type=click.Path(exists=True, file_okay=False, path_type=Path),
        help=f"Also the {kind} in DIR, from outside the repository (repeatable; "
        f"also ${paths.VARIABLES[kind]}, ':'-separated).",
    )


def suite_options(command):
    """--workloads DIR and --runtimes DIR, for every command that reads specs or manifests."""
    return _folders("workloads")(_folders("runtimes")(command))


WORKLOAD_OPTION = click.option(
    "-w",
    "--workload",
    "workload",
    multiple=True,
    metavar="ID",
    callback=options.names,
    help="Only these workloads (repeat or comma-separate). Default: all.",
)
RUNTIME_OPTION = click.option(
    "-r",
    "--runtime",
    "runtime",
    multiple=True,
    metavar="NAME",
    callback=options.names,
    help="Only these runtimes, e.g. ruby, c. Default: all.",
)
MECHANISM_OPTION = click.option(
    "-m",
    "--mechanism",
    "mechanism",
    multiple=True,
    metavar="NAME",
    callback=options.names,
    help="Only these mechanisms: 'thread' or 'ruby/thread'. Default: all.",
)
PROFILE_OPTION = click.option(
    "--profile",
    type=click.Choice(list(PROFILE_SETTINGS)),
    default="quick",
    show_default=True,
    help="Parameter set: smoke (seconds, the tests), quick, standard (the seeds' "
    "own parameters), full (standard plus the scaling sweeps).",
)
PARAM_OPTION = click.option(
    "-p",
    "--param",
    "param",
    multiple=True,
    metavar="NAME=VALUE[,VALUE...]",
    callback=options.overrides,
    help="Override a parameter; several values make a sweep.",
)


def option_option(help: str):
    """-o NAME, a runtime option, with what it does for the command."""
    return click.option("-o", "--option", "option", multiple=True, metavar="NAME", callback=options.names, help=help)


THRESHOLD_OPTION = click.option(
    "--threshold",
    type=options.Finite(min=0),
    default=5.0,
    show_default=True,
    metavar="PCT",
    help="The smallest change in time worth calling, in percent.",
)
ACROSS_MACHINES_OPTION = click.option(
    "--across-machines",
    is_flag=True,
    help="Also set runs of different machines against each other (another machine is not a code "
    "change: its figures differ for reasons of its own).",
)


MACHINE_OPTION = click.option(
    "--machine",
    envvar="CONCBENCH_MACHINE",
    callback=options.machine_name,
    metavar="NAME",
    help="The name this machine goes by in reports (default: its host name); recorded with every "
    "trial beside a stable id of the machine ($CONCBENCH_MACHINE).",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli():
    """concbench measures what concurrency costs: the same precisely specified
    workloads on many concurrency mechanisms, every result verified, wall time,
    CPU time and peak memory side by side.

    Start with `concbench doctor`, then `concbench run`."""


@cli.command()
@WORKLOAD_OPTION
@RUNTIME_OPTION
@MECHANISM_OPTION
@PROFILE_OPTION
@PARAM_OPTION
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
@click.option(
    "--budget",
    type=options.Duration("budget"),
    metavar="TIME",
    help="End the run within this time (e.g. 3m, 90s) plus one trial: every cell's least trials "
    "first, then the rest to the cells whose intervals are widest. Default: none.",
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
    metavar="[RUN]",
    help="Continue an interrupted run (the latest, or RUN) without repeating finished trials.",
)
@DB_OPTION
@suite_options
def run(
    workload,
    runtime,
    mechanism,
    profile,
    param,
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
    db,
):
    """Run workloads on mechanisms, verify and store every trial, print tables.

    Each trial is a fresh process; every finished trial is stored at once, so
    Ctrl-C loses nothing (continue with --resume). Exits 1 if any trial failed
    or did not verify."""
    if resume and repeat_check:
        raise UserError("--resume continues one stored run; --repeat-check starts two")
    if plan_only:
        _check_plan_only(resume, repeat_check, budget, target, max_trials)
    store = open_store(db or paths.default_db())
    store.said = _say
    if plan_only and not store.shared:
        raise UserError(
            f"--plan-only stores a plan for workers on many machines: give a PostgreSQL database "
            f"(--db postgresql://...), not the SQLite file {store.name}"
        )
    store.hold_for_run()
    asked = dict(
        workloads=workload,
        runtimes=runtime,
        mechanisms=mechanism,
        params=param,
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
    run_id, selection = (
        _resumed(store, resume, asked)
        if resume
        else (
            None,
            Selection.asked(profile=profile, **{name: value for name, value in asked.items() if value is not None}),
        )
    )
    choice = choose(selection, workloads.load_all(), runtimes.load_all())  # bad input fails before any build
    _clean_leftovers()
    _build(choice.runtimes)
    plan = make_plan(choice)
    if not plan.cells:
        for line in dict.fromkeys(f"{s.workload} {s.row}: {s.kind}: {s.reason}" for s in plan.skipped):
            console.print(printable(line))
        raise UserError("nothing to run: every selected cell is n/a or unavailable")
    here = environment.fingerprint(choice.runtimes, selection.caps, machine)
    if plan_only:
        return _store_plan(plan, selection, store, here)
    if run_id is None:
        run_id = store.begin_run(selection.to_json(), here)
    else:
        store.set_state(run_id, "running")
    code = _run_plan(plan, selection, store, run_id, Machine.of(here), show=not repeat_check)
    if not repeat_check or code == INTERRUPTED:
        return code
    again = selection.model_copy(update={"repeat_of": run_id})
    second = store.begin_run(again.to_json(), environment.fingerprint(choice.runtimes, selection.caps, machine))
    return max(code, _run_plan(plan, again, store, second, Machine.of(here), show=True))


def _run_plan(plan: Plan, selection: Selection, store: Store, run_id: int, machine: Machine, show: bool) -> int:
    """A stored run's trials, those not yet taken; its tables if show."""
    store.add_skipped(run_id, plan.skipped)  # a resumed run's, as the manifests say now
    store.add_notes(run_id, plan.notes)
    done = store.trials(run_id)
    schedule = Schedule(
        plan, done, spent_ns=sum(t.wall_ns or 0 for t in done), earlier=store.earlier_trial_lengths(run_id)
    )
    console.print(
        printable(
            f"run {run_id}: {_extent(plan, selection.profile)}, {_to_go(schedule)} trials to go; "
            f"{len(plan.skipped)} cells n/a or unavailable; stored in {store.name}"
        )
    )
    if plan.settings.budget:
        console.print(printable(_budget_text(schedule)))
    return _execute(plan, schedule, store, run_id, machine, show)


def _check_plan_only(resume, repeat_check, budget, target, max_trials) -> None:
    refused = {
        "--resume": resume,
        "--repeat-check": repeat_check,
        "--budget": budget,
        "--target": target,
        "--max-trials": max_trials,
    }
    for option, given in refused.items():
        if given:
            raise UserError(
                f"--plan-only stores a fixed plan that workers drain; {option} is one machine's run: "
                "give --trials instead, or run without --plan-only"
            )


def _store_plan(plan: Plan, selection: Selection, store: Store, planner: dict) -> int:
    """The run's trials stored for workers, in the order one machine would
    take them: every cell's first trial, then every cell's second."""
    run_id = store.begin_run(selection.to_json(), planner, state="planned")
    store.add_skipped(run_id, plan.skipped)
    store.add_notes(run_id, plan.notes)
    trials = [(cell.key.id, index) for index in range(plan.settings.trials) for cell in plan.cells]
    store.add_plan(run_id, trials)
    console.print(
        printable(
            f"run {run_id}: planned {len(plan.cells)} cells x {plan.settings.trials} trials = {len(trials)} "
            f"trials in {store.name}; {len(plan.skipped)} cells n/a or unavailable"
        )
    )
    console.print(
        printable(
            f"on each machine, $CONCBENCH_DB naming this database: concbench worker {run_id}; "
            f"progress: concbench show {run_id}"
        )
    )
    return 0


def _to_go(schedule: Schedule) -> str:
    to_go = schedule.planned - schedule.taken
    return f"at least {to_go}" if schedule.settings.target is not None else str(to_go)


def _budget_text(schedule: Schedule) -> str:
    """What the least trials should take of the budget, as earlier runs tell."""
    least_ns, unknown = schedule.least_ns()
    budget = schedule.settings.budget
    if least_ns:
        unmeasured = f" and {unknown} cells not measured before" if unknown else ""
        least = f"every cell's least trials should take about {duration_text(least_ns / 1e9)}{unmeasured}"
    else:
        least = "no earlier run tells how long every cell's least trials take"
    text = f"budget {duration_text(budget)}: {least}; the rest goes to the widest intervals"
    if least_ns > budget * 1e9:
        text += "; the budget cannot hold them: the cells it stops short are named at the end"
    return text


def _build(found: list[runtimes.Runtime]) -> None:
    """The runtimes built in the machine's turn: a build beside another
    concbench's trial would measure in it, and two builds of one checkout at
    once (two workers) would break each other's."""
    with turns.machine_turn():
        for rt in found:
            rt.build()


def _clean_leftovers() -> None:
    """What a harness killed mid-trial left would run beside this run's trials."""
    found = leftovers.clean()
    if found:
        console.print(f"cleaned up after a concbench that died mid-trial: {', '.join(found)}")


def _extent(plan: Plan, profile: str) -> str:
    s = plan.settings
    single = sorted({c.workload.id for c in plan.cells if c.workload.one_run_per_process})
    exception = f"; one run for {', '.join(single)}, whose peak memory is one run's" if single else ""
    trials = (
        f"{s.trials} to {s.max_trials} trials (until the ratio's 95% interval is within ±{s.target * 100:g}%)"
        if s.target is not None
        else f"{s.trials} trials"
    )
    calibrated = f" of at least {s.min_run * 1000:g} ms" if s.min_run else ""
    runs = f"{s.runs} timed run{'s' * (s.runs > 1)}{calibrated} each"
    runs = f"{runs}{_runtime_warmups(plan)}" if s.warmup is None else f"{s.warmup} warm-up + {runs}"
    budget = f", budget {duration_text(s.budget)}" if s.budget else ""
    return f"{len(plan.cells)} cells x {trials} ({runs}{exception}), {profile} profile{budget}"


def _runtime_warmups(plan: Plan) -> str:
    """The warm-ups each runtime's trials take where the plan leaves them to
    the runtime, a mechanism named where it differs from its runtime."""
    names: dict[str, set[str]] = {}
    for cell in plan.cells:
        if not cell.workload.one_run_per_process:
            own = cell.runtime.manifest.mechanisms[cell.mechanism].warmup is not None
            name = f"{cell.runtime.name}/{cell.mechanism}" if own else cell.runtime.name
            warmups = plan.settings_for(cell).warmup
            shown = f"until steady (at most {MOST_WARMUPS})" if warmups == STEADY else str(warmups)
            names.setdefault(shown, set()).add(name)
    ordered = sorted(names.items(), key=lambda item: (len(item[0]), item[0]))  # counts by size, then "until"
    counts = "; ".join(f"{shown} for {', '.join(sorted(found))}" for shown, found in ordered)
    return f", after the warm-ups each runtime needs: {counts}" if counts else ""


INTERRUPTED = 130


def _execute(plan: Plan, schedule: Schedule, store: Store, run_id: int, machine: Machine, show: bool) -> int:
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        with ProgressDisplay(console, schedule) as display:
            execute(plan, schedule, store, run_id, display, machine)
        _send_journal(store)
    except KeyboardInterrupt:
        _send_journal(store, wait=False)
        store.set_state(run_id, "interrupted")
        done = len(store.finished_trials(run_id))
        if done and show:
            with contextlib.suppress(KeyboardInterrupt):  # a second Ctrl-C skips the tables
                _show(store, run_id)
        console.print(
            f"interrupted: {done} finished trials of run {run_id} are stored; "
            f"continue with: concbench run --resume {run_id}"
        )
        return INTERRUPTED
    store.set_state(run_id, "complete")
    code = _show(store, run_id) if show else int(any(t.status != Status.OK for t in store.trials(run_id)))
    for line in schedule_lines(schedule):
        console.print(printable(line))
    return code


def _say(line: str) -> None:
    console.print(printable(line))


def _send_journal(store: Store, wait: bool = True) -> None:
    """The trials that wait for a server that went away, sent before the run
    says it is done; if it stays away, where they wait."""
    if store.journal.pending() and wait:
        console.print(printable(f"waiting for the database {store.name} to take {store.journal.pending()} trials"))
    left = store.send_journal(wait)
    if left:
        raise UserError(
            f"{left} finished trials wait in {store.journal.folder}: the database {store.name} is out of reach; "
            "the next concbench command on it sends them"
        )


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _resumed(store: Store, which: str, asked: dict) -> tuple[int, Selection]:
    if any(value not in (None, (), {}) for value in asked.values()):
        raise UserError("--resume continues a run with its own selection: give no other options")
    info = _resumable(store, which)
    selection = Selection.from_json(info.request)
    if selection.ab:
        raise UserError(f"run {info.id} is an A/B run, which cannot be resumed: its trials are stored; start it again")
    return info.id, selection


def _resumable(store: Store, which: str):
    if which != "latest":
        if not which.isdigit():
            raise UserError(f"--resume {which!r}: expected a run number")
        info = store.run(int(which))
    else:
        unfinished = [r for r in store.runs() if r.state != "complete"]
        if not unfinished:
            raise UserError("no interrupted run to resume")
        info = unfinished[-1]
    if info.state == "complete":
        raise UserError(f"run {info.id} is complete: nothing to resume")
    return info


AB_LEAST_PAIRS = 6  # the fewest pairs a signed-rank test can call a change with at p < 0.05
AB_BUDGET = 180.0  # seconds: an A/B run's, unless --trials fixes its pairs
AB_VERSION_HELP = (
    "current (this checkout), dir:PATH (a folder of runtimes, in place of this checkout's of the same "
    "name) or git:REV (this checkout's runtimes at a git revision)"
)


@cli.command()
@WORKLOAD_OPTION
@RUNTIME_OPTION
@MECHANISM_OPTION
@PROFILE_OPTION
@PARAM_OPTION
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
@click.option(
    "--budget",
    type=options.Duration("budget"),
    metavar="TIME",
    help="End within this time plus one trial: every cell's least pairs first, then more to the widest "
    "intervals (default 3m; none with --trials).",
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
@click.option(
    "--threshold",
    type=options.Finite(min=0),
    default=2.0,
    show_default=True,
    metavar="PCT",
    help="The smallest change in time worth calling, in percent.",
)
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
    store = open_store(db or paths.default_db())
    store.said = _say
    store.hold_for_run()
    _clean_leftovers()
    with versions.Checkouts() as checkouts:
        plan, selection, found = _ab_plan(
            checkouts,
            sides,
            dict(
                profile=profile,
                workloads=workload,
                runtimes=runtime,
                mechanisms=mechanism,
                params=param,
                trials=trials,
                budget=budget if budget or trials else AB_BUDGET,
                **({} if trials else dict(max_trials=max_trials, target=threshold / 2 or None)),
            ),
        )
        here = environment.fingerprint(found, selection.caps, machine)
        run_id = store.begin_run(selection.to_json(), here)
        code = _run_plan(plan, selection, store, run_id, Machine.of(here), show=False)
    if code == INTERRUPTED:
        return code
    found = ab_report.changes(
        store.trials(run_id), document.load_specs(), ab_report.Sides.of(selection.to_json()), threshold / 100
    )
    console.print(terminal.run_header(store.run(run_id)))
    for letter in ("a", "b"):
        console.print(printable(f"{letter}: {selection.ab[letter]}"))
    for line in terminal.render_changes(found, sides=("A", "B")):
        console.print(line)
    console.print()
    console.print(terminal.change_summary(found))
    return max(code, _regressions(found, fail_on_regression))


def _ab_plan(checkouts, sides, asked: dict) -> tuple[Plan, Selection, list[runtimes.Runtime]]:
    """The paired plan of both versions, the selection that records them, and
    both versions' runtimes."""
    a, b = sides
    origins = {
        "a": checkouts.origin(a),
        "b": checkouts.origin(b),
        "a_options": ",".join(a.options),
        "b_options": ",".join(b.options),
    }
    specs = workloads.load_all()
    selections = [Selection.asked(options=v.options, ab=origins, **asked) for v in sides]
    choices = [choose(s, specs, checkouts.runtimes(v)) for s, v in zip(selections, sides)]
    _build([rt for c in choices for rt in c.runtimes])
    plans = [make_plan(c) for c in choices]
    for version, choice in zip(sides, choices):
        for rt in choice.runtimes:
            if versions.lettered(a, b, rt):
                rt.name = f"{rt.manifest.name}@{version.letter}"
    plan = paired_plan(*plans)
    if not plan.cells:
        raise UserError("nothing to run: no selected cell runs on both versions")
    least = max(AB_LEAST_PAIRS, plan.settings.trials)
    plan = dataclasses.replace(plan, settings=dataclasses.replace(plan.settings, trials=least))
    return plan, selections[0], [rt for c in choices for rt in c.runtimes]


def _regressions(found, fail_on_regression) -> int:
    """1 if a cell was called slower by fail_on_regression percent or more, each named."""
    if fail_on_regression is None:
        return 0
    regressions = [
        c for c in found if c.verdict == comparison.Verdict.SLOWER and c.slowdown * 100 >= fail_on_regression
    ]
    for c in regressions:
        console.print(
            Text.assemble(
                ("regression", "bold red"),
                printable(f" {c.table.workload} {c.table.params_text} {c.row}: {c.slowdown:.1%} more time"),
            )
        )
    return 1 if regressions else 0


@cli.command(name="worker")
@click.argument("run_id", type=int, required=False, metavar="[RUN]")
@MACHINE_OPTION
@click.option(
    "--grace",
    type=options.Finite(0, 86400),
    default=worker.GRACE,
    show_default=True,
    metavar="SECONDS",
    help="How long past a trial's timeout this worker's claim on it holds: if the worker dies, "
    "another takes the trial once the claim lapses.",
)
@DB_OPTION
@suite_options
def worker_(run_id, machine, grace, db):
    """Take the trials of a stored plan (concbench run --plan-only) one at a
    time from a PostgreSQL database, run each here and store it, until none
    is left; RUN is the latest plan with trials waiting by default.

    Start one on each machine: the trials of one machine take turns, never
    running beside each other. Exits 1 if any of its trials failed."""
    store = open_store(db or paths.default_db(), create=False)
    store.said = _say
    if not store.shared:
        raise UserError(
            f"concbench worker takes trials from a PostgreSQL database (--db postgresql://...), not {store.name}"
        )
    info = _plan_to_drain(store, run_id)
    selection = Selection.from_json(info.request)
    choice = choose(selection, workloads.load_all(), runtimes.load_all())
    _clean_leftovers()
    _build(choice.runtimes)
    plan = make_plan(choice)
    unknown = store.planned_cells(info.id) - {cell.key.id for cell in plan.cells}
    if unknown:
        raise UserError(
            f"this machine cannot run {len(unknown)} cells of run {info.id}'s plan (one: {min(unknown)}): "
            "a worker needs the plan's concbench, workloads and runtimes"
        )
    here = environment.fingerprint(choice.runtimes, selection.caps, machine)
    taker = worker.Worker(store, info.id, plan, Machine.of(here), grace, _say)
    store.add_worker(info.id, taker.name, here)
    console.print(printable(f"worker {taker.name}: taking the trials of run {info.id} from {store.name}"))
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        taker.drain()
        _send_journal(store)
    except KeyboardInterrupt:
        _send_journal(store, wait=False)
        store.release(info.id, taker.name)
        console.print(printable(f"interrupted: worker {taker.name} stored {len(taker.stored())} trials"))
        return INTERRUPTED
    stored = taker.stored()
    progress = store.progress(info.id)
    if progress.done == progress.planned:
        store.set_state(info.id, "complete")
    console.print(printable(f"worker {taker.name}: stored {len(stored)} trials; {_progress_text(progress)}"))
    return int(any(record.status != Status.OK for record in stored))


def _plan_to_drain(store: Store, run_id: int | None):
    if run_id is not None:
        info = store.run(run_id)
        if store.progress(info.id) is None:
            raise UserError(
                f"run {info.id} has no stored plan to take trials from (concbench run --plan-only makes one)"
            )
        return info
    for info in reversed(store.runs()):
        progress = store.progress(info.id)
        if progress is not None and progress.done < progress.planned:
            return info
    raise UserError(f"no stored plan with trials waiting in {store.name} (concbench run --plan-only makes one)")


def _progress_text(progress) -> str:
    held = f", {len(progress.claimed)} held by workers" if progress.claimed else ""
    again = f"; {progress.reclaimed} claimed again after a worker's lease lapsed" if progress.reclaimed else ""
    return f"plan: {progress.done} of {progress.planned} trials done{held}, {progress.waiting} waiting{again}"


@cli.command()
@click.argument("run_id", type=int, required=False, metavar="[RUN]")
@WORKLOAD_OPTION
@RUNTIME_OPTION
@MECHANISM_OPTION
@click.option(
    "--json", "as_json", is_flag=True, help="One JSON record per trial: cell, params, status, every figure, stderr."
)
@DB_OPTION
@suite_options
def show(run_id, workload, runtime, mechanism, as_json, db):
    """Print a stored run again (the latest by default), or the part of it
    that -w, -r and -m name."""
    store = _existing(db)
    wanted = CellFilter(workload, runtime, mechanism)
    if as_json:
        found = document.build(store.stored_run(run_id), wanted)
        for t in found.trials:
            click.echo(json.dumps(serialize.trial_record(found.run, t)))
        return 0
    return _show(store, store.run(run_id).id, wanted)


def _show(store: Store, run_id: int, wanted: CellFilter = CellFilter()) -> int:
    report = document.build(store.stored_run(run_id), wanted)
    console.print(terminal.run_header(report.run, report.environment))
    if report.speed:
        console.print(report.speed.line())
    if progress := store.progress(run_id):
        console.print(printable(_progress_text(progress)))
        for cell, index, name in progress.claimed:
            console.print(printable(f"  {name}: {cell} trial {index + 1}"))
        if workers := store.workers(run_id):
            console.print(printable(f"workers: {', '.join(workers)}"))
    for table in report.tables:
        console.print()
        for line in terminal.render(table):
            console.print(line)
    console.print()
    for line in report.diagnosis.lines() if report.diagnosis else []:
        console.print(printable(line))
    console.print()
    console.print(figures.legend_text(), style="dim")
    if report.repeat_check:
        console.print(printable(f"repeat check: {report.repeat_check.summary()}"))
        for cell, difference in report.repeat_check.worst:
            console.print(printable(f"  {difference:7.1%}  {cell}"))
    if report.failed:
        console.print(f"{len(report.failed)} of {len(report.trials)} trials failed or did not verify", style="bold red")
    return 1 if report.failed else 0


def _existing(db: str | None) -> Store:
    """The database of a command that only reads it: never made by it."""
    return open_store(db or paths.default_db(), create=False)


REPORT_FORMATS = {"html": html.render, "md": markdown.render, "csv": export.csv_text, "json": export.json_text}


MACHINES_FORMATS = {"html": html.render_machines, "md": markdown.render_machines}


@cli.command()
@click.argument("run_ids", type=int, nargs=-1, metavar="[RUN]...")
@click.option(
    "--format",
    "format_",
    type=click.Choice(list(REPORT_FORMATS)),
    default="html",
    show_default=True,
    help="html: one self-contained page with charts; md: Markdown tables in the seeds' "
    "styles; csv, json: every trial and run (schema in docs/formats.md).",
)
@click.option(
    "--machines",
    is_flag=True,
    help="Set machines side by side: per table, each machine's ratios to its own baseline, from the "
    "latest run of each machine (or of each among the RUNs given); html or md.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write it. Default: results/run-RUN.html (results/machines.html with --machines) "
    "beside the database for html, standard output for the others.",
)
@WORKLOAD_OPTION
@RUNTIME_OPTION
@MECHANISM_OPTION
@DB_OPTION
@suite_options
def report(run_ids, format_, machines, output, workload, runtime, mechanism, db):
    """Write a report of a stored run (the latest by default), or of the part
    of it that -w, -r and -m name; with --machines, of the machines'
    latest runs side by side."""
    store = _existing(db)
    made = _machines_report if machines else _run_report
    text, what, default = made(store, run_ids, format_, CellFilter(workload, runtime, mechanism))
    if output is None and format_ == "html":
        output = store.folder / default
    if output is None:
        click.echo(text, nl=False)
        return 0
    _write(output, text)
    console.print(printable(f"{what}: {output}"))
    return 0


def _run_report(store: Store, run_ids: tuple[int, ...], format_: str, wanted: CellFilter) -> tuple[str, str, str]:
    """A run's report in a format, what it is and the name of its HTML file."""
    if len(run_ids) > 1:
        raise UserError("report takes one RUN; several go with --machines")
    found = document.build(store.stored_run(run_ids[0] if run_ids else None), wanted)
    return REPORT_FORMATS[format_](found), f"report of run {found.run.id}", f"run-{found.run.id}.html"


def _machines_report(store: Store, run_ids: tuple[int, ...], format_: str, wanted: CellFilter) -> tuple[str, str, str]:
    """The machines side by side in a format, what it is and the name of its HTML file."""
    if format_ not in MACHINES_FORMATS:
        raise UserError(f"report --machines writes html or md, not {format_}")
    found = machines_view.build(store.latest_of_each_machine(run_ids), run_ids, wanted)
    return MACHINES_FORMATS[format_](found), "machines side by side", "machines.html"


def _write(output: Path, text: str) -> None:
    """Written whole or not at all (a full disk leaves no half report), by a
    file of its own made anew, so that nothing planted beside the report (in
    /tmp, say) is followed or written through."""
    partial = None
    try:
        fd, partial = tempfile.mkstemp(dir=output.parent, prefix=f".{output.name}.")
        with os.fdopen(fd, "w") as file:
            file.write(text)
            os.fchmod(file.fileno(), 0o644)  # a report is for reading, as a plain file would be
        os.replace(partial, output)
    except OSError as e:
        if partial:
            with contextlib.suppress(OSError):
                os.unlink(partial)
        raise UserError(f"cannot write {output}: {e.strerror or e}") from None


@cli.command()
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
def compare(before, after, threshold, fail_on_regression, across_machines, db):
    """Compare two stored runs cell by cell: both medians and their ratio.

    Each cell is tested with a two-sided Mann-Whitney U test on the timed runs
    of the verified trials; the p-values of the comparison's cells are
    adjusted together (Benjamini-Hochberg), and a change is called only at
    q < 0.05 and when the medians differ by at least --threshold. With 3 runs
    a side no test can reach p < 0.05: give the runs more trials or runs
    (e.g. --trials 5). A cell whose noise could hide the threshold says so."""
    store = _existing(db)
    runs = store.run(before), store.run(after)
    trials = store.trials(runs[0].id), store.trials(runs[1].id)
    if not across_machines:
        _refuse_other_machines(runs, trials)
    specs = document.load_specs()
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
    return _regressions(found, fail_on_regression)


def _refuse_other_machines(runs, trials) -> None:
    """Another machine is not a code change: two runs are compared only where
    one machine ran every trial of both (workers may have drained a run on several)."""
    machines = [_machines(run, found) for run, found in zip(runs, trials)]
    if len(set().union(*machines)) < 2:
        return
    if all(len(m) == 1 for m in machines):
        where = f"runs {runs[0].id} and {runs[1].id} ran on different machines, " + " and ".join(
            next(iter(m)) for m in machines
        )
    else:
        run, mixed = next((run, m) for run, m in zip(runs, machines) if len(m) > 1)
        where = f"run {run.id}'s trials ran on {len(mixed)} machines, {', '.join(sorted(mixed))}"
    raise UserError(
        f"{where}: another machine is not a code change, so no cell is called slower or faster "
        "(--across-machines compares them anyway)"
    )


def _machines(run, trials) -> set[str]:
    """The machines that ran a run's trials, as people name them; the run's own
    where its trials predate machines (none where it does too: any machine)."""
    named = {f"{t.machine} ({t.machine_id})" for t in trials if t.machine_id}
    if named or not run.environment.get("machine_id"):
        return named
    return {environment.machine_text(run.environment)}


@cli.command()
@WORKLOAD_OPTION
@RUNTIME_OPTION
@MECHANISM_OPTION
@click.option(
    "-p",
    "--param",
    "param",
    multiple=True,
    metavar="NAME=VALUE[,VALUE...]",
    callback=options.overrides,
    help="Only cells with this parameter value, as the titles print it.",
)
@THRESHOLD_OPTION
@click.option("--last", type=click.IntRange(min=1), metavar="N", help="Only the N latest runs of each cell.")
@click.option("--steps-only", is_flag=True, help="Only the cells where a step or a drift was called.")
@ACROSS_MACHINES_OPTION
@DB_OPTION
@suite_options
def history(workload, runtime, mechanism, param, threshold, last, steps_only, across_machines, db):
    """How each cell's median moved across the stored runs, with the steps
    larger than the noise called.

    Each run is tested against the previous run with the cell, as compare
    tests two runs (p < 0.05 and --threshold), and the first against the
    last, for a drift of steps too small to call one by one."""
    wanted = CellFilter(workload, runtime, mechanism, tuple(param.items()))
    store = _existing(db)
    machine = None if across_machines else _latest_machine(store)
    found = histories(
        store.name, store.runs_with_trials(), document.load_specs(), threshold / 100, wanted, last, machine
    )
    for cell_history in found:
        if cell_history.moved or not steps_only:
            console.print()
            for line in terminal.render_history(cell_history):
                console.print(line)
    console.print()
    console.print(terminal.history_summary(found, threshold / 100))
    if machine is not None and (others := _other_machines(store, machine)):
        console.print(
            printable(
                f"left out {others} run(s) of other machines than the latest run's, "
                f"{environment.machine_text(machine)} (--across-machines takes them in)"
            ),
            style="yellow",
        )
    console.print(terminal.HISTORY_LEGEND, style="dim")
    return 0


def _latest_machine(store: Store) -> dict | None:
    """The fingerprint of the latest run, whose machine a history follows."""
    found = store.runs()
    return found[-1].environment if found else None


def _other_machines(store: Store, machine: dict) -> int:
    return sum(not environment.same_machine(r.environment, machine) for r in store.runs())


@cli.command(name="merge")
@click.argument("sources", nargs=-1, required=True, metavar="FILE...", callback=options.databases)
@click.option(
    "--into",
    required=True,
    callback=options.database,
    metavar="FILE|URL",
    help="The database to copy the runs into: a SQLite file or a PostgreSQL server's "
    "postgresql://USER@HOST/NAME, made if missing.",
)
def merge_(sources, into):
    """Copy the runs of SQLite files, from machines that could not reach the
    server, into one database.

    A run is the same run in every database it is copied to: one already
    there gets only the trials it lacks, so merging a file again, or files
    that share runs, adds nothing twice. The files are only read, never
    migrated: open an older one once with this concbench first (concbench
    show --db FILE); a FILE may also be a postgresql:// URL. Every row of
    every file is checked before anything is copied, and a trial stored as
    verified is verified again (docs/formats.md): a row that fails refuses
    the merge. The merge is one transaction: on any error the database is
    left as it was."""
    for line in merge.merge(list(sources), into).lines():
        console.print(printable(line))
    return 0


@cli.command(name="list")
@suite_options
def list_():
    """Workloads, runtimes, mechanisms, and every n/a cell with its reason."""
    specs, found = workloads.load_all(), runtimes.load_all()
    console.print(_heading("Workloads", "concbench run -w ID; parameters at the quick profile"))
    for spec in specs.values():
        quick = " ".join(
            f"{k}={','.join(map(str, v)) if isinstance(v, list) else v}" for k, v in spec.profiles["quick"].items()
        )
        console.print(
            Text.assemble(printable(f"  {spec.id:<15} {spec.title}: {quick}  "), (printable(f"({spec.origin})"), "dim"))
        )
    console.print()
    console.print(_heading("Runtimes and mechanisms", "concbench run -r NAME -m NAME"))
    for rt in found.values():
        for line in _runtime_lines(rt):
            console.print(printable(line))
    console.print()
    console.print(_heading("Cells that do not run"))
    for line in _na_lines(specs, found):
        console.print(printable(line))


def _heading(title: str, hint: str = "") -> Text:
    return Text.assemble((title, "bold"), f"  ({hint})" if hint else "")


def _runtime_lines(rt: runtimes.Runtime) -> Iterator[str]:
    yield f"  {rt.name:<12} {rt.manifest.summary}"
    for name, mech in rt.manifest.mechanisms.items():
        yield f"    {rt.name + '/' + name:<18} {mech.doc}"
    for name, option in rt.manifest.options.items():
        yield f"    option {name:<11} {option.doc}  (-o {name})"
    for name, why in rt.manifest.absent.items():
        yield f"    {rt.name + '/' + name:<18} absent: {why}"


def _na_lines(specs: dict[str, workloads.Workload], found: dict[str, runtimes.Runtime]) -> Iterator[str]:
    for spec in specs.values():
        for rt in found.values():
            for mechanism in rt.manifest.mechanisms:
                row = f"{spec.id:<15} {rt.name + '/' + mechanism:<18}"
                reason = rt.na_reason(spec.id, mechanism)
                limit = rt.manifest.mechanisms[mechanism].limits.get(spec.id)
                if reason:
                    yield f"  {row} n/a: {reason}"
                elif limit:
                    yield f"  {row} n/a above {limit.param}={limit.max}: {limit.why}"


@cli.command()
@suite_options
def doctor():
    """Which toolchains and libraries are present, and how to install what is missing."""
    missing = 0
    for rt in runtimes.load_all().values():
        rt.build()
        ok = rt.toolchain.ok and not rt.build_error
        missing += not ok
        state = rt.toolchain.output if ok else rt.build_error if rt.toolchain.ok else f"not found ({rt.toolchain_hint})"
        console.print(Text.assemble(_found(ok), printable(f" {rt.name:<16} {state}")))
        for name, mech in rt.manifest.mechanisms.items():
            if not mech.requires or not ok:
                continue
            usable = rt.probe_requirement(name).ok
            missing += not usable
            hint = "" if usable else f"  ({rt.install_hint(mech.packages)})"
            console.print(
                Text.assemble(
                    _found(usable), printable(f" {rt.name + '/' + name:<16} {' '.join(rt.expand(mech.requires))}{hint}")
                )
            )
        for name, why in rt.manifest.absent.items():  # cannot be had here: not counted as missing
            console.print(Text.assemble(("absent ", "yellow"), printable(f" {rt.name + '/' + name:<16} {why}")))
    console.print(printable(f"database: {postgresql.shown(paths.default_db())}"))
    console.print(f"limits: {limits.describe(Selection().caps)} (concbench run --memory-limit, --process-limit)")
    return 1 if missing else 0


def _found(ok: bool) -> Text:
    return Text("ok     ", style="green") if ok else Text("missing", style="red")


@cli.command()
@click.option("--dry-run", is_flag=True, help="Only print what would be installed.")
@click.option("--tests", is_flag=True, help="Also what the tests need (a browser for the HTML report).")
@suite_options
def setup(dry_run, tests):
    """Install the Debian packages the runtimes need (apt-get), if any are missing.

    Prints nothing when everything is present."""
    missing = system.missing_packages(system.required_packages(list(runtimes.load_all().values()), tests))
    if missing:
        console.print(printable(f"{'would install' if dry_run else 'installing'}: {' '.join(missing)}"))
        if not dry_run:
            system.install(missing)
    optional = system.missing_packages(system.OPTIONAL_TEST_PACKAGES) if tests else []
    if optional:
        console.print(printable(f"{'would install' if dry_run else 'installing'}: {' '.join(optional)}"))
        if not dry_run:
            try:
                system.install(optional)
            except UserError as e:
                console.print(printable(f"{e}: the tests that need {' '.join(optional)} will be skipped"))
    return 0


def main() -> None:
    try:
        code = cli.main(standalone_mode=False)
    except UserError as e:
        click.echo(f"concbench: error: {printable(e)}", err=True)  # one line, whatever it quotes
        code = 2
    except click.UsageError as e:
        command = e.ctx.command_path if e.ctx else "concbench"
        click.echo(f"concbench: error: {printable(e.format_message())} (see {command} --help)", err=True)
        code = 2
    except click.Abort:
        code = 130
    sys.exit(code or 0)
