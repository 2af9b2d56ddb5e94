"""Which trial comes next, and when a run is done.

A fixed plan (--trials N, and the smoke profile) gives every cell N trials.
An adaptive plan gives every cell the profile's trials (3: the fewest that
give an interval, stats.summarize), then more to each
cell whose ratio to its reference (its table's baseline: pairs.py) is not
yet known to within the target, widest interval first, until it narrows or
the cell reaches max_trials; a cell without a reference settles on its own
median. Trials go round-robin over the cells in plan order, a table's cells
back to back, so that each trial has a neighbour of its reference; the order
turns round every other round, so that neither side of a pair always runs
first. Under a budget, every cell's first trial comes first, round-robin;
then the tables take the rest of their least trials one table at a time
(its CPU counts together), the table whose trials cost least first, so that the budget gives its least
trials, and so an interval, to as many rows as it can before it runs out.
An extra trial of a row comes with one of its reference, just before or
after it. A budget ends the run: no trial starts once it is spent, nor one
expected to end past it, and an extra trial takes no more than its share of
what is left. A run therefore ends within its budget plus one trial."""

import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import StrEnum

from . import pairs
from .plan import Cell, Plan
from .records import Calibration, TrialRecord
from .results import CellResult
from .stats import Summary


class Outcome(StrEnum):
    """How a cell's trials ended."""

    PLANNED = "took its planned trials"  # a fixed plan
    SETTLED = "reached the target"  # a 95% interval: 3 pairs of trials (or timed runs) at least
    CAPPED = "reached max_trials"
    BUDGET = "stopped at the budget"
    UNMEASURED = "has no verified figure"  # every trial failed: more would not narrow anything


@dataclass(eq=False)
class CellState:
    cell: Cell
    records: list[TrialRecord] = field(default_factory=list)
    calibration: Calibration | None = None
    earlier_ns: int | None = None  # its trials' mean length in the latest earlier run that has it
    reference: "CellState | None" = None  # the cell its ratio is to (None: it is one, or stands alone)
    members: list["CellState"] = field(default_factory=list)  # the cells whose reference it is

    @property
    def taken(self) -> int:
        return len(self.records)

    @property
    def figure(self) -> Summary | None:
        """Its own median: ops/s of a rate workload, else real time."""
        result = CellResult(self.cell.key, tuple(self.records))
        return result.rate if self.rate else result.real

    @property
    def rate(self) -> bool:
        return self.cell.workload.kind == "rate"

    @property
    def served(self) -> bool:
        """A server under a load takes its least trials: its real time, which
        a ratio would settle, is the load's length for every row."""
        return self.cell.workload.load is not None

    @property
    def settling(self) -> Summary | None:
        """What settles it: its paired ratio to its reference, or its own median."""
        if self.reference is None:
            return self.figure
        return pairs.summary(self.records, self.reference.records, self.rate)

    @property
    def width(self) -> float:
        """How far from settled it is: its interval's wider side, as a fraction
        (infinite without an interval)."""
        settling = self.settling
        return settling.spread if settling and settling.ci else math.inf

    def expected_ns(self, runs: int) -> int | None:
        """How long its next trial should take: as long as its trials so far
        that repeated the work as often; before any, its first trial's with the
        repetitions it lacked, or its trials in an earlier run; None if nothing tells."""
        c = self.calibration
        repeat = c.repeat if c else 1
        lengths = [r.wall_ns for r in self.records if r.wall_ns is not None and _repeat(r) == repeat]
        if lengths:
            return sum(lengths) // len(lengths)
        if c and c.trial_ns is not None and c.run_ns is not None:
            return c.trial_ns + runs * (c.repeat - 1) * c.run_ns
        return self.earlier_ns


def _repeat(record: TrialRecord) -> int:
    """How often the trial's timed runs repeated the work (1 for one without any)."""
    return record.timed[0].repeat if record.timed else 1


