"""The diagnosis is derived from the figures of a run, never written by hand."""

from concbench.records import CellKey, Sample, TrialRecord
from concbench.report import aggregate, diagnosis, intervals
from concbench.status import Status
from concbench.workloads import load_all

SPECS = load_all()


def trials(workload, rates, sequential=()):
    """Verified trials of one second each whose runs made the given ops/s, per
    mechanism (of Ruby, or runtime/mechanism); those named in `sequential`
    start no unit, the others one."""
    made = []
    for row, per_run in rates.items():
        runtime, mechanism = row.split("/") if "/" in row else ("ruby", row)
        key = CellKey(workload, runtime, mechanism, (("cases", 100),))
        for index, rate in enumerate(per_run):
            sample = Sample(False, 1_000_000_000, 1, 1, 0 if row in sequential else 1, {}, rate)
            made.append(TrialRecord(key, index, Status.OK, "", {}, samples=(sample,)))
    return made


def diagnose(**workloads):
    records = [t for workload, rates in workloads.items() for t in trials(workload.replace("_", "-"), rates)]
    found = diagnosis.diagnose(aggregate.tables(records, [], SPECS))
    return found.lines() if found else []


def test_the_pbt_seeds_pattern_is_found():
    lines = diagnose(
        map_trivial={"none": [1500, 1540, 1560], "thread": [1000, 1030, 1100], "ractor": [70, 73, 75]},
        map_cpu={"none": [7, 8, 8], "thread": [7, 8, 8], "ractor": [38, 39, 40]},
    )
    assert lines[1] == (
        "- trivial work (map-trivial cases=100): ruby/none wins; the others reach "
        "ruby/thread x0.67, ruby/ractor x0.047 of its speed. Concurrency does not pay."
    )
    assert lines[2] == (
        "- CPU-bound work (map-cpu cases=100): ruby/ractor wins at x4.88 the speed of "
        "ruby/none; then ruby/thread x1.00."
    )
    assert lines[3] == (
        "Concurrency pays for CPU-bound work (ruby/ractor); it does not pay for trivial work. "
        "ruby/thread wins in no case."
    )


def test_a_lead_inside_the_noise_is_no_win():
    lines = diagnose(map_io={"none": [100, 150, 200], "thread": [190, 210, 230]})
    assert "no mechanism is clear of ruby/none; the best, ruby/thread, is x1.40" in lines[1]
    assert lines[2] == (
        "Concurrency pays for no kind of work here; it does not pay for I/O-bound work. "
        "ruby/thread, ruby/none win in no case."
    )


def test_a_baseline_level_with_another_does_not_claim_to_win():
    lines = diagnose(map_io={"none": [200, 220, 240], "thread": [190, 210, 230]})
    assert "ruby/none is level with ruby/thread within the noise" in lines[1]


def test_mechanisms_level_with_the_best_share_the_win():
    lines = diagnose(map_cpu={"none": [6, 6, 7], "process": [11, 12, 13], "ractor": [10, 11, 12], "thread": [5, 6, 7]})
    assert lines[1] == (
        "- CPU-bound work (map-cpu cases=100): ruby/process and ruby/ractor win, level within "
        "the noise, at x2.00 and x1.83 the speed of ruby/none; then ruby/thread x1.00."
    )
    assert (
        lines[2]
        == "Concurrency pays for CPU-bound work (ruby/process, ruby/ractor). ruby/none, ruby/thread win in no case."
    )


def test_a_row_that_starts_no_unit_never_makes_concurrency_pay():
    rates = {"none": [100, 110, 120], "pbt_none": [130, 140, 150], "pbt_thread": [60, 70, 80]}
    records = trials("map-io", rates, sequential=("none", "pbt_none"))
    lines = diagnosis.diagnose(aggregate.tables(records, [], SPECS)).lines()
    assert "ruby/pbt_none wins at x1.27 the speed of ruby/none" in lines[1]
    assert lines[2] == (
        "Concurrency pays for no kind of work here; it does not pay for I/O-bound work. "
        "ruby/none, ruby/pbt_thread win in no case."
    )


def test_workloads_without_a_kind_of_work_are_not_diagnosed():
    assert diagnose(invoke={"none": [1, 2, 3]}) == []


def test_neighbours_whose_intervals_overlap_are_not_ranked():
    records = trials("map-io", {"none": [100, 150, 200], "thread": [190, 290, 370], "ractor": [300, 310, 320]})
    table = aggregate.tables(records, [], SPECS)[0]
    assert [r.key.mechanism for r in table.ranked()] == ["ractor", "thread", "none"]
    # Their medians' intervals overlap for thread and none too, but each trial
    # of thread took 1.85-1.93 times the trial of none beside it: their
    # ratios' intervals do not.
    assert [(a.key.mechanism, b.key.mechanism) for a, b in table.unsettled()] == [("ractor", "thread")]


def test_concurrency_is_judged_within_each_runtime_against_its_own_plain_call():
    lines = diagnose(
        map_trivial={"none": [100, 101, 102], "thread": [50, 51, 52], "go/none": [900, 910, 920], "go/goroutine": [300, 310, 320]},
        map_cpu={"none": [8, 8, 8], "thread": [8, 8, 9], "go/none": [150, 151, 152], "go/goroutine": [290, 295, 300]},
    )  # fmt: skip
    assert lines[1].endswith(
        "ruby/none wins; the others reach ruby/thread x0.50 of its speed. Concurrency does not pay."
    )
    assert lines[2].endswith(
        "go/none wins; the others reach go/goroutine x0.34 of its speed. Concurrency does not pay."
    )
    assert lines[3].endswith(
        "ruby/none is level with ruby/thread within the noise; the others reach ruby/thread x1.00 of its speed. Concurrency does not pay."
    )
    assert lines[4].endswith("go/goroutine wins at x1.95 the speed of go/none.")
    assert lines[5] == (
        "Concurrency pays for CPU-bound work (go/goroutine); it does not pay for trivial work. "
        "ruby/thread wins in no case."
    )


def test_a_runtime_with_only_its_plain_call_is_not_judged():
    lines = diagnose(map_cpu={"none": [7, 8, 8], "thread": [7, 8, 8], "go/none": [150, 151, 152]})
    assert len(lines) == 3 and "go/none" not in "".join(lines)
    assert lines[1].endswith("the others reach ruby/thread x1.00 of its speed. Concurrency does not pay.")


def test_the_census_counts_the_rows_with_an_interval_and_those_within_five_percent():
    """map-io's baseline is none: thread's ratios agree within 2%, ractor's do
    not; stm has too few trials for any interval."""
    records = trials(
        "map-io",
        {
            "none": [100, 150, 200, 120],
            "thread": [200, 303, 398],
            "ractor": [300, 310, 320],
            "stm": [50, 60],
        },
    )
    found = intervals.census(aggregate.tables(records, [], SPECS))
    assert found == intervals.Census(rows=4, with_interval=3, by_t=3, within=1, unverified=0, served=0)
    assert found.text() == (
        "rows: 4; with a 95% interval 3 (75.0%; 3 of them by Student's t, from 3 to 5 values): "
        "within ±5.0% 1, wider 2; too few trials for one 1; no verified trial 0"
    )
