"""The `concbench` command: run, show, report, compare, history, list, doctor, setup."""

import contextlib
import json
import signal
import sys
from pathlib import Path

import click
from rich.console import Console
from rich.text import Text

from . import environment, paths, runtimes, setup as system, workloads
from .errors import UserError
from .plan import PROFILE_SETTINGS, Selection, make_plan
from .progress import ProgressDisplay
from .report import comparison, document, export, html, markdown, records, terminal
from .report.history import CellFilter, histories
from .runner import execute
from .store import Store

console = Console(highlight=False, soft_wrap=True)

DB_OPTION = click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=None,
                         help="SQLite database (default: results/concbench.db in the project, "
                              "or $CONCBENCH_DB).")

WORKLOAD_OPTION = click.option("-w", "--workload", "workload", multiple=True, metavar="ID",
                               help="Only these workloads (repeat or comma-separate). Default: all.")
MECHANISM_OPTION = click.option("-m", "--mechanism", "mechanism", multiple=True, metavar="NAME",
                                help="Only these mechanisms: 'thread' or 'ruby/thread'. Default: all.")
THRESHOLD_OPTION = click.option("--threshold", type=click.FloatRange(min=0), default=5.0, show_default=True,
                                metavar="PCT", help="The smallest change in time worth calling, in percent.")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli():
    """concbench measures what concurrency costs: the same precisely specified
    workloads on many concurrency mechanisms, every result verified, wall time,
    CPU time and peak memory side by side.

    Start with `concbench doctor`, then `concbench run`."""


def _split(values: tuple[str, ...]) -> tuple[str, ...]:
    """-w pipe -w queue and -w pipe,queue both work."""
    return tuple(v.strip() for value in values for v in value.split(",") if v.strip())


@cli.command()
@WORKLOAD_OPTION
@click.option("-r", "--runtime", "runtime", multiple=True, metavar="NAME",
              help="Only these runtimes, e.g. ruby, c. Default: all.")
@MECHANISM_OPTION
@click.option("--profile", type=click.Choice(list(PROFILE_SETTINGS)), default="quick",
              show_default=True,
              help="Parameter set: smoke (seconds, the tests), quick, standard (the seeds' "
                   "own parameters), full (standard plus the scaling sweeps).")
@click.option("-p", "--param", "param", multiple=True, metavar="NAME=VALUE[,VALUE...]",
              help="Override a parameter; several values make a sweep.")
@click.option("-o", "--option", "option", multiple=True, metavar="NAME",
              help="Turn on a runtime option, e.g. yjit; recorded with every result.")
@click.option("--trials", type=click.IntRange(min=1), help="Fresh processes per cell.")
@click.option("--warmup", type=click.IntRange(min=0), help="Warm-up runs in each process.")
@click.option("--runs", type=click.IntRange(min=1), help="Timed runs in each process.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
              help="Kill a trial's process group after this long.")
@click.option("--resume", is_flag=False, flag_value="latest", default=None, metavar="[RUN]",
              help="Continue an interrupted run (the latest, or RUN) without repeating "
                   "finished trials.")
