"""The harness's small C programs (the trial spawner, the load generator):
each built on first use with the machine's C compiler, into build/ of the
project, and again when its source is newer than the binary."""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from . import paths
from .errors import UserError

FLAGS = ["-O2", "-Wall", "-Wextra", "-Werror"]


def build(source: Path, name: str, what: str) -> str:
    """The path of the binary `name` built from `source`; `what` names it in
    the error messages ("the trial spawner")."""
    binary = paths.PROJECT / "build" / name
    if binary.exists() and binary.stat().st_mtime >= source.stat().st_mtime:
        return str(binary)
    compiler = shutil.which("cc") or shutil.which("gcc")
    if not compiler:
        raise UserError(f"no C compiler to build {what} (concbench setup installs gcc)")
    binary.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=binary.parent, prefix=f".{name}-")
    os.close(fd)
    done = subprocess.run(
        [compiler, *FLAGS, "-o", temporary, str(source)], capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    if done.returncode != 0:
        os.unlink(temporary)
        raise UserError(f"building {what} failed: {done.stderr.strip().splitlines()[-1:]}")
    os.replace(temporary, binary)  # atomic: concurrent harnesses may race to build it
    return str(binary)
