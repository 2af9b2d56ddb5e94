"""concbench merge: the runs of SQLite files copied into one store, a SQLite
file or a PostgreSQL server, each run and trial once, the sources only read,
and the store left as it was when anything goes wrong."""

import contextlib
import dataclasses
import os
import shutil
import sqlite3

import pytest
from cluster import PASSWORD, Cluster, server_bin
from conftest import FIXTURES, assert_one_line_error, concbench

from concbench.store import open_store


def stored_runs(env, path, *args, times=1):
    for _ in range(times):
        done = concbench("run", "-w", "triangle", "-m", "honest", "--profile", "smoke", "--db", path, *args, env=env)
        assert done.returncode == 0, done.stderr
    return path


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """a.db: one run of 2 trials and a cell n/a above its limit; b.db: two runs of 1 trial. Made once."""
    folder = tmp_path_factory.mktemp("sources")
    env = {
        **os.environ,
        "CONCBENCH_BUILTINS": "off",
        "CONCBENCH_WORKLOADS": str(FIXTURES / "workloads"),
        "CONCBENCH_RUNTIMES": str(FIXTURES / "runtimes"),
    }
    a = stored_runs(env, folder / "a.db", "--trials", "2", "-p", "n=10,600")
    b = stored_runs(env, folder / "b.db", "-p", "n=20", times=2)
    return a, b


@pytest.fixture
def sources(stored, tmp_path):
    return tuple(shutil.copy(path, tmp_path / path.name) for path in stored)


