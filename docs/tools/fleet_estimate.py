"""How long a profile's whole plan takes one machine, for docs/fleet.md: a
random sample of its cells (seeded), each run as `concbench run --trials 1`
into a database of its own, and each sampled cell's cost (its first
trial, which calibrates it, and TRIALS - 1 more) scaled up to every cell
of the plan, with a 95% interval (Student's t over the sample's cells).
Usage, from the project, once the runtimes are built:

    .venv/bin/python docs/tools/fleet_estimate.py [--profile full] [--cells 40] [--minutes 15] [--seed 1]

It stops sampling when --minutes have passed; the cells sampled so far make
the estimate. Each trial takes the machine lock, so run it on a quiet machine."""

import argparse
import math
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from concbench import paths, runtimes, workloads
from concbench.plan import Cell, choose, make_plan
from concbench.selection import PROFILE_SETTINGS, Selection
from concbench.store import open_store

TRIALS = 3  # a stored plan's trials a cell (docs/fleet.md)
CONCBENCH = Path(sys.executable).with_name("concbench")


def plan_cells(profile: str) -> list[Cell]:
    suite = paths.Suite()
    chosen = choose(
        Selection(profile=profile), workloads.load_all(suite.workload_dirs()), runtimes.load_all(suite.runtime_dirs())
    )
    return make_plan(chosen).cells


def run_cell(cell: Cell, profile: str, db: Path) -> None:
    """One trial of the cell (and its calibration) stored in db; never through a shell."""
    argv = [str(CONCBENCH), "run", "--profile", profile, "--trials", "1", "--db", str(db)]
    argv += ["-w", cell.workload.id, "-m", f"{cell.runtime.name}/{cell.mechanism}"]
    for name, value in cell.params.items():
        argv += ["-p", f"{name}={value}"]
    for option in cell.key.options:
        argv += ["-o", option]
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


def cell_costs(db: Path, runs: int) -> list[float]:
    """Seconds each stored run's cell would take in the plan: its first
    trial, which calibrated it (running the work once a run), and TRIALS - 1
    trials that repeat the work as often as it said (schedule.py's estimate)."""
    store = open_store(db, create=False)
    costs = []
    for run in store.runs():
        calibrations = store.calibrations(run.id)
        for trial in store.stored_run(run.id).trials:
            if trial.wall_ns is None:  # it never ran: nothing tells its cost
                continue
            first = trial.wall_ns / 1e9
            found = calibrations.get(trial.cell.id)
            repeating = runs * (found.repeat - 1) * found.run_ns / 1e9 if found and found.run_ns else 0.0
            costs.append(first + (TRIALS - 1) * (first + repeating))
    return costs


def estimate(costs: list[float], cells: int) -> tuple[float, float, float]:
    """The plan's seconds on one machine: the sample's mean cell cost times
    the plan's cells, with a 95% t interval (the sample's cells are many, so
    the mean's, not the logarithms')."""
    from scipy.stats import t  # imported on use: it takes a while to load

    mean = statistics.fmean(costs)
    n = len(costs)
    half = float(t.ppf(0.975, n - 1)) * statistics.stdev(costs) / math.sqrt(n) if n > 1 else math.inf
    return mean * cells, max(0.0, mean - half) * cells, (mean + half) * cells


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="full")
    parser.add_argument("--cells", type=int, default=40)
    parser.add_argument("--minutes", type=float, default=15.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    cells = plan_cells(args.profile)
    sample = random.Random(args.seed).sample(cells, min(args.cells, len(cells)))
    deadline = time.monotonic() + args.minutes * 60
    with tempfile.TemporaryDirectory(prefix="fleet-estimate-") as folder:
        db = Path(folder) / "sample.db"
        for done, cell in enumerate(sample):
            if time.monotonic() > deadline:
                break
            print(f"{done + 1}/{len(sample)} {cell.key.workload} {cell.key.row} {cell.key.params_text}", flush=True)
            run_cell(cell, args.profile, db)
        costs = cell_costs(db, PROFILE_SETTINGS[args.profile].runs) if db.exists() else []
    if not costs:
        print(f"fleet_estimate: no sampled cell ran in {args.minutes:g} minutes: nothing to scale up", file=sys.stderr)
        return 1
    total, low, high = estimate(costs, len(cells))
    print(
        f"{args.profile}: {len(cells):,} cells, {TRIALS} trials each; {len(costs)} sampled cells cost "
        f"{statistics.fmean(costs):.1f} s each on average (median {statistics.median(costs):.1f} s, most "
        f"{max(costs):.1f} s); one machine: {total / 3600:.1f} h (95% CI {low / 3600:.1f}-{high / 3600:.1f} h)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
