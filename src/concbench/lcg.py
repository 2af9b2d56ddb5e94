"""The portable random inputs of the workload catalogue: the LCG
x = (x * 1103515245 + 12345) mod 2^31 from seed 42, identical in every
language. Draw k is the (k+1)-th value; a draw mapped to [lo, hi] is
lo + draw mod (hi - lo + 1). Case i of a workload uses draw i."""

from itertools import islice

SEED = 42
# The most draws an `[expect]` function makes (under a second of them): the
# map workloads' largest `cases`. Unbounded, a spec could ask for any count,
# or pass the ops a run reports.
MAX_DRAWS = 1_000_000


def draws(count: int, lo: int, hi: int) -> list[int]:
    if not 0 <= count <= MAX_DRAWS:
        raise ValueError(f"{count:,} draws asked for, at most {MAX_DRAWS:,}")
    return list(islice(_mapped(lo, hi), count))


def _mapped(lo: int, hi: int):
    if hi < lo:
        raise ValueError(f"empty range [{lo}, {hi}]")
    x = SEED
    while True:
        x = (x * 1103515245 + 12345) % 2**31
        yield lo + x % (hi - lo + 1)


def lcg_sum(count: int, lo: int, hi: int) -> int:
    """The sum of the first `count` draws in [lo, hi]."""
    return sum(draws(count, lo, hi))


def lcg_first_above(count: int, lo: int, hi: int, limit: int) -> int:
    """The index of the first of `count` draws in [lo, hi] that exceeds limit."""
    for index, value in enumerate(draws(count, lo, hi)):
        if value > limit:
            return index
    raise ValueError(f"none of the first {count} draws in [{lo}, {hi}] exceeds {limit}")
