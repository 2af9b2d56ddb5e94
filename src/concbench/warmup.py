"""Warm-up until steady. A JIT compiles as a trial's runs go, for as long as
that cell's code needs, and no fixed count of warm-ups fits every cell
(docs/protocol.md, "Warm-up"). So a runtime may ask that each of its trials
warm up until its runs are steady: the kit runs warm-up samples, each as many
runs as a timed sample repeats the work, until the last WINDOW samples lie
within SPREAD of each other, or until MOST samples have run. The rule is the
harness's, sent with every request and checked against the runs reported:
a kit that stops warming where the rule does not is not verified.

A sample is judged by its time (WALL), but a served workload's by its CPU
time (CPU): its wall time is the load's length whatever the server costs,
so every trial's samples were alike from the first, while the CPU that
serves the load falls as a JIT compiles (docs/protocol.md, "Until steady")."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

# Three samples within 15% of each other, at most 30 of them. On this
# project's 2-core VM (docs/protocol.md, "Until steady"), over 22 JIT cells
# of 30 samples a trial (the rule tried with a cap of 22, so that 6 samples
# after it told the settled time): with 10% the cap ended more than a
# quarter of the trials, with 15% a sixth, and a cell's first timed sample
# after the warm-ups was then x1.07 (Java), x1.14 (JRuby) and x0.99 (Node) of
# settled, the median cell; after a fixed 5 warm-ups x1.19, x1.11, x1.01.
# A steady trend of 5% a sample passes; one of 8% (a span of 17% over three)
# does not.
WINDOW = 3
SPREAD = 0.15
STEADY = "steady"  # what a manifest's warmup says for this rule
WALL, CPU = "wall", "cpu"  # what a sample's cost is: its time, or its user + system time
# 0.3 s of the quick profile's 10 ms samples, 1.5 s of the standard's 50 ms.
MOST = 30


class Run(Protocol):
    wall_ns: int
    user_ns: int
    sys_ns: int
    ops: int | None


@dataclass(frozen=True)
class Steady:
    """The rule as a request states it: runs a warm-up sample is, and the most
    warm-up runs."""

    group: int
    most: int
    window: int = WINDOW
    spread: float = SPREAD
    measure: str = WALL

    def request(self) -> dict:
        return {
            "group": self.group,
            "most": self.most,
            "window": self.window,
            "spread": self.spread,
            "measure": self.measure,
        }

    def runs(self, least: int, warmups: Sequence[Run]) -> int | None:
        """The warm-up runs the rule takes (at least `least`) given these as
        the first warm-up runs; None if they end before the rule does."""
        costs: list[float] = []
        taken = 0
        while taken < self.most and not (taken >= least and steady(costs, self.window, self.spread)):
            if taken + self.group > len(warmups):
                return None
            costs.append(sum((cost(run, self.measure) for run in warmups[taken : taken + self.group]), 0.0))
            taken += self.group
        return taken


def asked(warmups: int | str, repeat: int, room: int, served: bool = False) -> tuple[int, Steady | None]:
    """The warm-up runs to ask a trial for, and the rule beyond them, where
    each warm-up is `repeat` runs and an answer has room for `room` runs of
    warm-up: fewer warm-ups where they would not fit. A served workload's
    rule judges CPU time."""
    samples = max(1, room // repeat)
    if warmups == STEADY:
        return 0, Steady(group=repeat, most=min(MOST, samples) * repeat, measure=CPU if served else WALL)
    return min(warmups, samples) * repeat, None


def cost(run: Run, measure: str = WALL) -> float:
    """What a run's steadiness is judged by: its time (or CPU time), an operation's of a rate run."""
    spent = run.user_ns + run.sys_ns if measure == CPU else run.wall_ns
    return spent / (run.ops or 1)


def steady(costs: Sequence[float], window: int = WINDOW, spread: float = SPREAD) -> bool:
    """Whether the last `window` samples lie within `spread` of each other."""
    last = costs[-window:]
    return len(costs) >= window and max(last) <= (1 + spread) * min(last)
