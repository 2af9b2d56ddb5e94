"""Where concbench finds its workloads, runtimes and database.

The project's own folders come first. Folders from outside the repository
add to them: given with --workloads and --runtimes, or in the environment
variables CONCBENCH_WORKLOADS and CONCBENCH_RUNTIMES (separated by ':').
CONCBENCH_BUILTINS=off leaves the project's own out, for a suite of only
one's own (the tests' deliberately bad runtime). CONCBENCH_DB names the
database: a SQLite file, or a PostgreSQL server's postgresql:// URL."""

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from .errors import UserError

PROJECT = Path(__file__).resolve().parents[2]
BUILTIN = {"workloads": PROJECT / "workloads", "runtimes": PROJECT / "runtimes"}
VARIABLES = {"workloads": "CONCBENCH_WORKLOADS", "runtimes": "CONCBENCH_RUNTIMES"}


def _folders(kind: str, given: tuple[Path, ...] = ()) -> list[Path]:
    """Where to find the workloads or runtimes, given: those of the command
    line. Each folder once, built-in first."""
    builtin = [] if os.environ.get("CONCBENCH_BUILTINS") == "off" else [BUILTIN[kind]]
    variable = VARIABLES[kind]
    listed = [Path(p) for p in os.environ.get(variable, "").split(":") if p]
    for folder in listed:
        if not folder.is_dir():
            raise UserError(f"{variable}: {folder} is not a folder")
    for folder in given:
        if not folder.is_dir():
            raise UserError(f"--{kind} {folder} is not a folder")
    found = {}
    for folder in builtin + listed + list(given):
        found.setdefault(folder.resolve(), folder)
    return list(found.values())


def in_project(path: Path) -> bool:
    """Whether a folder is part of this checkout, whose commit the run records."""
    return path.resolve().is_relative_to(PROJECT)


@dataclass(frozen=True)
class Suite:
    """The folders of workloads and runtimes a command was given, which add
    to the project's own and those of the environment."""

    workloads: tuple[Path, ...] = ()
    runtimes: tuple[Path, ...] = ()

    def workload_dirs(self) -> list[Path]:
        return _folders("workloads", self.workloads)

    def runtime_dirs(self) -> list[Path]:
        return _folders("runtimes", self.runtimes)


RESULTS = PROJECT / "results"


def state_folder() -> Path:
    """This user's concbench state kept between commands (the journal of trials
    waiting for a database server): XDG's state folder."""
    return Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "concbench"


def make_private(folder: Path) -> None:
    """folder, made if missing, readable by this user alone: what it holds
    (trial records with the kits' stderr, the machine lock) is nobody else's.
    One an older concbench made readable by all is made private too."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    status = os.lstat(folder)
    if stat.S_ISDIR(status.st_mode) and status.st_uid == os.geteuid() and status.st_mode & 0o077:
        os.chmod(folder, 0o700)


def default_db() -> str:
    return os.environ.get("CONCBENCH_DB") or str(RESULTS / "concbench.db")
