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
        assert f"mine is missing ({hint})" in done.stdout, done.stdout
        assert f"not found ({hint})" in concbench("doctor", "--runtimes", mine["folder"]).stdout
