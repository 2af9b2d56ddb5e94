"""The CPUs a trial may use: the harness's own (its affinity mask, which a
taskset or a container may have narrowed), the first k of them for a trial
confined to k, and a set of them written as the kernel writes one."""

import os

from .errors import UserError


def usable() -> list[int]:
    """The CPUs this process may run on, in order."""
    return sorted(os.sched_getaffinity(0))


def first(k: int) -> list[int]:
    """The CPUs a trial confined to k runs on: the first k usable ones."""
    check([k])
    return usable()[:k]


def check(counts) -> None:
    """A one-line error for a CPU count this machine cannot give a trial."""
    mine = usable()
    if counts and max(counts) > len(mine):
        raise UserError(
            f"{max(counts)} CPUs asked for, but concbench may use {len(mine)} on this machine ({listed(mine)})"
        )


def sweep(most: int) -> tuple[int, ...]:
    """The full profile's CPU counts: the powers of two below most, and most."""
    return (*(1 << i for i in range(most.bit_length()) if 1 << i < most), most)


def counted(count: int) -> str:
    """'1 CPU', '2 CPUs'."""
    return f"{count} CPU{'s' if count != 1 else ''}"


def listed(cpus: list[int]) -> str:
    """A set of CPUs as /sys and taskset write it: '0-3,6'."""
    spans: list[list[int]] = []
    for cpu in sorted(cpus):
        if spans and cpu == spans[-1][1] + 1:
            spans[-1][1] = cpu
        else:
            spans.append([cpu, cpu])
    return ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in spans)
