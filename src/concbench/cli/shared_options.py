"""The options several commands share: which database, which folders of
workloads and runtimes, which cells, and how a run is named and judged."""

import functools
from pathlib import Path

import click

from .. import options, paths
from ..selection import PROFILE_SETTINGS
from ..store import Store, open_store

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
    return click.option(
        f"--{kind}",
        f"{kind}_folders",
        multiple=True,
        metavar="DIR",
        type=click.Path(exists=True, file_okay=False, path_type=Path),
        help=f"Also the {kind} in DIR, from outside the repository (repeatable; "
        f"also ${paths.VARIABLES[kind]}, ':'-separated).",
    )


def suite_options(command):
    """--workloads DIR and --runtimes DIR, for every command that reads specs
    or manifests, which it takes as one paths.Suite named suite."""

    @functools.wraps(command)
    def with_suite(*args, workloads_folders, runtimes_folders, **kwargs):
        return command(*args, suite=paths.Suite(workloads_folders, runtimes_folders), **kwargs)

    return _folders("workloads")(_folders("runtimes")(with_suite))


def _names_option(short: str, name: str, metavar: str, help: str):
    """An option that takes names, repeated or comma-separated."""
    return click.option(short, f"--{name}", name, multiple=True, metavar=metavar, callback=options.names, help=help)


WORKLOAD_OPTION = _names_option(
    "-w", "workload", "ID", "Only these workloads (repeat or comma-separate). Default: all."
)
RUNTIME_OPTION = _names_option("-r", "runtime", "NAME", "Only these runtimes, e.g. ruby, c. Default: all.")
MECHANISM_OPTION = _names_option(
    "-m", "mechanism", "NAME", "Only these mechanisms: 'thread' or 'ruby/thread'. Default: all."
)
PROFILE_OPTION = click.option(
    "--profile",
    type=click.Choice(list(PROFILE_SETTINGS)),
    default="quick",
    show_default=True,
    help="Parameter set: smoke (seconds, the tests), quick, standard (the seeds' "
    "own parameters), full (standard plus the scaling sweeps).",
)


def param_option(help: str):
    """-p NAME=VALUE[,VALUE...], a parameter, with what the command does with it."""
    return click.option(
        "-p", "--param", "param", multiple=True, metavar="NAME=VALUE[,VALUE...]", callback=options.overrides, help=help
    )


PARAM_OPTION = param_option("Override a parameter; several values make a sweep.")
CPUS_OPTION = click.option(
    "--cpus",
    callback=options.cpu_counts,
    metavar="N[,N...]",
    help="Run each cell on N CPUs of this machine, a cell for each N (e.g. 1,2,4): the trial and all it "
    "starts are confined to the first N CPUs concbench may use, and its runtime is sized to them. "
    "Default: every CPU, unconfined; the full profile: 1, 2, 4 ... up to every CPU.",
)


def option_option(help: str):
    """-o NAME, a runtime option, with what it does for the command."""
    return click.option("-o", "--option", "option", multiple=True, metavar="NAME", callback=options.names, help=help)


def budget_option(help: str):
    """--budget TIME, how long a run's trials may take, with what the command does within it."""
    waits = " Time spent waiting for another concbench's turn on the machine does not count."
    return click.option("--budget", type=options.Duration("budget"), metavar="TIME", help=help + waits)


def threshold_option(default: float):
    """--threshold PCT, the smallest change in time a command calls."""
    return click.option(
        "--threshold",
        type=options.Finite(min=0),
        default=default,
        show_default=True,
        metavar="PCT",
        help="The smallest change in time worth calling, in percent.",
    )


THRESHOLD_OPTION = threshold_option(5.0)
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


LEGEND_OPTION = click.option(
    "--legend",
    is_flag=True,
    help="Print how to read the tables under them (run prints it anyway under its database's first run).",
)


def database(db: str | None) -> str:
    """The database --db names, else the default one."""
    return db or paths.default_db()


def existing_store(db: str | None) -> Store:
    """The database of a command that only reads it: never made by it."""
    return open_store(database(db), create=False)
