import json

import pytest

from concbench.protocol import Expectations, Refusal, Response, Status, parse, parse_floor, verdict
from concbench.trial import Exit

RUN = {"warmup": False, "wall_ns": 10, "user_ns": 5, "sys_ns": 1, "units": 4, "peak_live": 4,
       "result": {"bytes": 6}}


def answer(**changes):
    data = {"ok": True, "runtime": {"name": "x", "version": "1"}, "runs": [RUN], **changes}
    return json.dumps(data).encode()


def process(stdout=b"", code=0, signal=None, timed_out=False, stderr="", wall_ns=10**10):
    return Exit(wall_ns=wall_ns, user_ns=1, sys_ns=1, maxrss_kb=1, voluntary_switches=1,
                involuntary_switches=1, exit_code=code, signal=signal, timed_out=timed_out,
                stdout=stdout, stderr=stderr)


def judge(stdout=answer(), expected={"bytes": 6}, warmup=0, runs=1, **exit):
    return verdict(process(stdout, **exit), parse(stdout),
                   Expectations(lambda ops: expected, warmup, runs))


def judge_run(run, **expect):
    """The verdict on one run against expectations beyond its result."""
    stdout = answer(runs=[run])
    return verdict(process(stdout), parse(stdout), Expectations(lambda ops: {"bytes": 6}, 0, 1, **expect))


RATE_RUN = {**RUN, "ops": 300, "result": {"count": 300}}


def judge_rate(run, batch=100):
    stdout = answer(runs=[run])
    return verdict(process(stdout), parse(stdout), Expectations(lambda ops: {"count": ops}, 0, 1, batch))


def test_a_rate_run_is_checked_against_the_operations_it_counted():
    assert judge_rate(RATE_RUN) == (Status.OK, "")
    assert judge_rate({**RATE_RUN, "result": {"count": 299}}) == (
        Status.INVALID, "run 1: count = 299, expected 300")
    assert judge_rate({**RATE_RUN, "ops": 250, "result": {"count": 250}}) == (
        Status.INVALID, "run 1: ops = 250, expected a positive multiple of batch = 100")
    assert judge_rate({**RATE_RUN, "ops": 0, "result": {"count": 0}})[0] == Status.INVALID
    assert judge_rate(RUN) == (Status.INVALID, "run 1: no ops counted by the rate loop")


def test_only_the_last_line_is_the_answer():
    assert isinstance(parse(b"noise\n" + answer() + b"\n\n"), Response)
    assert parse(answer() + b"\nnoise") == "last line of stdout is not JSON: 'noise'"


def test_malformed_answers_are_described():
    assert parse(b"") == "no answer on stdout"
    assert parse(b"[1, 2]").startswith("malformed answer")
    assert "runs" in parse(answer(runs=[]))
    assert "wall_ns" in parse(answer(runs=[{**RUN, "wall_ns": -1}]))
    assert "result" in parse(answer(runs=[{**RUN, "result": {"bytes": "6"}}]))
    assert isinstance(parse(b'{"ok": false, "error": "no"}'), Refusal)


def test_a_verified_trial():
    assert judge() == (Status.OK, "")


@pytest.mark.parametrize("stdout, expected, detail", [
    (answer(), {"bytes": 7}, "run 1: bytes = 6, expected 7"),
    (answer(), {"count": 6}, "run 1: no 'count' in the result"),
    (answer(), {}, "run 1: unexpected 'bytes' in the result"),
    (answer(runs=[RUN, {**RUN, "result": {"bytes": 5}}]), {"bytes": 6}, None),
])
def test_every_run_is_checked(stdout, expected, detail):
    status, text = judge(stdout, expected, runs=len(json.loads(stdout)["runs"]))
    assert status == Status.INVALID
    assert detail is None or text == detail


def test_runs_must_be_the_ones_asked_for():
    assert judge(answer(), warmup=1, runs=1)[0] == Status.INVALID
    assert judge(answer(runs=[{**RUN, "warmup": True}, RUN]), warmup=1, runs=1) == (Status.OK, "")


