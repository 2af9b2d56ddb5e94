import time

import pytest

from concbench import lcg, runtimes, series, workloads
from concbench.errors import UserError
from concbench.plan import choose
from concbench.selection import Selection
from concbench.toml_models import load_toml

GOOD = """
id = "w"
title = "W"
summary = "s"
origin = "o"
baseline = "r/m"
[params.n]
type = "int"
min = 1
max = 100
doc = "d"
[expect]
total = "n * 2"
[profiles]
smoke = { n = 1 }
quick = { n = 2 }
standard = { n = 3 }
full = { n = [3, 4] }
"""


def load(tmp_path, text):
    path = tmp_path / "w.toml"
    path.write_text(text)
    return load_toml(path, workloads.Workload)


def test_the_catalogue_loads_and_checks_are_computed():
    specs = workloads.load_all()
    assert {"pipe", "socketpair", "mutex-cpu", "mutex-io", "queue"} <= set(specs)
    assert specs["pipe"].expected({"groups": 50, "messages": 10_000, "size": 1024}) == {"bytes": 512_000_000}
    assert specs["mutex-cpu"].expected({"groups": 20, "workers": 10, "iterations": 10_000}) == {"sum": 1_201_778_000}
    assert specs["queue"].expected({"groups": 20, "producers": 4, "consumers": 8, "items": 100_000}) == {
        "count": 8_000_000,
        "sum": 400_004_000_000,
    }
    assert specs["mutex-io"].expected({"groups": 5, "workers": 10, "iterations": 1000, "size": 1024}) == {
        "bytes": 51_200_000
    }


def test_standard_is_the_seed_and_full_adds_the_mutex_io_scan():
    specs = workloads.load_all()
    assert specs["pipe"].param_sets("standard", {}) == [{"groups": 50, "messages": 10_000, "size": 1024}]
    assert [p["groups"] for p in specs["mutex-io"].param_sets("full", {})] == [1, 5, 10, 20, 50, 100]
    assert specs["queue"].param_sets("full", {}) == specs["queue"].param_sets("standard", {})


def test_sweeps_and_overrides(tmp_path):
    spec = load(tmp_path, GOOD)
    assert spec.param_sets("full", {}) == [{"n": 3}, {"n": 4}]
    assert spec.param_sets("quick", {"n": ["5", "6"]}) == [{"n": 5}, {"n": 6}]
    with pytest.raises(UserError, match=r"n=0 is out of bounds \[1, 100\]"):
        spec.param_sets("quick", {"n": ["0"]})
    with pytest.raises(UserError, match=r"w: n=five is not an integer"):
        spec.param_sets("quick", {"n": ["five"]})


@pytest.mark.parametrize(
    "text, message",
    [
        ("id = ", "malformed TOML"),
        (GOOD.replace('total = "n * 2"', 'total = "m * 2"'), "expect.total: 'm' is not an integer parameter"),
        (GOOD.replace('total = "n * 2"', 'total = "ops"'), "expect.total: 'ops' is not an integer parameter"),
        (
            GOOD.replace('total = "n * 2"', 'total = "print(n)"'),
            "the only calls allowed are bisection_candidates, decimal_digits_below, lcg_first_above, lcg_sum",
        ),
        (GOOD.replace('type = "int"', 'type = "float"'), "expect.total: 'n' is not an integer parameter"),
        (GOOD.replace('type = "int"', 'type = "choice"'), "a choice has `values` and no min or max"),
        (GOOD.replace('id = "w"', 'id = "w"\nkind = "rate"'), "a rate workload has the float parameter 'seconds'"),
        (GOOD.replace('total = "n * 2"', 'total = "open(n)"'), "expect.total"),
        (GOOD.replace("quick = { n = 2 }", "quick = { n = 200 }"), "profiles.quick: n=200 is out of bounds"),
        (GOOD.replace("quick = { n = 2 }", "quick = { n = -1 }"), "profiles.quick: n=-1 is out of bounds"),
        (GOOD.replace("quick = { n = 2 }", "quick = { n = 'two' }"), "profiles.quick"),
        (GOOD.replace("quick = { n = 2 }", "quick = { n = 2, m = 1 }"), "unknown parameter 'm'"),
        (GOOD.replace("quick = { n = 2 }\n", ""), "no 'quick' profile"),
        (GOOD.replace('type = "int"', 'type = "complex"'), "params.n.type"),
        (GOOD + "colour = 'red'\n", "colour"),
        (
            GOOD.replace("full = { n = [3, 4] }", f"full = {{ n = {[3] * 1001} }}"),
            "profiles.full: sweeping n (1,001 values) makes 1,001 parameter sets, at most 1,000",
        ),
    ],
)
def test_malformed_specs_give_one_line(tmp_path, text, message):
    with pytest.raises(UserError) as error:
        load(tmp_path, text)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_a_file_must_be_named_after_its_id(tmp_path, monkeypatch):
    (tmp_path / "other.toml").write_text(GOOD)
    monkeypatch.setenv("CONCBENCH_WORKLOADS", str(tmp_path))
    with pytest.raises(UserError, match="does not match the file name"):
        workloads.load_all()