@DB_OPTION
def run(workload, runtime, mechanism, profile, param, option, trials, warmup, runs, timeout,
        resume, db):
    """Run workloads on mechanisms, verify and store every trial, print tables.

    Each trial is a fresh process; every finished trial is stored at once, so
    Ctrl-C loses nothing (continue with --resume). Exits 1 if any trial failed
    or did not verify."""
    store = Store(db or paths.default_db())
    store.hold_for_run()
    if resume:
        given = (workload, runtime, mechanism, param, option)
        if any(given) or any(v is not None for v in (trials, warmup, runs, timeout)):
            raise UserError("--resume continues a run with its own selection: give no other options")
        run_info = _resumable(store, resume)
        selection, run_id = Selection.from_json(run_info.request), run_info.id
    else:
        selection = Selection(
            profile=profile, workloads=_split(workload), runtimes=_split(runtime),
            mechanisms=_split(mechanism),
            params=tuple((n, tuple(v)) for n, v in map(workloads.parse_override, param)),
            options=_split(option), trials=trials, warmup=warmup, runs=runs, timeout=timeout)
        run_id = None
    specs, found = workloads.load_all(), runtimes.load_all()
    chosen = [r for name, r in found.items() if not selection.runtimes or name in selection.runtimes]
    for rt in chosen:
        rt.build()
    plan = make_plan(selection, specs, found)
    if not plan.cells:
        for line in dict.fromkeys(f"{s.workload} {s.row}: {s.kind}: {s.reason}" for s in plan.skipped):
            console.print(line)
        raise UserError("nothing to run: every selected cell is n/a or unavailable")
    if run_id is None:
        run_id = store.begin_run(selection.to_json(), environment.fingerprint(chosen))
    else:
        store.set_state(run_id, "running")
    store.add_skipped(run_id, plan.skipped)  # a resumed run's, as the manifests say now
    store.add_notes(run_id, plan.notes)
    todo = plan.trials(store.finished_trials(run_id))
    s = plan.settings
    single = sorted({c.workload.id for c in plan.cells if c.workload.one_run_per_process})
    exception = f"; one run for {', '.join(single)}, whose peak memory is one run's" if single else ""
    console.print(f"run {run_id}: {len(plan.cells)} cells x {s.trials} trials "
                  f"({s.warmup} warm-up + {s.runs} timed runs each{exception}), {selection.profile} profile, "
                  f"{len(todo)} trials to go; {len(plan.skipped)} cells n/a or unavailable; "
                  f"stored in {store.path}")
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        with ProgressDisplay(console, total=len(todo)) as display:
            execute(plan, store, run_id, display)
    except KeyboardInterrupt:
        store.set_state(run_id, "interrupted")
        done = len(store.finished_trials(run_id))
        console.print(f"interrupted: {done} finished trials of run {run_id} are stored; "
                      f"continue with: concbench run --resume {run_id}")
        return 130
    store.set_state(run_id, "complete")
    return _show(store, run_id)


def _interrupt(signum, frame):
    raise KeyboardInterrupt


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


@cli.command()
@click.argument("run_id", type=int, required=False, metavar="[RUN]")
@click.option("--json", "as_json", is_flag=True,
              help="One JSON record per trial: cell, params, status, every figure, stderr.")
@DB_OPTION
def show(run_id, as_json, db):
    """Print a stored run again (the latest by default)."""
    store = Store(db or paths.default_db())
    if as_json:
        run_info = store.run(run_id)
        for t in store.trials(run_info.id):
            click.echo(json.dumps(records.trial_record(run_info, t)))
        return 0
    return _show(store, store.run(run_id).id)


def _show(store: Store, run_id: int) -> int:
    report = document.build(store, run_id)
    console.print(terminal.run_header(report.run, report.environment))
    for table in report.tables:
        console.print()
        for line in terminal.render(table):
            console.print(line)
    console.print()
    for line in report.diagnosis:
        console.print(line, markup=False)
    console.print()
    console.print(terminal.LEGEND, style="dim")
    if report.failed:
        console.print(f"[bold red]{len(report.failed)} of {len(report.trials)} trials failed or did not verify[/]")
    return 1 if report.failed else 0


REPORT_FORMATS = {"html": html.render, "md": markdown.render, "csv": export.csv_text, "json": export.json_text}


@cli.command()
@click.argument("run_id", type=int, required=False, metavar="[RUN]")
@click.option("--format", "format_", type=click.Choice(list(REPORT_FORMATS)), default="html",
              show_default=True,
              help="html: one self-contained page with charts; md: Markdown tables in the seeds' "
                   "styles; csv, json: every trial and run (schema in docs/formats.md).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write it. Default: results/run-RUN.html beside the database for "
                   "html, standard output for the others.")
