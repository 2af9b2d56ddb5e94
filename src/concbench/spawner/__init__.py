"""The trampoline that starts trials (spawn.c): built on first use with the
machine's C compiler, into build/ of the project."""

import os
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

from .. import paths
from ..errors import UserError

SOURCE = Path(__file__).with_name("spawn.c")


@cache
def path() -> str:
    binary = paths.PROJECT / "build" / "concbench-spawn"
    if binary.exists() and binary.stat().st_mtime >= SOURCE.stat().st_mtime:
        return str(binary)
    compiler = shutil.which("cc") or shutil.which("gcc")
    if not compiler:
        raise UserError("no C compiler to build the trial spawner (concbench setup installs gcc)")
    binary.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=binary.parent, prefix=".spawn-")
    os.close(fd)
    done = subprocess.run(
        [compiler, "-O2", "-o", temporary, str(SOURCE)], capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    if done.returncode != 0:
        os.unlink(temporary)
        raise UserError(f"building the trial spawner failed: {done.stderr.strip().splitlines()[-1:]}")
    os.replace(temporary, binary)  # atomic: concurrent harnesses may race to build it
    return str(binary)
