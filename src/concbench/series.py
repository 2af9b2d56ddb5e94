"""Sums that `[expect]` tables may call where no closed form is short enough to read."""

from . import lcg

# The most terms squares_mod_sum computes one by one (about 0.1 s of them):
# future's count is up to 10,000,000, but its modulus is 1,000.
MAX_TERMS = 1_000_000


def squares_mod_sum(count: int, modulus: int) -> int:
    """The sum of (i * i) mod modulus for i in 0..count-1 (the future workload's values).
    The terms repeat with period `modulus`, so whole periods are counted once."""
    if modulus < 1 or count < 0:
        raise ValueError(f"squares_mod_sum({count}, {modulus}): a count of at least 0, a modulus of at least 1")
    if min(count, modulus) > MAX_TERMS:
        raise ValueError(f"{min(count, modulus):,} terms (the least of count and modulus), at most {MAX_TERMS:,}")
    period = [i * i % modulus for i in range(min(count, modulus))]
    whole, rest = divmod(count, modulus)
    return whole * sum(period) + sum(period[:rest])


def decimal_digits_below(count: int) -> int:
    """The decimal digits of 0, 1, ..., count-1 written one after another
    (mutex-cpu's subjects end in their iteration's number): each length's
    numbers are counted as a block, so the cost is the count's digits."""
    if count < 0:
        raise ValueError(f"decimal_digits_below({count}): a count of at least 0")
    total, low, digits = 0, 0, 1
    while low < count:
        high = min(count, 10**digits)
        total += (high - low) * digits
        low, digits = high, digits + 1
    return total


def bisection_candidates(count: int, lo: int, hi: int, limit: int) -> int:
    """How many candidates map-shrink's bisection evaluates: the first of
    `count` LCG draws in [lo, hi] above `limit` is shrunk between 0 (passes)
    and it (fails); each round tries up to 8 evenly spaced values strictly
    above the passing bound, until the bounds are adjacent."""
    failing = lcg.draws(count, lo, hi)[lcg.lcg_first_above(count, lo, hi, limit)]
    passing, evaluated = 0, 0
    while failing - passing > 1:
        candidates = list(dict.fromkeys(passing + (failing - passing) * k // 9 for k in range(1, 9)))
        candidates = [c for c in candidates if c != passing]
        evaluated += len(candidates)
        failed = next((i for i, c in enumerate(candidates) if c > limit), len(candidates))
        if failed > 0:
            passing = candidates[failed - 1]
        if failed < len(candidates):
            failing = candidates[failed]
    return evaluated
