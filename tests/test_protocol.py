import json
from dataclasses import replace

import pytest

from concbench import expr
from concbench.protocol import Refusal, Response, parse, parse_floor
from concbench.status import Status
from concbench.trial import STDOUT_LIMIT, Exit
from concbench.verify import Expectations, verdict

RUN = {"warmup": False, "wall_ns": 10, "user_ns": 5, "sys_ns": 1, "units": 4, "peak_live": 4, "result": {"bytes": 6}}


def answer(**changes):
    data = {"ok": True, "runtime": {"name": "x", "version": "1"}, "runs": [RUN], **changes}
    return json.dumps(data).encode()


def process(stdout=b"", code=0, signal=None, timed_out=False, stderr="", wall_ns=10**10):
    return Exit(
        wall_ns=wall_ns,
        user_ns=1,
        sys_ns=1,
        maxrss_kb=1,
        voluntary_switches=1,
        involuntary_switches=1,
        exit_code=code,
        signal=signal,
        timed_out=timed_out,
        stdout=stdout,
        stdout_size=len(stdout),
        stderr=stderr,
    )


def read(stdout, **exit):
    return parse(process(stdout, **exit))


def judge(stdout=answer(), expected={"bytes": 6}, warmup=0, runs=1, **exit):
    return verdict(process(stdout, **exit), read(stdout, **exit), Expectations(lambda ops: expected, warmup, runs))


def judge_run(run, **expect):
    """The verdict on one run against expectations beyond its result."""
    stdout = answer(runs=[run])
    return verdict(process(stdout), read(stdout), Expectations(lambda ops: {"bytes": 6}, 0, 1, **expect))


RATE_RUN = {**RUN, "ops": 300, "result": {"count": 300}}


def judge_rate(run, batch=100):
    stdout = answer(runs=[run])
    return verdict(process(stdout), read(stdout), Expectations(lambda ops: {"count": ops}, 0, 1, batch))


def test_a_rate_run_is_checked_against_the_operations_it_counted():
    assert judge_rate(RATE_RUN) == (Status.OK, "")
    assert judge_rate({**RATE_RUN, "result": {"count": 299}}) == (Status.INVALID, "run 1: count = 299, expected 300")
    assert judge_rate({**RATE_RUN, "ops": 250, "result": {"count": 250}}) == (
        Status.INVALID,
        "run 1: ops = 250, expected a positive multiple of batch = 100",
    )
    assert judge_rate({**RATE_RUN, "ops": 0, "result": {"count": 0}})[0] == Status.INVALID
    assert judge_rate(RUN) == (Status.INVALID, "run 1: no ops counted by the rate loop")


def test_only_the_last_line_is_the_answer():
    assert isinstance(read(b"noise\n" + answer() + b"\n\n"), Response)
    assert read(answer() + b"\nnoise") == "last line of stdout is not JSON: 'noise'"


def test_malformed_answers_are_described():
    assert read(b"") == "no answer on stdout"
    assert read(b"[1, 2]").startswith("malformed answer")
    assert "runs" in read(answer(runs=[]))
    assert "wall_ns" in read(answer(runs=[{**RUN, "wall_ns": -1}]))
    assert "result" in read(answer(runs=[{**RUN, "result": {"bytes": "6"}}]))
    assert isinstance(read(b'{"ok": false, "error": "no"}'), Refusal)


def test_a_verified_trial():
    assert judge() == (Status.OK, "")


@pytest.mark.parametrize(
    "stdout, expected, detail",
    [
        (answer(), {"bytes": 7}, "run 1: bytes = 6, expected 7"),
        (answer(), {"count": 6}, "run 1: no 'count' in the result"),
        (answer(), {}, "run 1: unexpected 'bytes' in the result"),
        (answer(runs=[RUN, {**RUN, "result": {"bytes": 5}}]), {"bytes": 6}, None),
    ],
)
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
        Status.INVALID,
        "run 1: took 2.000 s, twice the 1 s delay or more: the units did not sleep at the same time",
    )
    assert judge_delay(5, delay_ns=0) == (Status.OK, "")


