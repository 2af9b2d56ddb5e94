"""Property-based: whatever a trial prints, the harness classifies it, stores
it and renders every report of it, and no exception escapes (issue 12).

Answers are built as JSON text, so that they can hold what Python's json
would never write: integers of thousands of digits, NaN, lone surrogates,
nesting a hundred thousand deep, invalid UTF-8 around them."""

import io
import json
import tempfile
from pathlib import Path
from unittest import mock

import pytest
from conftest import FIXTURES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from concbench import runner, trial
from concbench.limits import Limits
from concbench.plan import Cell
from concbench.protocol import DETAIL_LIMIT, INT64_MAX, INT64_MIN
from concbench.records import Machine
from concbench.report import export, html, markdown, run_report, terminal
from concbench.runtimes import Manifest, Runtime
from concbench.selection import PROFILE_SETTINGS
from concbench.status import Status
from concbench.store import open_store
from concbench.toml_models import load_toml
from concbench.trial import STDOUT_LIMIT, Exit
from concbench.workloads import Workload

settings.register_profile(
    "fuzz", deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example]
)
FUZZ = settings.get_profile("fuzz")

FAKE = FIXTURES / "runtimes" / "fake"
RUNTIME = Runtime(FAKE, load_toml(FAKE / "runtime.toml", Manifest))
SMOKE = PROFILE_SETTINGS["smoke"]  # no warm-up, one timed run


def cell(spec: Path, mechanism: str) -> Cell:
    workload = load_toml(spec, Workload)
    return Cell(workload, RUNTIME, mechanism, workload.param_sets("smoke", {})[0], ())


# What the reports can find specs for, and a rate spec that has no expectation for some ops.
REPORTED = [cell(FIXTURES / "workloads" / f"{w}.toml", m) for w in ("triangle", "ticks") for m in ("says", "honest")]
UNCOMPUTABLE = cell(FIXTURES / "uncomputable" / "triangle.toml", "says")

# Text a trial might print to hurt whatever shows it; lone surrogates only JSON escapes can spell.
HOSTILE = [
    "[/]",
    "[bold]",
    "[bold red]x",
    "\x1b[2J",
    "<script>alert(1)</script>",
    "=1+1",
    "\x00",
    "\r\n",
    "\u2028",
    "a\tb",
]
SURROGATES = ["\ud800", "\udfff\ud800"]
EDGES = [0, 1, -1, 10, 30, 55, INT64_MAX, INT64_MAX + 1, INT64_MIN, INT64_MIN - 1, 10**20]

numbers = st.one_of(
    st.integers(0, 10**6).map(str),
    st.sampled_from(EDGES).map(str),
    st.integers(1, 6000).map(lambda digits: "9" * digits),  # past int64, past Python's 4300 digits
    st.sampled_from(["NaN", "Infinity", "-Infinity", "1.5", "-0.0", "1e999", "1E400"]),
)
strings = st.one_of(
    st.text(max_size=30),
    st.sampled_from(HOSTILE + SURROGATES),
    st.sampled_from([300, 10**5, 2 * STDOUT_LIMIT]).map(lambda n: "x" * n),
).map(json.dumps)  # lone surrogates become \ud800 escapes, which json.loads turns back into them
leaves = st.one_of(numbers, strings, st.sampled_from(["true", "false", "null"]))
values = st.recursive(
    leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=4).map(lambda items: f"[{','.join(items)}]"),
        st.dictionaries(strings, children, max_size=4).map(
            lambda pairs: "{" + ",".join(f"{k}:{v}" for k, v in pairs.items()) + "}"
        ),
    ),
    max_leaves=12,
)
deep = st.integers(1, 200_000).map(lambda n: "[" * n + "]" * (n % 2 * n))
names = st.one_of(
    st.sampled_from(["total", "count", "mean", "ops", "contended", "x"]),
    st.text(max_size=20),
    st.sampled_from(HOSTILE + SURROGATES),
)


