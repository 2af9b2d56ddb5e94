"""concbench worker: the trials of a stored plan, taken on this machine."""

import click

from .. import options, session
from ..worker import GRACE
from .console import console
from .shared_options import DB_OPTION, MACHINE_OPTION, database, suite_options
from .show import tables


@click.command()
@click.argument("run_id", type=int, required=False, metavar="[RUN]")
@MACHINE_OPTION
@click.option(
    "--grace",
    type=options.Finite(0, 86400),
    default=GRACE,
    show_default=True,
    metavar="SECONDS",
    help="How long past a trial's timeout this worker's claim on it holds: if the worker dies, "
    "another takes the trial once the claim lapses.",
)
@DB_OPTION
@suite_options
def worker(run_id, machine, grace, db, suite):
    """Take the trials of a stored plan (concbench run --plan-only) one at a
    time from a PostgreSQL database, run each here and store it, until none
    is left; RUN is the latest plan with trials waiting by default.

    Start one on each machine: the trials of one machine take turns, never
    running beside each other. Exits 1 if any of its trials failed."""
    return session.work(run_id, database(db), machine, grace, suite, session.Screen(console, tables))