def test_a_delayed_run_must_take_at_least_the_delay():
    assert judge_delay(999_000_000) == (
        Status.INVALID,
        "run 1: took 0.999 s, less than the 1 s every unit sleeps: the units did not sleep",
    )


def test_runs_cannot_take_longer_than_their_process_lived():
    stdout = answer(runs=[RUN, RUN])
    expect = Expectations(lambda ops: {"bytes": 6}, 0, 2)
    assert verdict(process(stdout, wall_ns=20), read(stdout, wall_ns=20), expect) == (Status.OK, "")
    assert verdict(process(stdout, wall_ns=19), read(stdout, wall_ns=19), expect) == (
        Status.INVALID,
        "its runs took 0.000000 s by its own clock, longer than the 0.000000 s its process lived",
    )


def test_units_are_checked_against_the_work_and_the_mechanism():
    assert judge_run(RUN, least_units=lambda ops: 4) == (Status.OK, "")
    assert judge_run(RUN, least_units=lambda ops: 5) == (
        Status.INVALID,
        "run 1: units = 4, fewer than the 5 the work starts",
    )
    assert judge_run({**RUN, "units": 0, "peak_live": 0}, least_units=lambda ops: 5, fixed_units=0) == (Status.OK, "")
    assert judge_run(RUN, fixed_units=1) == (Status.INVALID, "run 1: units = 4, but this mechanism runs on 1")


def test_peak_live_must_fit_the_units_started():
    assert judge_run({**RUN, "peak_live": 1}) == (Status.OK, "")
    assert judge_run({**RUN, "peak_live": 5}) == (
        Status.INVALID,
        "run 1: peak_live = 5, more units alive at once than the 4 started",
    )
    assert judge_run({**RUN, "peak_live": 0}) == (Status.INVALID, "run 1: peak_live = 0, but 4 units started")
    assert "peak_live" in read(answer(runs=[{k: v for k, v in RUN.items() if k != "peak_live"}]))


def test_declared_evidence_must_be_reported_and_within_its_events():
    declared = {"evidence": lambda ops: {"contended": 100}}
    assert judge_run({**RUN, "evidence": {"contended": 100}}, **declared) == (Status.OK, "")
    assert judge_run({**RUN, "evidence": {"contended": None}}, **declared) == (Status.OK, "")
    assert judge_run(RUN, **declared) == (Status.INVALID, "run 1: no 'contended' in the evidence")
    assert judge_run({**RUN, "evidence": {"contended": 101}}, **declared) == (
        Status.INVALID,
        "run 1: contended = 101, expected 0 to 100",
    )
    assert judge_run({**RUN, "evidence": {"contended": 1, "blocked": 1}}, **declared) == (
        Status.INVALID,
        "run 1: unexpected 'blocked' in the evidence",
    )


def test_a_floor_answer_has_no_runs():
    floor = {"ok": True, "runtime": {"name": "x", "version": "1"}, "runs": []}
    assert parse_floor(json.dumps(floor).encode()) == ""
    assert "runs" in parse_floor(json.dumps({**floor, "runs": [RUN]}).encode())
    assert parse_floor(b"nothing").startswith("no JSON answer")


def with_run(**changes) -> bytes:
    return answer(runs=[{**RUN, **changes}])