def honest(cell: Cell, lifetime_ns: int, ops: int | None) -> dict:
    """What an honest kit answers the cell's smoke request, as a tree whose leaves are JSON text."""
    try:
        result = cell.workload.expected(cell.params, ops)
    except ArithmeticError:  # the uncomputable spec at one batch
        result = {}
    run = {
        "warmup": "false",
        "wall_ns": str(lifetime_ns // 2 or 1),
        "user_ns": "500",
        "sys_ns": "100",
        "units": "1",
        "peak_live": "1",
        "result": {key: str(value) for key, value in result.items()},
        **({"ops": str(ops)} if ops is not None else {}),
    }
    return {"ok": "true", "runtime": {"name": '"fake"', "version": '"1"', "flags": []}, "runs": [run]}


def paths(tree, at: tuple = ()):
    yield at
    children = tree.items() if isinstance(tree, dict) else enumerate(tree) if isinstance(tree, list) else ()
    for key, child in children:
        yield from paths(child, (*at, key))


def changed(tree, path: tuple, value):
    """The tree with the node at path replaced by value (JSON text), or left out if value is None."""
    if not path:
        return value
    key, rest = path[0], path[1:]
    copy = dict(tree) if isinstance(tree, dict) else list(tree)
    if rest or value is not None:
        copy[key] = changed(tree[key], rest, value)
    else:
        del copy[key]
    return copy


def added(tree, path: tuple, key: str, value: str):
    """The tree with value added to the object or array at path."""
    if path:
        copy = dict(tree) if isinstance(tree, dict) else list(tree)
        copy[path[0]] = added(tree[path[0]], path[1:], key, value)
        return copy
    return {**tree, key: value} if isinstance(tree, dict) else [*tree, value]


def text(tree) -> str:
    if isinstance(tree, dict):
        return "{" + ",".join(f"{json.dumps(key)}:{text(value)}" for key, value in tree.items()) + "}"
    if isinstance(tree, list):
        return f"[{','.join(map(text, tree))}]"
    return tree


@st.composite
def answers(draw, cell: Cell, lifetime_ns: int) -> str:
    """An honest answer with up to three of its parts replaced, left out or added to."""
    ops = draw(st.sampled_from([10, 20, 30])) if cell.workload.kind == "rate" else None
    tree = honest(cell, lifetime_ns, ops)
    for _ in range(draw(st.integers(0, 3))):
        path = draw(st.sampled_from(list(paths(tree))))
        node = tree
        for key in path:
            node = node[key]
        if isinstance(node, (dict, list)) and draw(st.booleans()):
            tree = added(tree, path, draw(names), draw(values))
        else:
            tree = changed(tree, path, draw(st.one_of(values, values, st.none()) if path else values))
    return text(tree)


refusals = strings.map(lambda error: f'{{"ok": false, "error": {error}}}')


@st.composite
def exits(draw, cell: Cell) -> Exit:
    """How a trial of the cell ended, as the harness keeps it: noise, then the
    last line, now and then with bytes that are no UTF-8 or that break it."""
    lifetime_ns = draw(st.integers(1, 10**11))
    said = draw(st.sampled_from([answers(cell, lifetime_ns)] * 7 + [refusals, values, deep]))  # answers reach furthest
    line = draw(said).encode()
    if draw(st.sampled_from([False] * 4 + [True])):
        at = draw(st.integers(0, len(line)))
        line = line[:at] + draw(st.binary(min_size=1, max_size=4)) + line[at:]
    noise = draw(st.sampled_from([b"", b"", b"starting\n", b"\xff\xfe\n", b"[bold]noise[/]\n"]))
    written = noise + line + draw(st.sampled_from([b"\n", b"", b"\r\n", b"\n\n \t"]))
    return ended(
        written,
        lifetime_ns,
        dropped=draw(st.sampled_from([0] * 8 + [1, 3 * STDOUT_LIMIT])),
        how=draw(st.sampled_from([(0, None, False)] * 8 + [(1, None, False), (None, 9, False), (None, 9, True)])),
        stderr=draw(st.one_of(st.text(max_size=50), st.sampled_from(HOSTILE))),
        strays=draw(st.sampled_from([0] * 8 + [None, 1, 300])),
        limit_hit=draw(st.sampled_from([""] * 8 + ["the kernel stopped it at the memory cap"])),
    )


def ended(
    written: bytes,
    lifetime_ns: int,
    dropped: int = 0,
    how=(0, None, False),
    stderr: str = "",
    strays: int | None = 0,
    limit_hit: str = "",
) -> Exit:
    """The end of a trial that wrote written (and dropped bytes before it), as the harness keeps it."""
    code, signal, timed_out = how
    return Exit(
        wall_ns=lifetime_ns,
        user_ns=1000,
        sys_ns=1000,
        maxrss_kb=1000,
        voluntary_switches=1,
        involuntary_switches=1,
        exit_code=code,
        signal=signal,
        timed_out=timed_out,
        stdout=written[-STDOUT_LIMIT:],
        stdout_size=len(written) + dropped,
        stderr=stderr,
        strays=strays,
        limit_hit=limit_hit,
    )


def trials(cells: list[Cell]) -> st.SearchStrategy:
    return st.sampled_from(cells).flatmap(lambda cell: exits(cell).map(lambda exit: (cell, exit)))


def judged(cell: Cell, exit: Exit, index: int = 0):
    """The runner's record of a trial of the cell that ended as exit."""
    with mock.patch.object(trial, "run", return_value=exit):
        return runner.run_trial(cell, index, SMOKE, Limits(None, None), Machine("fuzz", ""))


def assert_fits(record, exit: Exit) -> None:
    assert isinstance(record.status, Status)
    assert "\n" not in record.detail and len(record.detail) <= DETAIL_LIMIT
    record.detail.encode()
    for sample in record.samples:
        figures = (
            sample.wall_ns,
            sample.user_ns,
            sample.sys_ns,
            sample.units,
            sample.peak_live,
            sample.ops,
            *sample.result.values(),
            *sample.evidence.values(),
        )
        assert all(INT64_MIN <= f <= INT64_MAX for f in figures if f is not None)
        assert record.status != Status.OK or 1 <= sample.wall_ns <= exit.wall_ns


@settings(FUZZ, max_examples=300)
@given(said=trials([*REPORTED, UNCOMPUTABLE]))
def test_every_answer_is_classified_with_a_bounded_detail(said):
    cell, exit = said
    assert_fits(judged(cell, exit), exit)


@pytest.fixture(scope="module", autouse=True)
def reported_specs():
    """The reports find their titles and baselines in the fixtures' specs."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CONCBENCH_BUILTINS", "off")
        patch.setenv("CONCBENCH_WORKLOADS", str(FIXTURES / "workloads"))
        yield


# A verified trial in every cell, for the others to be compared with.
HONEST = [
    (cell, ended(text(honest(cell, 10**9, 30 if cell.workload.kind == "rate" else None)).encode(), 10**9))
    for cell in REPORTED
]


@settings(FUZZ, max_examples=100)
@given(hostile=st.lists(trials(REPORTED), min_size=1, max_size=4))
def test_every_answer_is_stored_and_reported(hostile):
    with tempfile.TemporaryDirectory() as folder:
        store = open_store(Path(folder) / "fuzz.db")
        run_id = store.begin_run({"profile": "smoke"}, {"runtimes": {"fake": "1"}})
        records = [judged(cell, exit, index) for index, (cell, exit) in enumerate([*HONEST, *hostile])]
        assert all(record.status == Status.OK for record in records[: len(HONEST)])
        for record in records:
            store.add_trial(run_id, record)
        store.set_state(run_id, "complete")
        stored = store.trials(run_id)
        assert [(t.status, t.detail, t.samples) for t in stored] == [(t.status, t.detail, t.samples) for t in records]
        render_everything(run_report.build(store.stored_run(run_id)))


def render_everything(report: run_report.RunReport) -> None:
    """Every report of the run, each written as the command line writes it."""
    console = Console(file=io.StringIO(), force_terminal=True, width=120)
    console.print(terminal.run_header(report.run, report.environment))
    for table in report.tables:
        for line in terminal.render(table):
            console.print(line)
    for line in report.diagnosis.lines() if report.diagnosis else []:
        console.print(line, markup=False)
    for rendered in (
        console.file.getvalue(),
        markdown.render(report),
        html.render(report),
        export.csv_text(report),
        export.json_text(report),
    ):
        rendered.encode()
