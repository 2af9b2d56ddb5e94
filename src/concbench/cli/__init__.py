"""The `concbench` command: run, ab, worker, show, report, compare, history,
merge, list, doctor, setup, each group of them in a module of its own."""

import sys

import click

from .. import machine_lock
from ..display import printable
from ..errors import UserError
from . import catalog, compare, merge, run, show, worker


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli():
    """concbench measures what concurrency costs: the same precisely specified
    workloads on many concurrency mechanisms, every result verified, wall time,
    CPU time and peak memory side by side.

    Start with `concbench doctor`, then `concbench run`."""
    machine_lock.trials_take_turns()  # a bad CONCBENCH_TAKE_TURNS is refused before anything runs


for command in (
    run.run,
    run.ab,
    worker.worker,
    show.show,
    show.report,
    compare.compare,
    compare.history,
    merge.merge,
    catalog.list_,
    catalog.doctor,
    catalog.setup,
):
    cli.add_command(command)


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
