"""Worker modes: I/O-bound work (workloads/map-io.toml): each case reads the
whole of one file of `file_size` bytes and appends as many characters as its
LCG draw in [0, 10] says; `length` adds up the lengths. lib/workermodes.py
runs it in every worker mode."""

import os
import sys

from lib import lcg, workermodes


def setup(run) -> list[tuple[str, int]]:
    """The file is written before the timing; each case gets its path and its draw."""
    path = os.path.join(run.scratch, "map-io")
    with open(path, "wb") as file:
        file.write(b"x" * run.params["file_size"])
    return [(path, n) for n in lcg.draws(run.params["cases"], 0, 10)]


def evaluate(case) -> int:
    path, n = case
    with open(path, "rb") as file:
        return len(file.read() + b"x" * n)


def evaluation(inputs, total):
    total["length"] += sum((yield inputs))


MECHANISMS = workermodes.mechanisms(sys.modules[__name__])
