"""What a change to how a runtime starts or warms did to its whole trials,
from a stored `concbench ab` run (whose tables compare the timed runs only):
per runtime, B over A of a trial's wall time and peak memory, the geometric
mean over cells of each cell's ratio of medians, with a 95% interval
(Student's t over the cells' log ratios). Usage, from the project:

    .venv/bin/python docs/tools/ab_trial_cost.py DB [RUN]

docs/protocol.md ("Start-up") quotes it."""

import argparse
import math
import statistics
from collections import defaultdict

from scipy import stats

from concbench.records import Status
from concbench.report.ab import Sides
from concbench.store import open_store


def trials_by_cell(db: str, run: int | None) -> dict:
    """Each cell's verified trials' (wall_ns, peak_kb), by side: a cell is
    the work both sides did, its runtime first."""
    stored = open_store(db).stored_run(run)
    if not stored.run.request.get("ab"):
        raise SystemExit(f"run {stored.run.id} of {db} is not an A/B run (concbench ab)")
    sides = Sides.of(stored.run.request)
    cells = defaultdict(lambda: defaultdict(list))
    for t in stored.trials:
        if t.status == Status.OK and t.wall_ns and t.peak_kb:
            work = sides.work(t.cell)
            cells[work[2], *work][sides.side(t.cell)].append((t.wall_ns, t.peak_kb))
    return cells


def interval(logs: list[float]) -> str:
    """As concbench.stats.log_t_interval, over any number of cells."""
    mean = statistics.mean(logs)
    if len(logs) < 2:
        return f"x{math.exp(mean):.2f}"
    half = stats.t.ppf(0.975, len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    return f"x{math.exp(mean):.2f} [{math.exp(mean - half):.2f}, {math.exp(mean + half):.2f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db")
    parser.add_argument("run", nargs="?", type=int)
    args = parser.parse_args()
    ratios = defaultdict(lambda: ([], []))  # runtime: log ratios of wall, of peak memory
    for (runtime, *_), sides in trials_by_cell(args.db, args.run).items():
        if sides["a"] and sides["b"]:
            for measure, logs in enumerate(ratios[runtime]):
                a, b = (statistics.median(x[measure] for x in sides[s]) for s in "ab")
                logs.append(math.log(b / a))
    print(f"{'runtime':10} {'cells':>5}  {'trial wall, B/A':26} peak memory, B/A")
    for runtime, (wall, peak) in sorted(ratios.items()):
        print(f"{runtime:10} {len(wall):5}  {interval(wall):26} {interval(peak)}")


if __name__ == "__main__":
    main()
