"""One registry per runtime: its manifest and its workload files say which
cells it implements, and each kit, asked with a "list" request, must say the
same from its own dispatch. A mechanism the kit lacks, or one it implements
where the manifest says n/a, fails here with the cell named."""

import json

import pytest
from conftest import FIXTURES

from concbench import runtimes, trial, workloads

LIST = {"workload": "", "kind": "list", "mechanism": "", "params": {}, "warmup": 0, "runs": 0}


def declared(rt: runtimes.Runtime, specs) -> dict[str, set[str]]:
    """The cells the manifest and the files promise: every mechanism not n/a
    for each workload the runtime has a file of."""
    return {
        workload: {m for m in rt.manifest.mechanisms if rt.na_reason(workload, m) is None}
        for workload in specs
        if rt.implements(workload)
    }


def listed(rt: runtimes.Runtime) -> dict[str, set[str]]:
    exit = trial.run(rt.trial_command(()), LIST, timeout=60)
    answer = json.loads(exit.stdout.decode().strip().splitlines()[-1])
    assert answer["ok"], f"{rt.name}: the list request was refused: {answer.get('error')}"
    return {workload: set(mechanisms) for workload, mechanisms in answer["implements"].items()}


def disagreements(name: str, promised: dict, implemented: dict) -> list[str]:
    found = []
    for workload in sorted(set(promised) | set(implemented)):
        for m in sorted(promised.get(workload, set()) - implemented.get(workload, set())):
            found.append(f"{name}/{m} on {workload}: the manifest runs it, the kit has no implementation")
        for m in sorted(implemented.get(workload, set()) - promised.get(workload, set())):
            found.append(f"{name}/{m} on {workload}: the kit implements it, the manifest does not run it")
    return found


@pytest.mark.parametrize("name", sorted(runtimes.load_all()))
def test_each_kit_implements_what_its_manifest_runs(name):
    rt = runtimes.load_all()[name]
    if not rt.toolchain.ok:
        pytest.skip(f"{name} is not installed here")
    rt.build()
    assert rt.build_error is None, rt.build_error
    assert disagreements(name, declared(rt, workloads.load_all()), listed(rt)) == []


def test_a_disagreement_names_the_cell_and_which_side_lacks_it(monkeypatch):
    monkeypatch.setenv("CONCBENCH_BUILTINS", "off")
    monkeypatch.setenv("CONCBENCH_RUNTIMES", str(FIXTURES / "runtimes"))
    implemented = listed(runtimes.load_all()["fake"])  # the fake kit answers the request too
    assert {"honest", "liar", "hang"} <= implemented["triangle"] and "inexpressible" not in implemented["triangle"]
    promised = {"triangle": {"honest", "liar"}, "ticks": {"honest"}}
    assert disagreements("fake", promised, {"triangle": {"liar"}, "ticks": {"honest", "inexpressible"}}) == [
        "fake/inexpressible on ticks: the kit implements it, the manifest does not run it",
        "fake/honest on triangle: the manifest runs it, the kit has no implementation",
    ]


@pytest.mark.parametrize("name", sorted(runtimes.load_all()))
def test_a_cell_the_manifest_calls_na_shows_its_reason_with_or_without_a_file(name):
    """Erlang has no file for pipe, whose every mechanism is n/a: its reason is
    shown, never "not implemented yet"."""
    rt = runtimes.load_all()[name]
    for mechanism, spec in rt.manifest.mechanisms.items():
        for workload, reason in spec.na.items():
            assert rt.na_reason(workload, mechanism) == reason, f"{name}/{mechanism} on {workload}"