@pytest.mark.parametrize("text, parsed", [("n=5", ("n", ["5"])), ("n=1, 5,10", ("n", ["1", "5", "10"]))])
def test_parse_override(text, parsed):
    assert workloads.parse_override(text) == parsed


@pytest.mark.parametrize("text", ["n", "n=", "=5", "n=1,,2"])
def test_bad_overrides(text):
    with pytest.raises(UserError):
        workloads.parse_override(text)


RATE = (
    GOOD.replace('id = "w"', 'id = "w"\nkind = "rate"\nrate_format = "executions"')
    .replace('total = "n * 2"', 'total = "ops * n"')
    .replace(
        "[expect]",
        """[params.seconds]
type = "float"
min = 0.001
max = 60
doc = "d"
[params.batch]
type = "int"
min = 1
max = 1000
doc = "d"
[params.mode]
type = "choice"
values = ["await", "forget"]
doc = "d"
[expect]""",
    )
    .replace("{ n = 1 }", "{ n = 1, seconds = 1, batch = 10, mode = 'await' }")
    .replace("{ n = 2 }", "{ n = 2, seconds = 0.5, batch = 10, mode = ['await', 'forget'] }")
    .replace("{ n = 3 }", "{ n = 3, seconds = 1.0, batch = 10, mode = 'await' }")
    .replace("full = { n = [3, 4] }", "")
)


def test_rate_workloads_have_typed_parameters_and_expect_in_terms_of_ops(tmp_path):
    spec = load(tmp_path, RATE)
    assert spec.param_sets("smoke", {}) == [{"n": 1, "seconds": 1.0, "batch": 10, "mode": "await"}]
    assert [p["mode"] for p in spec.param_sets("quick", {})] == ["await", "forget"]
    assert spec.param_sets("quick", {"seconds": ["0.25"], "mode": ["forget"]}) == [
        {"n": 2, "seconds": 0.25, "batch": 10, "mode": "forget"}
    ]
    assert spec.expected({"n": 3, "seconds": 1.0, "batch": 10, "mode": "await"}, ops=500) == {"total": 1500}
    for override, message in [
        ({"mode": ["sometimes"]}, "mode=sometimes is not one of await, forget"),
        ({"seconds": ["soon"]}, "seconds=soon is not a number"),
        ({"seconds": ["0"]}, r"seconds=0.0 is out of bounds"),
        ({"seconds": ["nan"]}, "seconds=nan is out of bounds"),
    ]:
        with pytest.raises(UserError, match=message):
            spec.param_sets("quick", override)


def test_sweeps_are_bounded_before_they_are_made(tmp_path):
    spec = load(tmp_path, RATE)  # 10,000 x 10,000 values once took 5.9 GB
    started = time.monotonic()
    with pytest.raises(UserError) as refusal:
        spec.param_sets("quick", {"n": ["1"] * 10_000, "batch": ["10"] * 10_000})
    assert time.monotonic() - started < 1
    assert str(refusal.value) == (
        "w: sweeping n (10,000 values) x batch (10,000 values) x mode (2 values) "
        "makes 200,000,000 parameter sets, at most 1,000"
    )


@pytest.mark.parametrize("profile", workloads.PROFILES)
def test_every_profile_of_the_catalogue_plans_within_the_bounds(profile):
    choose(Selection(profile=profile), workloads.load_all(), runtimes.load_all())


def test_a_run_reaches_only_the_runtimes_of_the_mechanisms_it_names():
    """Only those are built, detected and fingerprinted."""
    found = runtimes.load_all()
    chosen = choose(Selection(mechanisms=("c/pthread", "coroutine")), workloads.load_all(), found).runtimes
    assert [r.name for r in chosen] == sorted(
        n for n, r in found.items() if n == "c" or "coroutine" in r.manifest.mechanisms
    )
    assert "kotlin" in [r.name for r in chosen]
    assert choose(Selection(), workloads.load_all(), found).runtimes == list(found.values())


@pytest.mark.parametrize("spec", workloads.load_all().values(), ids=lambda spec: spec.id)
def test_the_catalogues_expectations_are_computed_at_every_parameters_maximum(spec):
    params = spec.param_sets("standard", {})[0]
    largest = {name: p.max if p.type == "int" else params[name] for name, p in spec.params.items()}
    spec.expected(largest, params.get("batch") if spec.kind == "rate" else None)


