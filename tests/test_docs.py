"""The counts README.md and docs/ state as facts about the suite are the
suite's: a workload or runtime added, or a cell made n/a, fails here until the
docs say so. The docs state such a count in bold ('**46 mechanisms**'), and
each profile's size in docs/usage.md's table under SIZES."""

import itertools
import re
from pathlib import Path

import pytest

from concbench import runtimes, workloads
from concbench.plan import choose, make_plan
from concbench.selection import PROFILE_SETTINGS, Selection

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
COUNTED = ("workloads", "runtimes", "mechanisms")
STATED = re.compile(rf"\*\*([\d,]+) ({'|'.join(COUNTED)})\*\*")
SIZES = "| profile | tables | cells | n/a | to run |"


@pytest.fixture
def suite(monkeypatch):
    """The project's own workloads and runtimes, whatever the environment adds."""
    for variable in ("CONCBENCH_WORKLOADS", "CONCBENCH_RUNTIMES", "CONCBENCH_BUILTINS"):
        monkeypatch.delenv(variable, raising=False)
    return workloads.load_all(), runtimes.load_all()


def stated_counts() -> list[tuple[str, int, str]]:
    """Every '**N noun**' of the docs, as (file, N, noun), a line break inside it or not."""
    return [
        (path.name, int(count.replace(",", "")), noun)
        for path in DOCS
        for count, noun in STATED.findall(" ".join(path.read_text().split()))
    ]


def test_every_count_the_docs_state_is_the_suites(suite):
    specs, found = suite
    actual = {
        "workloads": len(specs),
        "runtimes": len(found),
        "mechanisms": sum(len(rt.manifest.mechanisms) for rt in found.values()),
    }
    stated = stated_counts()
    assert {what for _, _, what in stated} == set(COUNTED), "the README states each count"
    assert [(doc, n, what, actual[what]) for doc, n, what in stated if n != actual[what]] == []


def stated_sizes() -> dict[str, list[int]]:
    """docs/usage.md's table of profiles: {profile: [tables, cells, n/a, to run]}."""
    lines = (ROOT / "docs" / "usage.md").read_text().splitlines()
    rows = itertools.takewhile(lambda line: line.startswith("|"), lines[lines.index(SIZES) + 2 :])
    cells = [row.strip("|").split("|") for row in rows]
    return {row[0].strip(" `"): [int(c.replace(",", "")) for c in row[1:]] for row in cells}


def test_the_docs_give_the_size_of_every_profile_as_the_planner_makes_it(suite, monkeypatch):
    # The table counts a cell this machine cannot run as one it can: its
    # toolchains and libraries go unasked (50 probes, a JVM's among them).
    monkeypatch.setattr(runtimes.Runtime, "unavailable", lambda self, mechanism: None)
    sizes = stated_sizes()
    assert sorted(sizes) == sorted(PROFILE_SETTINGS)
    for profile, stated in sizes.items():
        choice = choose(Selection(profile=profile), *suite)
        plan = make_plan(choice)
        tables = sum(len(param_sets) for _, param_sets in choice.workloads)
        cells = len(plan.cells) + len(plan.skipped)
        na = sum(skipped.kind == "n/a" for skipped in plan.skipped)
        assert stated == [tables, cells, na, cells - na], profile
