"""Runtimes and workloads from outside the repository: a folder given with
--runtimes or --workloads (or their environment variables) adds to the
project's own, runs, is stored and reported, and the run records where it
came from. The runtime used is the template of docs/extending.md, copied."""

import json
import os
import shutil
import subprocess

import pytest
from conftest import FIXTURES, assert_one_line_error, concbench

from concbench import paths, runtimes, workloads

TEMPLATE = paths.PROJECT / "docs" / "template" / "template"


@pytest.fixture
def mine(tmp_path) -> dict:
    """The template copied as the runtime 'mine', in a git work tree of its own."""
    folder = tmp_path / "elsewhere" / "mine"
    shutil.copytree(TEMPLATE, folder)
    manifest = folder / "runtime.toml"
    manifest.write_text(manifest.read_text().replace('name = "template"', 'name = "mine"'))
    git = ["git", "-C", str(folder.parent), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "mine"], check=True)
    commit = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    return {"folder": folder, "commit": commit, "db": tmp_path / "t.db"}


def test_a_runtime_from_outside_runs_beside_the_projects_own_and_records_its_origin(mine):
    db = mine["db"]
    done = concbench(
        "run", "--runtimes", mine["folder"].parent, "-r", "mine", "-w", "spawn", "--profile", "smoke", "--db", db
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "mine/thread" in done.stdout
    record = json.loads(concbench("report", "--format", "json", "--db", db).stdout)
    origin = record["run"]["environment"]["origins"]["runtime mine"]
    assert origin == f"{mine['folder'].resolve()} (git {mine['commit']})"
    markdown = concbench("report", "--format", "md", "--db", db).stdout
    assert f"- runtime mine: from {origin}" in markdown
    listed = concbench("list", "--runtimes", mine["folder"]).stdout  # a runtime's own folder works too
    assert "mine/thread" in listed and "ruby/thread" in listed  # added, not replacing


def test_a_runtime_named_by_the_environment_runs_its_smoke_cells_and_each_verifies(mine):
    """What the smoke test checks of a runtime in the environment: every cell
    its manifest and files promise runs at the smoke profile and verifies,
    the others are n/a, and the run exits 0."""
    env = {**_environ(), "CONCBENCH_RUNTIMES": str(mine["folder"].parent)}
    done = concbench("run", "-r", "mine", "--profile", "smoke", "--db", mine["db"], env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    shown = concbench("show", "--json", "--db", mine["db"], env=env).stdout.splitlines()
    records = [json.loads(line) for line in shown]
    rt = runtimes.load_all([mine["folder"]])["mine"]
    promised = {(w, m) for w in workloads.load_all() for m in rt.manifest.mechanisms if not rt.na_reason(w, m)}
    assert promised and {(r["workload"], r["mechanism"]) for r in records} == promised
    for record in records:
        assert record["runtime"] == "mine" and record["status"] == "ok", record
        assert record["runs"][-1]["result"] == record["expected"]


def test_the_environment_variables_add_folders_too(mine, tmp_path):
    env = {"CONCBENCH_RUNTIMES": str(mine["folder"].parent), "CONCBENCH_WORKLOADS": str(FIXTURES / "workloads")}
    listed = concbench("list", env={**_environ(), **env}).stdout
    assert "mine/thread" in listed and "c/pthread" in listed
    assert "triangle" in listed and "spawn" in listed


def test_a_name_given_twice_is_one_line(mine, tmp_path):
    twin = tmp_path / "twin" / "mine"
    shutil.copytree(mine["folder"], twin)
    assert_one_line_error(
        concbench("list", "--runtimes", mine["folder"].parent, "--runtimes", twin.parent),
        "two runtimes named 'mine'",
        str(mine["folder"].resolve()),
        str(twin.resolve()),
    )
    specs = tmp_path / "specs"
    specs.mkdir()
    shutil.copy(paths.BUILTIN["workloads"] / "spawn.toml", specs)
    assert_one_line_error(concbench("list", "--workloads", specs), "two workloads with the id 'spawn'")


def test_a_folder_that_is_not_there_is_one_line(tmp_path):
    assert_one_line_error(concbench("list", "--runtimes", tmp_path / "nothing"), "--runtimes")
    assert_one_line_error(
        concbench("list", env={**_environ(), "CONCBENCH_WORKLOADS": str(tmp_path / "no")}),
        f"CONCBENCH_WORKLOADS: {tmp_path / 'no'} is not a folder",
    )


def _environ() -> dict:
    """The environment without concbench's variables."""
    return {k: v for k, v in os.environ.items() if not k.startswith("CONCBENCH_")}


def test_a_missing_toolchain_makes_its_runtime_unavailable_with_how_to_install_it(mine):
    manifest = mine["folder"] / "runtime.toml"
    text = manifest.read_text().replace('detect = ["python3"', 'detect = ["no-such-toolchain"')
    for install, hint in [
        ("", "apt-get install python3"),  # a toolchain Debian packages: the apt-get line
        ('install = "the Mine SDK, from its site"\n', "the Mine SDK, from its site"),  # one it does not
    ]:
        manifest.write_text(text.replace("command = ", install + "command = "))
        done = concbench(
            "run", "--runtimes", mine["folder"], "-m", "mine/thread,c/pthread", "-w", "spawn",
            "--profile", "smoke", "--db", mine["db"],
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr  # unavailable, not a failed run
        said = "No such file or directory: 'no-such-toolchain'"  # the detect probe's own error
        assert f"mine is missing: [Errno 2] {said} ({hint})" in done.stdout, done.stdout
        # doctor builds every runtime it sees: the project's are left out, for
        # their first builds are the smoke run's to pay, and this asks only of mine
        doctor = concbench("doctor", "--runtimes", mine["folder"], env={**_environ(), "CONCBENCH_BUILTINS": "off"})
        assert f"not found: [Errno 2] {said} ({hint})" in doctor.stdout


def _manifest(folder, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "runtime.toml").write_text(text)


def test_a_runtime_that_extends_another_runs_its_kit_and_files_on_its_own_interpreter(mine, tmp_path):
    """As ruby34 runs the Ruby kit on Ruby 3.4: the base's commands with the
    base's folder, on the interpreter the extending manifest names."""
    base = mine["folder"] / "runtime.toml"
    text = base.read_text().replace('command = ["python3"', 'interpreter = "python3"\ncommand = ["{interpreter}"')
    base.write_text(text)
    other = mine["folder"].parent / "mine2"
    _manifest(
        other, 'name = "mine2"\nsummary = "mine on a wrapped python3"\nextends = "../mine"\ninterpreter = "{dir}/py"\n'
    )
    marker = tmp_path / "ran"
    (other / "py").write_text(f'#!/bin/sh\necho "$@" >> {marker}\nexec python3 "$@"\n')
    (other / "py").chmod(0o755)
    done = concbench(
        "run",
        "--runtimes",
        mine["folder"].parent,
        "-r",
        "mine2",
        "-w",
        "spawn",
        "--profile",
        "smoke",
        "--db",
        mine["db"],
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "mine2/thread" in done.stdout and "1/1" in done.stdout
    assert str(mine["folder"] / "kit.py") in marker.read_text()  # the base's kit, on this interpreter


def test_an_extending_manifest_merges_tables_key_by_key_and_drops_what_it_calls_absent(tmp_path):
    _manifest(
        tmp_path / "base",
        'name = "base"\nlanguage = "L"\nsummary = "s"\ninterpreter = "x"\ndetect = ["{interpreter}"]\n'
        'command = ["{interpreter}", "{dir}/kit"]\n'
        '[mechanisms.a]\ndoc = "a"\n[mechanisms.a.notes]\nspawn = "base note"\nring = "kept"\n'
        '[mechanisms.b]\ndoc = "b"\n',
    )  # fmt: skip
    _manifest(
        tmp_path / "over",
        'name = "over"\nextends = "../base"\ninterpreter = "{dir}/y"\n'
        '[mechanisms.a.notes]\nspawn = "own note"\n[absent]\nb = "not here"\n',
    )
    over = runtimes.load_all([tmp_path / "over"])["over"]
    assert over.manifest.mechanisms["a"].notes == {"spawn": "own note", "ring": "kept"}
    assert set(over.manifest.mechanisms) == {"a"} and over.manifest.absent == {"b": "not here"}
    assert over.trial_command(()) == [f"{tmp_path / 'over'}/y", f"{tmp_path / 'base'}/kit"]


def test_a_limit_where_holds_in_its_tables_only_and_an_extending_manifest_adds_limits(tmp_path):
    _manifest(
        tmp_path / "base",
        'name = "base"\nlanguage = "L"\nsummary = "s"\ninterpreter = "x"\ndetect = ["x"]\ncommand = ["k"]\n'
        '[mechanisms.a]\ndoc = "a"\n[mechanisms.a.limits.spawn]\nparam = "tasks"\nmax = 10\nwhy = "the cap"\n',
    )  # fmt: skip
    (tmp_path / "base" / "workloads").mkdir()
    (tmp_path / "base" / "workloads" / "spawn.k").write_text("")
    _manifest(
        tmp_path / "over",
        'name = "over"\nextends = "../base"\n[[mechanisms.a.limits.spawn]]\n'
        'param = "tasks"\nmax = 4\nwhere = { delay_ms = 5 }\nwhy = "slow to start"\n',
    )
    over = runtimes.load_all([tmp_path / "over"])["over"]
    reasons = {
        (tasks, delay): over.na_reason("spawn", "a", {"tasks": tasks, "delay_ms": delay})
        for tasks in (4, 8, 20)
        for delay in (0, 5, 20)
    }
    assert {key for key, reason in reasons.items() if reason is None} == {(4, 0), (4, 5), (4, 20), (8, 0), (8, 20)}
    assert reasons[(8, 5)] == "slow to start (it takes tasks <= 4 where delay_ms=5)"
    assert reasons[(20, 0)] == reasons[(20, 20)] == "the cap (it takes tasks <= 10)"
    listed = concbench("list", "--runtimes", tmp_path / "over").stdout
    assert "spawn           over/a             n/a above tasks=4 where delay_ms=5: slow to start" in listed
    assert "spawn           over/a             n/a above tasks=10: the cap" in listed
    _manifest(
        tmp_path / "over", 'name = "over"\nextends = "../base"\n[mechanisms.a.limits.spawn]\nwhere = { delay = 5 }\n'
    )
    assert_one_line_error(
        concbench("run", "--runtimes", tmp_path / "over", "-m", "over/a", "-w", "spawn"),
        "mechanisms.a.limits.spawn: spawn has no parameter 'delay'",
    )


def test_a_mechanism_that_runs_only_some_workloads_is_na_elsewhere_with_its_reason(tmp_path):
    head = 'name = "base"\nlanguage = "L"\nsummary = "s"\ndetect = ["x"]\ncommand = ["k"]\n[mechanisms.a]\ndoc = "a"\n'
    _manifest(tmp_path / "base", head + 'only = ["spawn"]\nna_others = "one call"\n[mechanisms.a.na]\nring = "own"\n')
    (tmp_path / "base" / "workloads").mkdir()
    for workload in ("spawn", "ring", "pipe"):
        (tmp_path / "base" / "workloads" / f"{workload}.k").write_text("")
    rt = runtimes.load_all([tmp_path / "base"])["base"]
    assert [rt.na_reason(w, "a") for w in ("spawn", "ring", "pipe")] == [None, "own", "one call"]
    _manifest(tmp_path / "base", head + 'only = ["spawn"]\n')
    assert_one_line_error(concbench("list", "--runtimes", tmp_path / "base"), "only and na_others go together")


def test_a_manifest_that_extends_one_that_extends_or_names_no_interpreter_is_one_line(tmp_path):
    _manifest(
        tmp_path / "base",
        'name = "base"\nlanguage = "L"\nsummary = "s"\ndetect = ["{interpreter}"]\ncommand = ["k"]\n[mechanisms.a]\ndoc = "a"\n',
    )
    assert_one_line_error(
        concbench("list", "--runtimes", tmp_path / "base"), "names {interpreter}, but the manifest gives no interpreter"
    )
    _manifest(tmp_path / "middle", 'name = "middle"\nextends = "../base"\ninterpreter = "x"\n')
    _manifest(tmp_path / "top", 'name = "top"\nextends = "../middle"\n')
    assert_one_line_error(concbench("list", "--runtimes", tmp_path / "top"), "which extends another: one level only")


def test_a_toolchain_provided_on_request_is_unavailable_until_setup_provides_it(mine):
    manifest = mine["folder"] / "runtime.toml"
    provided = mine["folder"] / "provided"
    text = manifest.read_text().replace(
        'detect = ["python3", "-c", ', f'detect = ["test", "-f", "{provided}"]\nunused = ['
    )
    text = text.replace(
        "command = ", f'install = "concbench setup --provide mine"\nprovide = ["touch", "{provided}"]\ncommand = '
    )
    manifest.write_text(text.replace("unused = [", "#"))
    run = ["run", "--runtimes", mine["folder"], "-r", "mine", "-w", "spawn", "--profile", "smoke", "--db", mine["db"]]
    before = concbench("doctor", "--runtimes", mine["folder"]).stdout
    assert "mine             not found (concbench setup --provide mine)" in before, before
    assert_one_line_error(
        concbench("setup", "--runtimes", mine["folder"], "--provide", "nosuch"), "--provide nosuch", "mine"
    )
    done = concbench("setup", "--runtimes", mine["folder"], "--provide", "mine")
    assert done.returncode == 0 and provided.exists(), done.stdout + done.stderr
    after = concbench(*run)
    assert after.returncode == 0 and "mine/thread" in after.stdout and "1/1" in after.stdout, after.stdout


def test_a_failing_provide_command_is_one_line(mine):
    manifest = mine["folder"] / "runtime.toml"
    manifest.write_text(manifest.read_text().replace("command = ", 'provide = ["false"]\ncommand = '))
    env = {**_environ(), "CONCBENCH_BUILTINS": "off"}  # all: only mine
    done = concbench("setup", "--runtimes", mine["folder"], "--provide", "all", env=env)
    assert_one_line_error(done, "mine: providing failed (false: exit 1)")
