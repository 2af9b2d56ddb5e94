"""I/O - Socketpair (workloads/socketpair.toml): per group, a writer unit
writes `messages` blocks of `size` bytes into an AF_UNIX socketpair and shuts
its side down for writing; a reader unit reads until EOF and counts the
bytes (lib/stream.py)."""

from lib.stream import Socket, mechanisms

MECHANISMS = mechanisms(Socket)
