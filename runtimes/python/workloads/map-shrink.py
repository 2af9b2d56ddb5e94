"""Worker modes: a failing property, shrunk (workloads/map-shrink.toml): the
property x <= 100 over LCG integers in [-1,000,000, 1,000,000]. The units
evaluate every case; the first failing one in case order (index f, value v)
is shrunk by bisection between 0, which passes, and v, which fails: each
round the units evaluate up to 8 evenly spaced candidates strictly between
the bounds; the smallest failing one becomes the upper bound and the largest
passing one below it the lower, until they are adjacent. `first` adds up f,
`minimal` the upper bounds, 101 each, and `candidates` the candidate values
the units evaluated while shrinking (the results they returned: the gathered
results are as many). lib/workermodes.py runs it in every worker mode."""

import sys

from lib import lcg, workermodes


def setup(run) -> list[int]:
    return lcg.draws(run.params["cases"], -1_000_000, 1_000_000)


def evaluate(x: int) -> bool:
    return x <= 100


def evaluation(inputs, total):
    held = yield inputs
    if all(held):
        raise ValueError("none of the cases fails the property")
    first = held.index(False)
    total["first"] += first
    total["minimal"] += yield from shrink(inputs[first], total)


def shrink(failing: int, total):
    passing = 0
    while failing - passing > 1:
        candidates = sorted({passing + (failing - passing) * k // 9 for k in range(1, 9)} - {passing})
        held = yield candidates
        total["candidates"] += len(held)
        failed = held.index(False) if False in held else len(candidates)  # the ones before it all pass
        if failed > 0:
            passing = candidates[failed - 1]
        if failed < len(candidates):
            failing = candidates[failed]
    return failing


MECHANISMS = workermodes.mechanisms(sys.modules[__name__])
