"""One trial at a time on a machine: every concbench that runs trials here,
a run or a worker, takes its turn by one lock, so that no two trials ever
measure each other."""

import contextlib
import fcntl
import os
from collections.abc import Callable, Iterator
from pathlib import Path

# One path on every machine, whatever $TMPDIR each concbench was given.
LOCK = Path("/tmp/concbench-machine.lock")

_held = False  # by this process: a worker holds it around a trial, which takes it too


@contextlib.contextmanager
def machine_turn(waiting: Callable[[], None] = lambda: None) -> Iterator[None]:
    """Holds the machine while the block runs; waiting is told when another
    concbench holds it first. The kernel lets go of it if this process dies."""
    global _held
    if _held:
        yield
        return
    with open(LOCK, "a") as held:
        with contextlib.suppress(OSError):  # any user's concbench takes turns with any other's
            os.chmod(LOCK, 0o666)
        try:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            waiting()
            fcntl.flock(held, fcntl.LOCK_EX)
        _held = True
        try:
            yield
        finally:
            _held = False
