"""The catalogue's portable inputs, identical in every language
(src/concbench/lcg.py): the LCG x = (x * 1103515245 + 12345) mod 2^31 from
seed 42. Draw k is the (k+1)-th value; mapped to [lo, hi] it is
lo + x mod (hi - lo + 1). Case i of a workload uses draw i."""

SEED = 42


def draws(count: int, lo: int, hi: int) -> list[int]:
    x, values = SEED, []
    for _ in range(count):
        x = (x * 1103515245 + 12345) % 2**31
        values.append(lo + x % (hi - lo + 1))
    return values
