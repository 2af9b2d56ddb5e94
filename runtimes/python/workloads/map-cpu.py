"""Worker modes: CPU-bound work (workloads/map-cpu.toml): case i (0-based)
computes (i + 1) * tarai(9, 4, 0), tarai making 55,229 calls that return 9;
the unit that evaluates the case multiplies, and `sum` adds up the results.
The LCG has nothing to give: every case's call is tarai(9, 4, 0); its input
is (i + 1, 9, 4, 0). lib/workermodes.py runs it in every worker mode."""

import sys

from lib import workermodes


def setup(run) -> list[tuple[int, int, int, int]]:
    return [(i + 1, 9, 4, 0) for i in range(run.params["cases"])]


def evaluate(case) -> int:
    factor, x, y, z = case
    return factor * tarai(x, y, z)


def tarai(x: int, y: int, z: int) -> int:
    return y if x <= y else tarai(tarai(x - 1, y, z), tarai(y - 1, z, x), tarai(z - 1, x, y))


def evaluation(inputs, total):
    total["sum"] += sum((yield inputs))


MECHANISMS = workermodes.mechanisms(sys.modules[__name__])