class Schedule:
    def __init__(
        self,
        plan: Plan,
        done: list[TrialRecord],
        spent_ns: int = 0,
        earlier: dict[str, int] | None = None,
        clock: Callable[[], int] = time.monotonic_ns,
    ):
        """done: the run's stored trials (a resumed run's); spent_ns: the budget
        they used; earlier: each cell's trial length (ns) in an earlier run."""
        self.settings = plan.settings
        self.plan = plan
        self.states = {cell.key.id: CellState(cell) for cell in plan.cells}
        for cell_id, reference in plan.references.items():
            if cell_id in self.states and reference in self.states:
                self.states[cell_id].reference = self.states[reference]
                self.states[reference].members.append(self.states[cell_id])
        for record in done:
            if record.cell.id in self.states:
                self.states[record.cell.id].records.append(record)
        self.finished = len(done)  # the next trial's place in the run's order (TrialRecord.seq)
        self.rounds = 0
        for cell_id, length in (earlier or {}).items():
            if cell_id in self.states:
                self.states[cell_id].earlier_ns = length
        self.clock = clock
        self.started_ns = clock() - spent_ns
        self.round: list[CellState] = []
        self.ran_in_round = True
        self.least_round = True  # whether the round holds least trials
        self.out_of_budget: set[str] = set()
        self.spent = Counter()  # ns by phase: "least", "adaptive"

    # ---- the budget ---------------------------------------------------------

    @property
    def elapsed_ns(self) -> int:
        return self.clock() - self.started_ns

    @property
    def remaining_ns(self) -> int | None:
        budget = self.settings.budget
        return None if budget is None else round(budget * 1e9) - self.elapsed_ns

    def may_start(self) -> bool:
        """Whether anything may start now: the budget is not yet spent."""
        remaining = self.remaining_ns
        return remaining is None or remaining > 0

    def calibrated(self, cell: Cell, calibration: Calibration) -> None:
        self.states[cell.key.id].calibration = calibration

    # ---- the trials ---------------------------------------------------------

    def next(self) -> tuple[Cell, int] | None:
        """The next trial (its cell and index), or None: the run is done."""
        while True:
            if not self.round:
                if not self.ran_in_round and not self.least_round:
                    return None  # a whole round fitted nowhere: the budget is spent
                # (A round of least trials that fitted nowhere put its cells
                # out of the budget; another table's may still fit.)
                self.round, self.ran_in_round = self._next_round(), False
                if not self.round:
                    return None
            state = self.round.pop(0)
            if self._fits(state):
                self.ran_in_round = True
                return state.cell, state.taken

    def record(self, record: TrialRecord, took_ns: int) -> None:
        state = self.states[record.cell.id]
        state.records.append(replace(record, seq=self.finished))
        self.finished += 1
        self.spent["least" if record.trial < self.settings.trials else "adaptive"] += took_ns

    def _next_round(self) -> list[CellState]:
        """The cells short of their least trials, those with the fewest first,
        in plan order (under a budget, once every cell has a trial, the
        cheapest table's); then, in an adaptive plan, the unsettled ones, each
        with its reference, widest interval first. Every other round runs backwards."""
        self.rounds += 1
        backwards = self.rounds % 2 == 0
        states = [s for s in self.states.values() if s.cell.key.id not in self.out_of_budget]
        short = [s for s in states if s.taken < self.settings.trials]
        self.least_round = bool(short)
        if short:
            fewest = min(s.taken for s in short)
            if fewest and self.settings.budget is not None:
                least = self._cheapest_table(short)
            else:
                least = [s for s in short if s.taken == fewest]
            return least[::-1] if backwards else least
        if self.settings.target is None:
            return []
        return [s for block in self._blocks(states) for s in (block[::-1] if backwards else block)]

    def _cheapest_table(self, short: list[CellState]) -> list[CellState]:
        """The short cells of the table whose next trials cost least a row
        (ties: the first in plan order): the rows that a budget gives an
        interval soonest. A table at several CPU counts goes as one, its
        counts' trials interleaved, so that a row's speed-up pairs trials
        that ran side by side."""
        tables: dict[tuple, list[CellState]] = {}
        for state in short:
            key = (state.reference or state).cell.key
            tables.setdefault((key.workload, key.params, key.row), []).append(state)

        def cost(table: list[CellState]) -> float:
            return sum(self._expected_or_unknown(s) for s in table) / len(table)

        return min(tables.values(), key=cost)

    def _expected_or_unknown(self, state: CellState) -> float:
        """What the cell's next trial should take; one that nothing tells
        (its trials failed before they ran) comes last, not first."""
        expected = state.expected_ns(self.plan.settings_for(state.cell).runs)
        return math.inf if expected is None else expected

    def _blocks(self, states: list[CellState]) -> list[list[CellState]]:
        """The unsettled cells by reference, the reference first where it may
        take another trial; the block with the widest interval first."""
        blocks: dict[int, list[CellState]] = {}
        for state in states:
            if not state.members and self.outcome(state) is None:
                blocks.setdefault(id(state.reference or state), []).append(state)
        ordered = sorted(blocks.values(), key=lambda block: max(s.width for s in block), reverse=True)
        return [self._with_reference(block) for block in ordered]

    def _with_reference(self, block: list[CellState]) -> list[CellState]:
        head = block[0].reference
        if head is None or head.taken >= self.settings.max_trials or head.cell.key.id in self.out_of_budget:
            return block
        return [head, *block]

    def _fits(self, state: CellState) -> bool:
        """Whether the cell's next trial fits the budget: it must be expected to
        end before the budget does, and an extra trial must fit in its share of
        what is left, shared with the cells still waiting in this round."""
        remaining = self.remaining_ns
        if remaining is None:
            return True
        expected = state.expected_ns(self.plan.settings_for(state.cell).runs) or 0
        least = state.taken < self.settings.trials
        share = remaining if least else remaining / (len(self.round) + 1)
        if remaining > 0 and expected <= share:
            return True
        if least or expected > remaining:
            self.out_of_budget.add(state.cell.key.id)
        return False

    # ---- how it went --------------------------------------------------------

    def outcome(self, state: CellState) -> Outcome | None:
        """How a cell's trials ended, or None while it may take more. A
        reference ends as its members do: it takes trials while any of them does."""
        if state.taken < self.settings.trials:
            return Outcome.BUDGET if state.cell.key.id in self.out_of_budget else None
        if self.settings.target is None or state.served:
            return Outcome.PLANNED
        if state.members and state.figure is not None:
            return _as_members(self.outcome(m) for m in state.members)
        settling = state.settling
        if settling is None:
            return Outcome.UNMEASURED
        if self._settled(settling):
            return Outcome.SETTLED
        if state.taken >= self.settings.max_trials:
            return Outcome.CAPPED
        return Outcome.BUDGET if state.cell.key.id in self.out_of_budget or not self.may_start() else None

    def outcomes(self) -> Counter:
        """How many cells ended each way, once the run is done (an unsettled
        cell the run ended before: stopped at the budget)."""
        return Counter(self.outcome(s) or Outcome.BUDGET for s in self.states.values())

    def unsettled(self) -> list[tuple[Cell, float]]:
        """The cells of an adaptive plan whose ratio (or median, without a
        reference) did not narrow to the target, with the coefficient of
        variation of what settles them."""
        if self.settings.target is None:
            return []
        found = [(s.cell, s.settling) for s in self.states.values() if not (s.members and s.figure or s.served)]
        return [(cell, settling.cv) for cell, settling in found if settling and not self._settled(settling)]

    def _settled(self, settling: Summary) -> bool:
        """A 95% interval (3 pairs or timed runs or more: stats.summarize) within the target."""
        return settling.ci is not None and settling.spread <= self.settings.target

    def short(self) -> list[Cell]:
        """The cells the budget stopped before their least trials."""
        return [s.cell for s in self.states.values() if s.taken < self.settings.trials]

    def least_ns(self) -> tuple[int, int]:
        """What the least trials still to run should take, and how many cells
        nothing tells the length of (not counted)."""
        total = unknown = 0
        for state in self.states.values():
            expected = state.expected_ns(self.plan.settings_for(state.cell).runs)
            missing = max(0, self.settings.trials - state.taken)
            if expected is None:
                unknown += missing > 0
            else:
                total += expected * missing
        return total, unknown

    @property
    def taken(self) -> int:
        """Trials taken, a resumed run's stored ones included."""
        return sum(s.taken for s in self.states.values())

    @property
    def planned(self) -> int:
        """Trials taken and those in sight: every cell's least, and the round under way."""
        taken = self.taken
        least = sum(max(0, self.settings.trials - s.taken) for s in self.states.values())
        return taken + least + (len(self.round) if not least else 0)


def _as_members(outcomes) -> Outcome | None:
    """A reference's outcome from its members': open while any is, settled
    when all are, else the way the first unsettled one ended."""
    ended = list(outcomes)
    if None in ended:
        return None
    return next((o for o in ended if o != Outcome.SETTLED), Outcome.SETTLED)
