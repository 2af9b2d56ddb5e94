"""Which trial comes next, and when a run is done.

A fixed plan (--trials N, and the smoke profile) gives every cell N trials.
An adaptive plan gives every cell the profile's trials, then one more a
round to each cell whose median's 95% interval is still wider than the
target (widest first), until it narrows or the cell reaches max_trials.
Either way trials go round-robin over the cells, so that drift of the
machine hits every cell alike. A budget ends the run: no trial starts once
it is spent, nor one expected to end past it, and an extra trial takes no
more than its share of what is left. A run therefore ends within its budget
plus one trial."""

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from .plan import Cell, Plan
from .records import Calibration, TrialRecord
from .report.aggregate import CellResult
from .stats import Summary


class Outcome(StrEnum):
    """How a cell's trials ended."""

    PLANNED = "took its planned trials"  # a fixed plan
    SETTLED = "reached the target"  # a 95% interval: 6 timed runs at least
    CAPPED = "reached max_trials"
    BUDGET = "stopped at the budget"
    UNMEASURED = "has no verified figure"  # every trial failed: more would not narrow anything


@dataclass
class CellState:
    cell: Cell
    records: list[TrialRecord] = field(default_factory=list)
    calibration: Calibration | None = None
    earlier_ns: int | None = None  # its trials' mean length in the latest earlier run that has it

    @property
    def taken(self) -> int:
        return len(self.records)

    @property
    def figure(self) -> Summary | None:
        """What the reports rank the cell by: ops/s of a rate workload, else real time."""
        result = CellResult(self.cell.key, tuple(self.records))
        return result.rate if self.cell.workload.kind == "rate" else result.real

    def expected_ns(self, runs: int) -> int | None:
        """How long its next trial should take: as long as its trials so far;
        before any, its calibrating trial with the timed runs it lacked, or its
        trials in an earlier run; None if nothing tells."""
        lengths = [r.wall_ns for r in self.records if r.wall_ns is not None]
        if lengths:
            return sum(lengths) // len(lengths)
        c = self.calibration
        if c and c.trial_ns is not None and c.run_ns is not None:
            return c.trial_ns + (runs * c.repeat - 1) * c.run_ns
        return self.earlier_ns


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
        for record in done:
            if record.cell.id in self.states:
                self.states[record.cell.id].records.append(record)
        for cell_id, length in (earlier or {}).items():
            if cell_id in self.states:
                self.states[cell_id].earlier_ns = length
        self.clock = clock
        self.started_ns = clock() - spent_ns
        self.round: list[CellState] = []
        self.ran_in_round = True
        self.out_of_budget: set[str] = set()
        self.spent = Counter()  # ns by phase: "calibration", "least", "adaptive"

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

    def calibrated(self, cell: Cell, calibration: Calibration, took_ns: int) -> None:
        self.states[cell.key.id].calibration = calibration
        self.spent["calibration"] += took_ns

    # ---- the trials ---------------------------------------------------------

    def next(self) -> tuple[Cell, int] | None:
        """The next trial (its cell and index), or None: the run is done."""
        while True:
            if not self.round:
                if not self.ran_in_round:
                    return None  # a whole round fitted nowhere: the budget is spent
                self.round, self.ran_in_round = self._next_round(), False
                if not self.round:
                    return None
            state = self.round.pop(0)
            if self._fits(state):
                self.ran_in_round = True
                return state.cell, state.taken

    def record(self, record: TrialRecord, took_ns: int) -> None:
        state = self.states[record.cell.id]
        state.records.append(record)
        self.spent["least" if record.trial < self.settings.trials else "adaptive"] += took_ns

    def _next_round(self) -> list[CellState]:
        """The cells short of their least trials, those with the fewest first;
        then, in an adaptive plan, the unsettled ones, widest interval first."""
        states = [s for s in self.states.values() if s.cell.key.id not in self.out_of_budget]
        short = [s for s in states if s.taken < self.settings.trials]
        if short:
            fewest = min(s.taken for s in short)
            return [s for s in short if s.taken == fewest]
        if self.settings.target is None:
            return []
        open_ = [s for s in states if self.outcome(s) is None]
        return sorted(open_, key=lambda s: s.figure.spread, reverse=True)

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
        """How a cell's trials ended, or None while it may take more."""
        if state.taken < self.settings.trials:
            return Outcome.BUDGET if state.cell.key.id in self.out_of_budget else None
        if self.settings.target is None:
            return Outcome.PLANNED
        figure = state.figure
        if figure is None:
            return Outcome.UNMEASURED
        if self._settled(figure):
            return Outcome.SETTLED
        if state.taken >= self.settings.max_trials:
            return Outcome.CAPPED
        return Outcome.BUDGET if state.cell.key.id in self.out_of_budget or not self.may_start() else None

    def outcomes(self) -> Counter:
        """How many cells ended each way, once the run is done (an unsettled
        cell the run ended before: stopped at the budget)."""
        return Counter(self.outcome(s) or Outcome.BUDGET for s in self.states.values())

    def unsettled(self) -> list[tuple[Cell, float]]:
        """The cells of an adaptive plan whose interval did not narrow to the
        target, with their coefficient of variation."""
        if self.settings.target is None:
            return []
        return [(s.cell, s.figure.cv) for s in self.states.values() if s.figure and not self._settled(s.figure)]

    def _settled(self, figure: Summary) -> bool:
        """A 95% interval of the median (6 timed runs or more) within the target."""
        return figure.ci is not None and figure.spread <= self.settings.target

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