@DB_OPTION
def report(run_id, format_, output, db):
    """Write a report of a stored run (the latest by default)."""
    store = Store(db or paths.default_db())
    found = document.build(store, run_id)
    text = REPORT_FORMATS[format_](found)
    if output is None and format_ == "html":
        output = store.path.parent / f"run-{found.run.id}.html"
    if output is None:
        click.echo(text, nl=False)
        return 0
    partial = output.with_name(output.name + ".partial")  # a full disk must not leave half a report
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        partial.write_text(text)
        partial.replace(output)
    except OSError as e:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise UserError(f"cannot write {output}: {e.strerror or e}") from None
    console.print(f"report of run {found.run.id}: {output}")
    return 0


@cli.command()
@click.argument("before", type=int, metavar="RUN_A")
@click.argument("after", type=int, metavar="RUN_B")
@THRESHOLD_OPTION
@click.option("--fail-on-regression", type=click.FloatRange(min=0), metavar="PCT",
              help="Exit 1 if a cell is called slower by PCT percent or more (for CI); "
                   "lowers --threshold to PCT if that is lower.")
@DB_OPTION
def compare(before, after, threshold, fail_on_regression, db):
    """Compare two stored runs cell by cell: both medians and their ratio.

    A change is called only when a two-sided Mann-Whitney U test on the timed
    runs of the verified trials gives p < 0.05 and the medians differ by at
    least --threshold. With 3 runs a side no test can reach p < 0.05: give
    the runs more trials or runs (e.g. --trials 5)."""
    store = Store(db or paths.default_db())
    runs = store.run(before), store.run(after)
    specs = document.load_specs()
    if fail_on_regression is not None:  # a regression that is not called cannot fail
        threshold = min(threshold, fail_on_regression)
    found = comparison.changes(store.trials(runs[0].id), store.trials(runs[1].id), specs,
                               threshold / 100)
    for label, run_info in zip(("before", "after"), runs):
        console.print(Text(f"{label}: ") + terminal.run_header(run_info))
    for difference in environment.differences(runs[0].environment, runs[1].environment):
        console.print(f"[yellow]differs:[/] {difference}", markup=True)
    for line in terminal.render_changes(found):
        console.print(line)
    console.print()
    console.print(terminal.change_summary(found))
    if fail_on_regression is None:
        return 0
    regressions = [c for c in found if c.verdict == comparison.Verdict.SLOWER
                   and c.slowdown * 100 >= fail_on_regression]
    for c in regressions:
        console.print(f"[bold red]regression[/] {c.table.workload} {c.table.params} {c.row}: "
                      f"{c.slowdown:.1%} more time", markup=True)
    return 1 if regressions else 0


@cli.command()
@WORKLOAD_OPTION
@MECHANISM_OPTION
@click.option("-p", "--param", "param", multiple=True, metavar="NAME=VALUE[,VALUE...]",
              help="Only cells with this parameter value, as the titles print it.")
@THRESHOLD_OPTION
@click.option("--last", type=click.IntRange(min=1), metavar="N",
              help="Only the N latest runs of each cell.")
@click.option("--steps-only", is_flag=True, help="Only the cells where a step or a drift was called.")
@DB_OPTION
def history(workload, mechanism, param, threshold, last, steps_only, db):
    """How each cell's median moved across the stored runs, with the steps
    larger than the noise called.

    Each run is tested against the previous run with the cell, as compare
    tests two runs (p < 0.05 and --threshold), and the first against the
    last, for a drift of steps too small to call one by one."""
    wanted = CellFilter(_split(workload), _split(mechanism),
                        tuple((n, tuple(v)) for n, v in map(workloads.parse_override, param)))
    found = histories(Store(db or paths.default_db()), document.load_specs(), threshold / 100, wanted, last)
    for cell_history in found:
        if cell_history.moved or not steps_only:
            console.print()
            for line in terminal.render_history(cell_history):
                console.print(line)
    console.print()
    console.print(terminal.history_summary(found, threshold / 100))
    console.print(terminal.HISTORY_LEGEND, style="dim")
    return 0