def test_failures_are_classified_in_order():
    assert judge(timed_out=True, signal=9)[0] == Status.TIMEOUT
    assert judge(signal=11, stderr="boom\n") == (Status.CRASH, "killed by signal 11: boom")
    assert judge(b'{"ok": false, "error": "no ractors"}', code=1) == (Status.ERROR, "no ractors")
    assert judge(b"", code=3, stderr="oops") == (Status.EXIT, "exit status 3: oops")
    assert judge(answer(), code=1)[0] == Status.EXIT
    assert judge(b"hello")[0] == Status.GARBAGE


def judge_delay(wall_ns, delay_ns=1_000_000_000):
    return judge_run({**RUN, "wall_ns": wall_ns}, delay_ns=delay_ns)


def test_units_that_sleep_a_delay_must_have_slept_at_the_same_time():
    assert judge_delay(1_100_000_000) == (Status.OK, "")
    assert judge_delay(2_000_000_000) == (
        Status.INVALID, "run 1: took 2.000 s, twice the 1 s delay or more: the units did not sleep at the same time")
    assert judge_delay(5, delay_ns=0) == (Status.OK, "")


def test_a_delayed_run_must_take_at_least_the_delay():
    assert judge_delay(999_000_000) == (
        Status.INVALID, "run 1: took 0.999 s, less than the 1 s every unit sleeps: the units did not sleep")


def test_runs_cannot_take_longer_than_their_process_lived():
    stdout = answer(runs=[RUN, RUN])
    expect = Expectations(lambda ops: {"bytes": 6}, 0, 2)
    assert verdict(process(stdout, wall_ns=20), parse(stdout), expect) == (Status.OK, "")
    assert verdict(process(stdout, wall_ns=19), parse(stdout), expect) == (
        Status.INVALID, "its runs took 0.000000 s by its own clock, longer than the 0.000000 s its process lived")


def test_units_are_checked_against_the_work_and_the_mechanism():
    assert judge_run(RUN, least_units=lambda ops: 4) == (Status.OK, "")
    assert judge_run(RUN, least_units=lambda ops: 5) == (
        Status.INVALID, "run 1: units = 4, fewer than the 5 the work starts")
    assert judge_run({**RUN, "units": 0, "peak_live": 0}, least_units=lambda ops: 5, fixed_units=0) == (Status.OK, "")
    assert judge_run(RUN, fixed_units=1) == (Status.INVALID, "run 1: units = 4, but this mechanism runs on 1")


def test_peak_live_must_fit_the_units_started():
    assert judge_run({**RUN, "peak_live": 1}) == (Status.OK, "")
    assert judge_run({**RUN, "peak_live": 5}) == (
        Status.INVALID, "run 1: peak_live = 5, more units alive at once than the 4 started")
    assert judge_run({**RUN, "peak_live": 0}) == (Status.INVALID, "run 1: peak_live = 0, but 4 units started")
    assert "peak_live" in parse(answer(runs=[{k: v for k, v in RUN.items() if k != "peak_live"}]))


def test_declared_evidence_must_be_reported_and_within_its_events():
    declared = {"evidence": lambda ops: {"contended": 100}}
    assert judge_run({**RUN, "evidence": {"contended": 100}}, **declared) == (Status.OK, "")
    assert judge_run({**RUN, "evidence": {"contended": None}}, **declared) == (Status.OK, "")
    assert judge_run(RUN, **declared) == (Status.INVALID, "run 1: no 'contended' in the evidence")
    assert judge_run({**RUN, "evidence": {"contended": 101}}, **declared) == (
        Status.INVALID, "run 1: contended = 101, expected 0 to 100")
    assert judge_run({**RUN, "evidence": {"contended": 1, "blocked": 1}}, **declared) == (
        Status.INVALID, "run 1: unexpected 'blocked' in the evidence")


def test_a_floor_answer_has_no_runs():
    floor = {"ok": True, "runtime": {"name": "x", "version": "1"}, "runs": []}
    assert parse_floor(json.dumps(floor).encode()) == ""
    assert "runs" in parse_floor(json.dumps({**floor, "runs": [RUN]}).encode())
    assert parse_floor(b"nothing").startswith("no JSON answer")