def merged(*args, env):
    done = concbench("merge", *args, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def shown(db, run, env):
    """A run's tables but for their first line, which names the run by its number in that database."""
    done = concbench("show", "--db", db, run, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()[1:]


def contents(location, run_id):
    """All a store holds of a run but its number."""
    found = open_store(str(location), create=False)
    reads = (found.trials, found.skipped, found.notes, found.floors, found.calibrations, found.progress, found.probes)
    return dataclasses.replace(found.run(run_id), id=None), *(read(run_id) for read in reads)


def assert_same_runs(source, source_runs, into, into_runs):
    assert [contents(into, run) for run in into_runs] == [contents(source, run) for run in source_runs]


def run_ids(location) -> list[int]:
    return [run.id for run in open_store(location, create=False).runs()]


def dump(path) -> list[str]:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return list(db.iterdump())


def count(path, table) -> int:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def torn_copy(source, path):
    """A copy of source sound up to its trials, whose page is garbage."""
    shutil.copy(source, path)
    with contextlib.closing(sqlite3.connect(path)) as db:
        page = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'trials'").fetchone()[0]
        size = db.execute("PRAGMA page_size").fetchone()[0]
    with open(path, "r+b") as f:
        f.seek((page - 1) * size)
        f.write(b"\xff" * size)
    return path


def test_two_files_are_merged_into_a_third_as_they_are(sources, fake_env, tmp_path):
    a, b = sources
    before = a.read_bytes(), b.read_bytes()
    into = tmp_path / "all.db"
    assert merged(a, b, "--into", into, env=fake_env) == [
        f"{a}: 1 runs, 1 new, 2 trials added, 0 already there",
        f"{b}: 2 runs, 2 new, 2 trials added, 0 already there",
        f"total into {into}: 3 runs, 3 new, 4 trials added, 0 already there",
    ]
    assert (a.read_bytes(), b.read_bytes()) == before  # only read
    assert [count(into, table) for table in ("runs", "trials", "samples", "skipped")] == [3, 4, 4, 1]
    assert count(into, "probes") == count(a, "probes") + count(b, "probes") > 0
    assert_same_runs(a, [1], into, [1])
    assert_same_runs(b, [1, 2], into, [2, 3])
    assert shown(into, 3, fake_env) == shown(b, 2, fake_env)


def test_merging_again_adds_nothing(sources, fake_env, tmp_path):
    a, b = sources
    into = tmp_path / "all.db"
    merged(a, b, "--into", into, env=fake_env)
    once = dump(into)
    assert merged(a, b, a, "--into", into, env=fake_env)[-1] == (
        f"total into {into}: 4 runs, 0 new, 0 trials added, 6 already there"
    )
    assert dump(into) == once


def test_a_run_in_two_files_is_one_run_with_each_trial_once(sources, fake_env, tmp_path):
    a, _ = sources
    partial = shutil.copy(a, tmp_path / "partial.db")  # as if copied off the machine before its last trial
    with contextlib.closing(sqlite3.connect(partial)) as db:
        last = db.execute("SELECT max(id) FROM trials").fetchone()[0]
        db.execute("DELETE FROM samples WHERE trial_id = ?", (last,))
        db.execute("DELETE FROM trials WHERE id = ?", (last,))
        db.commit()
    into = tmp_path / "all.db"
    assert (
        merged(partial, "--into", into, env=fake_env)[0] == f"{partial}: 1 runs, 1 new, 1 trials added, 0 already there"
    )
    assert merged(a, "--into", into, env=fake_env)[0] == f"{a}: 1 runs, 0 new, 1 trials added, 1 already there"
    assert [count(into, table) for table in ("runs", "trials", "samples", "skipped", "floors")] == [1, 2, 2, 1, 1]
    assert_same_runs(a, [1], into, [1])


def test_a_source_of_another_schema_is_refused_and_nothing_changes(sources, fake_env, tmp_path):
    a, b = sources
    into = tmp_path / "all.db"
    merged(b, "--into", into, env=fake_env)
    before = dump(into)
    for version, advice in ((7, "concbench show --db"), (9, "update concbench")):
        other = shutil.copy(a, tmp_path / f"v{version}.db")
        with contextlib.closing(sqlite3.connect(other)) as db:
            db.execute(f"PRAGMA user_version = {version}")
        untouched = other.read_bytes()
        done = concbench("merge", b, other, "--into", into, env=fake_env)
        assert_one_line_error(done, str(other), f"schema {version}", "(schema 8)", advice)
        assert other.read_bytes() == untouched  # never migrated
        assert dump(into) == before


def test_a_damaged_source_is_refused_and_the_store_is_left_as_it_was(sources, fake_env, tmp_path):
    a, b = sources
    into = tmp_path / "all.db"
    merged(b, "--into", into, env=fake_env)
    before = dump(into)
    garbage = tmp_path / "garbage.db"
    garbage.write_text("not a database\n")
    done = concbench("merge", a, garbage, "--into", into, env=fake_env)
    assert_one_line_error(done, f"database {garbage} is damaged or not a concbench database")
    torn = torn_copy(a, tmp_path / "torn.db")  # found damaged midway, after a.db's run was copied
    done = concbench("merge", a, torn, "--into", into, env=fake_env)
    assert_one_line_error(done, f"database {torn} is damaged or not a concbench database")
    assert dump(into) == before
    done = concbench("merge", garbage, "--into", tmp_path / "new.db", env=fake_env)
    assert_one_line_error(done, str(garbage))
    assert not (tmp_path / "new.db").exists()  # every source is checked before the store is made


def test_the_store_cannot_be_a_source_and_must_be_given(sources, fake_env, tmp_path, monkeypatch):
    a, b = sources
    monkeypatch.chdir(tmp_path)
    done = concbench("merge", b, "a.db", "--into", a, env=fake_env)
    assert_one_line_error(done, f"--into {a} is also a source")
    assert_one_line_error(concbench("merge", a, env=fake_env), "--into")
    assert_one_line_error(concbench("merge", "--into", "x.db", env=fake_env), "FILE")
    done = concbench("merge", "-h", env=fake_env)
    assert done.returncode == 0 and "--into FILE|URL" in done.stdout


@pytest.fixture(scope="module")
def cluster():
    found = server_bin()
    if found is None:
        pytest.skip("no PostgreSQL server installed (Debian's postgresql): merging into one is not tested")
    cluster = Cluster(found)
    yield cluster
    cluster.remove()


def test_files_are_merged_into_a_postgresql_database_and_back(cluster, sources, fake_env, tmp_path, monkeypatch):
    a, b = sources
    cluster.new_database("merged")
    url = cluster.url("merged", password=None)  # its password off the command line, as docs/fleet.md says
    monkeypatch.setenv("PGPASSWORD", PASSWORD)
    fake_env = {**fake_env, "PGPASSWORD": PASSWORD}
    merged(b, "--into", url, env=fake_env)
    done = concbench("merge", a, torn_copy(b, tmp_path / "torn.db"), "--into", url, env=fake_env)
    assert_one_line_error(done, "torn.db is damaged or not a concbench database")
    assert len(run_ids(url)) == 2  # a.db's run, copied before the damage was found, is not there
    lines = merged(a, b, "--into", url, env=fake_env)
    assert lines[-1].endswith(": 3 runs, 1 new, 2 trials added, 2 already there")
    assert PASSWORD not in "\n".join(lines)
    ids = run_ids(url)  # the server's own: the copy that was rolled back took a number
    assert_same_runs(b, [1, 2], url, ids[:2])
    assert_same_runs(a, [1], url, ids[2:])
    back = tmp_path / "back.db"
    assert merged(url, "--into", back, env=fake_env)[-1].endswith(": 3 runs, 3 new, 4 trials added, 0 already there")
    assert_same_runs(url, ids, back, [1, 2, 3])
