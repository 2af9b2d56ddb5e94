"""I/O - Pipe (workloads/pipe.toml): per group, a writer unit writes
`messages` blocks of `size` bytes into a pipe and closes it; a reader unit
reads until EOF and counts the bytes (lib/stream.py)."""

from lib.stream import Pipe, mechanisms

MECHANISMS = mechanisms(Pipe)
