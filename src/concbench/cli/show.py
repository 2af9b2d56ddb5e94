"""A stored run shown again: concbench show (the terminal's tables) and
report (a file in one of the report formats)."""

import contextlib
import json
import os
import tempfile
from pathlib import Path

import click

from .. import paths
from ..display import printable
from ..errors import UserError
from ..progress import plan_progress_text
from ..report import figures, formats, intervals, run_report, scaling, serialize, terminal
from ..report import machines as machines_view
from ..selection import CellFilter
from ..store import Store
from .console import console
from .shared_options import (
    DB_OPTION,
    LEGEND_OPTION,
    MECHANISM_OPTION,
    RUNTIME_OPTION,
    WORKLOAD_OPTION,
    existing_store,
    suite_options,
)


@click.command()
@click.argument("run_id", type=int, required=False, metavar="[RUN]")
@WORKLOAD_OPTION
@RUNTIME_OPTION
@MECHANISM_OPTION
@click.option(
    "--json", "as_json", is_flag=True, help="One JSON record per trial: cell, params, status, every figure, stderr."
)
@LEGEND_OPTION
@DB_OPTION
@suite_options
def show(run_id, workload, runtime, mechanism, as_json, legend, db, suite):
    """Print a stored run again (the latest by default), or the part of it
    that -w, -r and -m name."""
    store = existing_store(db)
    wanted = CellFilter(workload, runtime, mechanism)
    if as_json:
        found = run_report.build(store.stored_run(run_id), wanted, suite)
        for t in found.trials:
            click.echo(json.dumps(serialize.trial_record(found.run, t)))
        return 0
    return tables(store, store.run(run_id).id, wanted, suite, legend)


def tables(
    store: Store,
    run_id: int,
    wanted: CellFilter = CellFilter(),
    suite: paths.Suite = paths.Suite(),
    legend: bool = False,
) -> int:
    """A run's tables on the terminal, with its diagnosis and, if asked, the
    legend; 1 where a trial failed or did not verify."""
    report = run_report.build(store.stored_run(run_id), wanted, suite)
    console.print(terminal.run_header(report.run, report.environment))
    if report.speed:
        console.print(report.speed.line())
    if progress := store.progress(run_id):
        console.print(printable(plan_progress_text(progress)))
        for cell, index, name in progress.claimed:
            console.print(printable(f"  {name}: {cell} trial {index + 1}"))
        if workers := store.workers(run_id):
            console.print(printable(f"workers: {', '.join(workers)}"))
    after = scaling.placed(report.scaling, report.tables)
    for table in report.tables:
        console.print()
        for line in terminal.render(table):
            console.print(line)
        if table.label in after:
            console.print()
            for line in terminal.render_scaling(after[table.label]):
                console.print(line)
    console.print()
    for line in report.diagnosis.lines() if report.diagnosis else []:
        console.print(printable(line))
    if legend:
        console.print()
        console.print(figures.legend_text(), style="dim")
    if report.repeat_check:
        console.print(printable(f"repeat check: {report.repeat_check.summary()}"))
        for cell, difference in report.repeat_check.worst:
            console.print(printable(f"  {difference:7.1%}  {cell}"))
    if report.failed:
        console.print(f"{len(report.failed)} of {len(report.trials)} trials failed or did not verify", style="bold red")
    return 1 if report.failed else 0


@click.command()
@click.argument("run_ids", type=int, nargs=-1, metavar="[RUN]...")
@click.option(
    "--format",
    "format_",
    type=click.Choice(list(formats.FORMATS)),
    default=formats.DEFAULT,
    show_default=True,
    help=formats.FORMAT_HELP,
)
@click.option(
    "--machines",
    is_flag=True,
    help="Set machines side by side: per table, each machine's ratios to its own baseline, from the "
    f"latest run of each machine (or of each among the RUNs given); {formats.MACHINES_CHOICES}.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help=formats.OUTPUT_HELP,
)
@WORKLOAD_OPTION
@RUNTIME_OPTION
@MECHANISM_OPTION
@DB_OPTION
@suite_options
def report(run_ids, format_, machines, output, workload, runtime, mechanism, db, suite):
    """Write a report of a stored run (the latest by default), or of the part
    of it that -w, -r and -m name; with --machines, of the machines'
    latest runs side by side."""
    store = existing_store(db)
    made = _machines_report if machines else _run_report
    chosen = formats.FORMATS[format_]
    text, what, run_id, settled = made(store, run_ids, chosen, CellFilter(workload, runtime, mechanism), suite)
    if output is None and chosen.page:
        output = store.folder / chosen.file_name(run_id)
    if output is None:
        click.echo(text, nl=False)
        return 0
    _write(output, text)
    if settled:
        console.print(printable(settled))
    console.print(printable(f"{what}: {output}"))
    return 0


def _run_report(
    store: Store, run_ids: tuple[int, ...], chosen: formats.Format, wanted: CellFilter, suite: paths.Suite
) -> tuple[str, str, int, str]:
    """A run's report in a format, what it is, the run's number and how far its rows settled."""
    if len(run_ids) > 1:
        raise UserError("report takes one RUN; several go with --machines")
    found = run_report.build(store.stored_run(run_ids[0] if run_ids else None), wanted, suite)
    return chosen.run(found), f"report of run {found.run.id}", found.run.id, intervals.census(found.tables).text()


def _machines_report(
    store: Store, run_ids: tuple[int, ...], chosen: formats.Format, wanted: CellFilter, suite: paths.Suite
) -> tuple[str, str, None, None]:
    """The machines side by side in a format, what it is, no run's number and no census."""
    if chosen.machines is None:
        raise UserError(f"report --machines writes {formats.MACHINES_CHOICES}, not {chosen.name}")
    found = machines_view.build(store.latest_of_each_machine(run_ids), run_ids, wanted, suite)
    return chosen.machines(found), "machines side by side", None, None


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
