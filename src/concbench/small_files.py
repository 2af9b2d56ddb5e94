"""Reading a file a user can point concbench at (a manifest, a workload
spec): only a regular file of bounded size, opened so that a FIFO or a
device cannot block or flood the reader."""

import os
import stat
from pathlib import Path

from .errors import UserError

MAX_BYTES = 1 << 20


def read_small_text(path: Path) -> str:
    """The text of path; a one-line error unless it is a regular file of at
    most MAX_BYTES. A link is followed (a runtime folder may link its files),
    and the opened file itself is checked, so nothing can be swapped in between."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError as e:
        raise UserError(f"{path}: cannot read: {e.strerror}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # before fdopen, which refuses a folder with a traceback
        os.close(fd)
        raise UserError(f"{path}: cannot read: not a regular file")
    with os.fdopen(fd, "rb") as file:
        data = file.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise UserError(f"{path}: cannot read: larger than {MAX_BYTES // 1024} KiB")
    try:
        return data.decode()
    except UnicodeDecodeError as e:
        raise UserError(f"{path}: cannot read: {e}") from None
