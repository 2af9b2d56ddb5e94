"""concbench merge: the runs of SQLite files copied into one database."""

import click

from .. import options
from ..display import printable
from ..store import merge as merging
from .console import console


@click.command()
@click.argument("sources", nargs=-1, required=True, metavar="FILE...", callback=options.databases)
@click.option(
    "--into",
    required=True,
    callback=options.database,
    metavar="FILE|URL",
    help="The database to copy the runs into: a SQLite file or a PostgreSQL server's "
    "postgresql://USER@HOST/NAME, made if missing.",
)
def merge(sources, into):
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
    for line in merging.merge(list(sources), into).lines():
        console.print(printable(line))
    return 0
