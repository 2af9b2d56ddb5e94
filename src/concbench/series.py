"""Sums that `[expect]` tables may call where no closed form is short enough to read."""


def squares_mod_sum(count: int, modulus: int) -> int:
    """The sum of (i * i) mod modulus for i in 0..count-1 (the future workload's values).
    The terms repeat with period `modulus`, so whole periods are counted once."""
    if modulus < 1:
        raise ValueError(f"modulus {modulus} is not positive")
    period = [i * i % modulus for i in range(min(count, modulus))]
    whole, rest = divmod(count, modulus)
    return whole * sum(period) + sum(period[:rest])