@pytest.mark.parametrize(
    "stdout, detail",
    [
        (b"[" * 100_000, "answer nested deeper than 16"),
        (
            with_run(result={"bytes": 1}).replace(b'"bytes": 1', b'"bytes": ' + b"7" * 5000),
            "an integer of 5000 digits: answers hold 64-bit integers, at most 19",
        ),
        (with_run(wall_ns=10**20), "an integer of 21 digits: answers hold 64-bit integers, at most 19"),
        (
            with_run(wall_ns=2**63),
            "malformed answer: runs.0.wall_ns: Input should be less than or equal to 9223372036854775807",
        ),
        (
            with_run(result={"bytes": -(2**63) - 1}),
            "malformed answer: runs.0.result.bytes: Input should be greater than",
        ),
        (with_run(evidence={"contended": -1}), "malformed answer: runs.0.evidence.contended"),
        (with_run(wall_ns=float("nan")), "a number that is not an integer: NaN"),
        (with_run(wall_ns=float("inf")), "a number that is not an integer: Infinity"),
        (with_run(wall_ns=1.5), "a number that is not an integer: 1.5"),
        (
            answer(runtime={"name": "x", "version": "\ud800"}),
            "malformed answer: runtime.version: Input should be a valid string",
        ),
        (
            json.dumps({"ok": False, "error": "\ud800"}).encode(),
            "malformed answer: error: not valid Unicode (a lone surrogate)",
        ),
        (
            answer(runtime={"name": "x", "version": "1" * 201}),
            "malformed answer: runtime.version: String should have at most 200",
        ),
    ],
)
def test_an_answer_beyond_the_bounds_is_garbage_that_says_which(stdout, detail):
    status, text = judge(stdout)
    assert status == Status.GARBAGE and text.startswith(detail)


def test_only_brackets_outside_strings_nest():
    deep = "[" * 50 + "{" * 50
    assert judge(answer(runtime={"name": deep, "version": '"\\' + deep})) == (Status.OK, "")
    assert judge(json.dumps([[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]).encode())[1].startswith("malformed answer")


def test_a_run_that_took_no_time_is_garbage():
    assert judge(with_run(wall_ns=0), wall_ns=520_000_000) == (
        Status.GARBAGE,
        "a run's wall_ns is 0: it must lie between 1 and the 0.52 s the process lived",
    )
    assert judge(with_run(wall_ns=1), wall_ns=10) == (Status.OK, "")
    assert judge(with_run(wall_ns=11), wall_ns=10)[0] == Status.INVALID  # a lie about its time


def cut(stdout: bytes, written: int):
    """The trial's end as the harness keeps it: the last STDOUT_LIMIT bytes of what was written."""
    return replace(process(stdout[-STDOUT_LIMIT:]), stdout_size=written)


def test_an_answer_whose_start_passed_the_stdout_cap_says_so():
    padded = answer().replace(b"{", b"{" + b" " * (2 * STDOUT_LIMIT), 1)
    assert parse(cut(padded, len(padded))) == "the answer's last line passed the 1 MiB stdout cap (2.0 MiB written)"
    noisy = b"noise\n" * STDOUT_LIMIT + answer()
    assert isinstance(parse(cut(noisy, len(noisy))), Response)


def test_the_detail_is_one_line_of_bounded_length():
    status, detail = judge(b'{"ok": false, "error": "first\\nsecond\\r\\n' + b"x" * 10_000 + b'"}', code=1)
    assert status == Status.ERROR and detail.startswith("first second xxx") and len(detail) == 300
    status, detail = judge(with_run(result={"\ud800" * 400: 6}))
    assert status == Status.GARBAGE and detail.startswith("malformed answer: runs.0.result.")
    assert len(detail) == 300 and detail.encode()


def uncomputable(ops):
    return expr.evaluate("ops // (ops - 300)", {"ops": ops})


def test_figures_the_spec_cannot_compute_for_the_ops_make_the_run_invalid():
    for figure in ("result", "least_units", "evidence"):
        expect = Expectations(
            **{"result": lambda ops: {"count": ops}, "warmup": 0, "runs": 1, "batch": 100, figure: uncomputable}
        )
        stdout = answer(runs=[RATE_RUN])
        assert verdict(process(stdout), read(stdout), expect) == (
            Status.INVALID,
            "run 1: the spec gives no expected figures for ops = 300: "
            "integer division or modulo by zero (in 'ops // (ops - 300)')",
        )
    assert Expectations(uncomputable, 0, 1, 100).known_result(300) == {}


def test_a_floor_answer_is_read_within_the_same_bounds():
    assert parse_floor(b"[" * 100_000) == "unbounded answer to the floor request: answer nested deeper than 16"
