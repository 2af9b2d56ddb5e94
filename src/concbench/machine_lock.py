"""One trial at a time on a machine: every concbench that runs trials here,
a run or a worker, takes its turn by one lock, so that no two trials ever
measure each other; and every build takes it too (runtimes.py). A test
suite's trials may leave it to the builds (trial_turn).

The lock lives where no other user can plant anything in its place: root's
folder under /run, which root's concbench makes and every user's concbench
can lock (flock needs no write access), or, until root has made it, this
user's own private folder. It is opened without following links and checked
for owner and type before it is used: a link, a FIFO or another user's file
there is refused in one line, never followed, waited on or changed."""

import contextlib
import errno
import fcntl
import os
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from . import paths
from .errors import UserError

SHARED = Path("/run/concbench")  # root's: every user's concbench takes turns by it
LOCK_NAME = "machine.lock"
TAKE_TURNS = "CONCBENCH_TAKE_TURNS"  # "builds": only builds take turns (trial_turn)
# O_NONBLOCK: a FIFO planted there opens at once, and is then refused.
_OPEN_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC

_held = False  # by this process: a worker holds it around a trial, which takes it too
_waited_ns = 0  # by this process, for another concbench to let go


@contextlib.contextmanager
def machine_turn(waiting: Callable[[], None] = lambda: None) -> Iterator[None]:
    """Holds the machine while the block runs; waiting is told when another
    concbench holds it first. The kernel lets go of it if this process dies."""
    global _held, _waited_ns
    if _held:
        yield
        return
    fd = _open_lock()
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            since = time.monotonic_ns()
            waiting()
            fcntl.flock(fd, fcntl.LOCK_EX)
            _waited_ns += time.monotonic_ns() - since
        _held = True
        try:
            yield
        finally:
            _held = False
    finally:
        os.close(fd)


def trials_take_turns() -> bool:
    """Whether trials take the machine's turns (trial_turn); a value other
    than "builds" is refused rather than read as the safe default."""
    value = os.environ.get(TAKE_TURNS, "")
    if value not in ("", "builds"):
        raise UserError(f"{TAKE_TURNS}={value!r}: expected 'builds' (only builds take turns) or nothing")
    return value != "builds"


def trial_turn(waiting: Callable[[], None] = lambda: None) -> contextlib.AbstractContextManager[None]:
    """The machine's turn for a trial or a noise probe: machine_turn, unless
    CONCBENCH_TAKE_TURNS=builds says this concbench's trials need not run
    alone. That is a test suite's setting: its trials check results and
    measure nothing, and two of its processes run theirs side by side.
    Builds take their turns whatever it says: two builds of one kit at once
    would break each other's files."""
    if not trials_take_turns():
        return contextlib.nullcontext()
    return machine_turn(waiting)


def own_clock_ns() -> int:
    """The monotonic clock less the time this process waited for its turns:
    a budget is spent by a run's own work, not by another concbench's."""
    return time.monotonic_ns() - _waited_ns


def lock_path() -> Path:
    """The lock this concbench takes turns by."""
    shared = SHARED / LOCK_NAME
    if os.geteuid() == 0 or os.path.lexists(shared):
        return shared
    return private_folder() / LOCK_NAME


def private_folder() -> Path:
    """This user's folder for the lock: the runtime folder the login gave, or the state folder."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    return (Path(runtime) if runtime else paths.state_folder()) / "concbench"


def _open_lock() -> int:
    path = lock_path()
    owner = 0 if path.parent == SHARED else os.geteuid()
    try:
        if path.parent != SHARED:
            paths.make_private(path.parent)
        elif os.geteuid() == 0:
            _make_shared_folder()
        _check(path.parent, os.lstat(path.parent), owner, stat.S_ISDIR, "folder")
        return _open_checked(path, owner)
    except OSError as e:
        reason = "it is a symbolic link; remove it" if e.errno == errno.ELOOP else e.strerror or str(e)
        raise UserError(f"cannot take the machine lock {path}: {reason}") from None


def _make_shared_folder() -> None:
    """Made if missing, readable by all; checked by the caller either way."""
    SHARED.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.mkdir(SHARED)
        os.chmod(SHARED, 0o755)  # whatever the umask; no other user can write to /run to swap it meanwhile


def _open_checked(path: Path, owner: int) -> int:
    """Root's lock is root's file, read by others; this user's is theirs alone."""
    mine = os.geteuid() == owner
    fd = os.open(path, (os.O_RDWR | os.O_CREAT if mine else os.O_RDONLY) | _OPEN_FLAGS, 0o600)
    try:
        _check(path, os.fstat(fd), owner, stat.S_ISREG, "regular file")
        if mine:
            os.fchmod(fd, 0o644 if owner == 0 else 0o600)  # whatever the umask: others lock root's by reading it
    except BaseException:
        os.close(fd)
        raise
    return fd


def _check(path: Path, status: os.stat_result, owner: int, is_kind: Callable[[int], bool], kind: str) -> None:
    """What no other user can have put there or can change."""
    if not is_kind(status.st_mode):
        fault = f"not a {kind}"
    elif status.st_uid != owner:
        fault = f"owned by uid {status.st_uid}, not {owner}"
    elif status.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        fault = "writable by others"
    else:
        return
    raise UserError(f"cannot take the machine lock: {path} is {fault}; remove it")
