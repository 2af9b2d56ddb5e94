"""Worker modes: trivial work (workloads/map-trivial.toml): each case takes x
in [-1,000,000, 1,000,000] from the LCG and computes x + 1; `sum` adds up the
results. lib/workermodes.py runs it in every worker mode."""

import sys

from lib import lcg, workermodes


def setup(run) -> list[int]:
    return lcg.draws(run.params["cases"], -1_000_000, 1_000_000)


def evaluate(x: int) -> int:
    return x + 1


def evaluation(inputs, total):
    total["sum"] += sum((yield inputs))


MECHANISMS = workermodes.mechanisms(sys.modules[__name__])