def test_the_lcg_is_the_catalogues():
    from concbench import lcg

    assert lcg.draws(5, -1_000_000, 1_000_000) == [-504598, -698294, -323747, -326028, -904719]
    assert lcg.lcg_first_above(100, -1_000_000, 1_000_000, 100) == 5
    assert lcg.lcg_sum(3, 0, 10) == sum(lcg.draws(3, 0, 10))


def test_parameters_no_run_could_satisfy_are_bad_input():
    shrink = workloads.load_all()["map-shrink"]
    with pytest.raises(UserError, match="map-shrink: none of the first 3 draws"):
        shrink.param_sets("smoke", {"cases": ["3"]})


@pytest.mark.parametrize("jobs, keys", [(200, 50), (2_000, 10_000), (100_000, 10_000), (7, 3), (1, 1)])
def test_the_pool_sum_is_every_jobs_value_added_up(jobs, keys):
    expected = workloads.load_all()["pool"].expected({"pool_size": 10, "jobs": jobs, "keys": keys})
    assert expected == {"sum": sum(2 * (j % keys) + 1 for j in range(jobs))}


@pytest.mark.parametrize("futures", [1, 100, 999, 1000, 1001, 10_000, 12_345])
def test_the_future_sum_is_every_square_mod_1000_added_up(futures):
    expected = workloads.load_all()["future"].expected({"futures": futures})
    assert expected == {"sum": sum(i * i % 1000 for i in range(futures))}


def test_the_celluloid_and_many_task_checks():
    specs = workloads.load_all()
    assert specs["spawn"].expected({"tasks": 10_000, "delay_ms": 5_000}) == {"sum": sum(range(10_000))}
    assert specs["spawn"].delay_ns({"tasks": 1, "delay_ms": 5_000}) == 5_000_000_000
    assert specs["spawn"].one_run_per_process and not specs["pool"].one_run_per_process
    assert specs["ring"].expected({"nodes": 513, "laps": 100}) == {"hops": 51_300}
    assert specs["mailbox"].expected({"messages": 4, "capacity": 0}) == {"count": 4, "sum": 10, "ordered": 30}
    assert specs["latch"].expected({"count": 100, "rounds": 7}) == {
        "rounds": 7,
        "countdowns": 700,
        "checksum": sum((k + 1) * (r + 1) for k in range(100) for r in range(7)),
    }


def test_the_checksums_are_the_ones_each_unit_makes():
    specs, modulus = workloads.load_all(), 1_000_000_007
    ordered = 0
    for k in range(1, 3_000_001):  # the receiver's k-th message is payload k, reduced at each step
        ordered = (ordered + k * k) % modulus
    assert specs["mailbox"].expected({"messages": 3_000_000, "capacity": 0})["ordered"] == ordered
    tallies = [sum((k + 1) * (r + 1) for r in range(50)) % modulus for k in range(10_000)]
    assert specs["latch"].expected({"count": 10_000, "rounds": 50})["checksum"] == sum(tallies) % modulus
    cpu = {"cases": 100, "workers": 0, "batch": 1, "seconds": 1.0}
    assert specs["map-cpu"].expected(cpu, ops=3) == {"sum": 3 * sum((i + 1) * 9 for i in range(100))}


def test_the_shrinking_evaluates_the_candidates_of_each_bisection_round():
    # Draw 1 of the LCG in [-1e6, 1e6] is the first above 100: 0 passes, it fails.
    first = lcg.draws(10, -1_000_000, 1_000_000)[lcg.lcg_first_above(10, -1_000_000, 1_000_000, 100)]
    passing, failing, rounds = 0, first, []
    while failing - passing > 1:
        tried = sorted({passing + (failing - passing) * k // 9 for k in range(1, 9)} - {passing})
        rounds.append(len(tried))
        failed = next((i for i, c in enumerate(tried) if c > 100), len(tried))
        passing, failing = (
            (tried[failed - 1] if failed else passing),
            (tried[failed] if failed < len(tried) else failing),
        )
    assert failing == 101 and series.bisection_candidates(10, -1_000_000, 1_000_000, 100) == sum(rounds)


def test_a_delay_names_an_integer_parameter(tmp_path):
    with pytest.raises(UserError, match="delay: 'nope' is not an integer parameter"):
        load(tmp_path, 'delay = "nope"\n' + GOOD)
    assert load(tmp_path, 'delay = "n"\n' + GOOD).delay_ns({"n": 2}) == 2_000_000