@cli.command(name="list")
def list_():
    """Workloads, runtimes, mechanisms, and every n/a cell with its reason."""
    specs, found = workloads.load_all(), runtimes.load_all()
    console.print("[bold]Workloads[/]  (concbench run -w ID; parameters at the quick profile)")
    for spec in specs.values():
        quick = " ".join(f"{k}={','.join(map(str, v)) if isinstance(v, list) else v}"
                         for k, v in spec.profiles["quick"].items())
        console.print(f"  {spec.id:<15} {spec.title}: {quick}  [dim]({spec.origin})[/]", markup=True)
    console.print("\n[bold]Runtimes and mechanisms[/]  (concbench run -r NAME -m NAME)")
    for rt in found.values():
        console.print(f"  {rt.name:<12} {rt.manifest.summary}")
        for name, mech in rt.manifest.mechanisms.items():
            console.print(f"    {rt.name + '/' + name:<18} {mech.doc}")
        for name, option in rt.manifest.options.items():
            console.print(f"    option {name:<11} {option.doc}  (-o {name})")
        for name, why in rt.manifest.absent.items():
            console.print(f"    {rt.name + '/' + name:<18} absent: {why}")
    console.print("\n[bold]Cells that do not run[/]")
    for spec in specs.values():
        for rt in found.values():
            for mechanism in rt.manifest.mechanisms:
                row = f"{spec.id:<15} {rt.name + '/' + mechanism:<18}"
                reason = rt.na_reason(spec.id, mechanism)
                limit = rt.manifest.mechanisms[mechanism].limits.get(spec.id)
                if reason:
                    console.print(f"  {row} n/a: {reason}")
                elif limit:
                    console.print(f"  {row} n/a above {limit.param}={limit.max}: {limit.why}")


@cli.command()
def doctor():
    """Which toolchains and libraries are present, and how to install what is missing."""
    missing = 0
    for rt in runtimes.load_all().values():
        rt.build()
        ok = rt.toolchain.ok and not rt.build_error
        missing += not ok
        state = (rt.toolchain.output if ok else rt.build_error if rt.toolchain.ok
                 else f"not found ({rt.install_hint(rt.manifest.packages)})")
        console.print(f"{'[green]ok[/]     ' if ok else '[red]missing[/]'} {rt.name:<16} {state}")
        for name, mech in rt.manifest.mechanisms.items():
            if not mech.requires or not ok:
                continue
            usable = rt.probe_requirement(name).ok
            missing += not usable
            hint = "" if usable else f"  ({rt.install_hint(mech.packages)})"
            console.print(f"{'[green]ok[/]     ' if usable else '[red]missing[/]'} "
                          f"{rt.name + '/' + name:<16} {' '.join(rt.expand(mech.requires))}{hint}")
        for name, why in rt.manifest.absent.items():  # cannot be had here: not counted as missing
            console.print(f"[yellow]absent[/]  {rt.name + '/' + name:<16} {why}")
    console.print(f"database: {paths.default_db()}")
    return 1 if missing else 0


@cli.command()
@click.option("--dry-run", is_flag=True, help="Only print what would be installed.")
@click.option("--tests", is_flag=True, help="Also what the tests need (a browser for the HTML report).")
def setup(dry_run, tests):
    """Install the Debian packages the runtimes need (apt-get), if any are missing.

    Prints nothing when everything is present."""
    missing = system.missing_packages(system.required_packages(list(runtimes.load_all().values()), tests))
    if not missing:
        return 0
    console.print(f"{'would install' if dry_run else 'installing'}: {' '.join(missing)}")
    if not dry_run:
        system.install(missing)
    return 0


def main() -> None:
    try:
        code = cli.main(standalone_mode=False)
    except UserError as e:
        click.echo(f"concbench: error: {e}", err=True)
        code = 2
    except click.UsageError as e:
        command = e.ctx.command_path if e.ctx else "concbench"
        click.echo(f"concbench: error: {e.format_message()} (see {command} --help)", err=True)
        code = 2
    except click.Abort:
        code = 130
    sys.exit(code or 0)
