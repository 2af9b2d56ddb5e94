"""concbench merge: the runs of SQLite files copied into one store, a SQLite
file or a PostgreSQL server, each run and trial once, the sources only read,
and the store left as it was when anything goes wrong: a hostile source's
rows are refused in one line before the store is touched."""

import contextlib
import dataclasses
import os
import shutil
import sqlite3

import pytest
from cluster import PASSWORD, Cluster, server_bin
from conftest import FIXTURES, assert_one_line_error, concbench

from concbench.store import open_store, schema, validate


def stored_runs(env, path, *args, times=1):
    for _ in range(times):
        done = concbench("run", "-w", "triangle", "-m", "honest", "--profile", "smoke", "--db", path, *args, env=env)
        assert done.returncode == 0, done.stderr
    return path


FAKE_SUITE = {
    "CONCBENCH_BUILTINS": "off",
    "CONCBENCH_WORKLOADS": str(FIXTURES / "workloads"),
    "CONCBENCH_RUNTIMES": str(FIXTURES / "runtimes"),
}


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """a.db: one run of 2 trials and a cell n/a above its limit; b.db: two runs of 1 trial. Made once."""
    folder = tmp_path_factory.mktemp("sources")
    env = {**os.environ, **FAKE_SUITE}
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
    current = schema.SCHEMA_VERSION
    for version, advice in ((current - 1, "concbench show --db"), (current + 1, "update concbench")):
        other = shutil.copy(a, tmp_path / f"v{version}.db")
        with contextlib.closing(sqlite3.connect(other)) as db:
            db.execute(f"PRAGMA user_version = {version}")
        untouched = other.read_bytes()
        done = concbench("merge", b, other, "--into", into, env=fake_env)
        assert_one_line_error(done, str(other), f"schema {version}", f"(schema {current})", advice)
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


def forged(source, path, *changes):
    """A copy of source with its rows changed as an attacker would: each change
    an SQL statement and its parameters."""
    shutil.copy(source, path)
    with contextlib.closing(sqlite3.connect(path)) as db:
        for sql, *params in changes:
            db.execute(sql, params)
        db.commit()
    return path


NESTED = "[" * 100_000
FIFTY_MB = "x" * (50 << 20)
# Each attack on a.db (run 1, trials 1 and 2 of triangle n=10, each verified
# with one sample of total 55): its changes, and the row and reason of the
# error it must end in.
ATTACKS = {
    "an environment that is not JSON": (
        [("UPDATE runs SET environment = '[1,2'",)],
        "run 1: environment: Expecting ',' delimiter",
    ),
    "an environment nested 100,000 deep": (
        [("UPDATE runs SET environment = ?", NESTED)],
        "run 1: environment: answer nested deeper than 16",
    ),
    "a result nested 100,000 deep": (
        [("UPDATE samples SET result = ? WHERE trial_id = 2", NESTED)],
        "run 1 trial 2: sample 1: result: answer nested deeper than 16",
    ),
    "a run's state no concbench writes": ([("UPDATE runs SET state = 'done'",)], "run 1: state: Input should be"),
    "a request no run could make": (
        [("UPDATE runs SET request = json_set(request, '$.trials', 0)",)],
        "run 1: request: trials: Input should be greater than or equal to 1",
    ),
    "a sample of wall_ns -1": (
        [("UPDATE samples SET wall_ns = -1 WHERE trial_id = 2",)],
        "run 1 trial 2: sample 1: wall_ns: Input should be greater than or equal to 0",
    ),
    "a result of 1e29": (
        [("UPDATE samples SET result = '{\"total\": 1e29}' WHERE trial_id = 2",)],
        "run 1 trial 2: sample 1: result: a number that is not an integer: 1e29",
    ),
    "a result of 30 digits": (
        [("UPDATE samples SET result = ? WHERE trial_id = 2", '{"total": ' + "9" * 30 + "}")],
        "run 1 trial 2: sample 1: result: an integer of 30 digits",
    ),
    "50 MB of stderr": (
        [("UPDATE trials SET stderr = ? WHERE id = 2", FIFTY_MB)],
        "run 1 trial 2: stderr: String should have at most 65536 characters",
    ),
    "a status no concbench writes": (
        [("UPDATE trials SET status = 'great' WHERE id = 2",)],
        "run 1 trial 2: status: Input should be 'ok'",
    ),
    "a wrong result stored as ok": (
        [("UPDATE samples SET result = '{\"total\": 56}' WHERE trial_id = 2",)],
        "run 1 trial 2: stored as ok, but its samples make it invalid: run 1: total = 56, expected 55",
    ),
    "a wrong result with an expectation forged to match": (
        [
            ("UPDATE samples SET result = '{\"total\": 56}' WHERE trial_id = 2",),
            ("UPDATE trials SET expected = '{\"total\": 56}' WHERE id = 2",),
        ],
        "run 1 trial 2: stored as ok, but its samples make it invalid: run 1: total = 56, expected 55",
    ),
    "runs that took longer than their process": (
        [("UPDATE trials SET wall_ns = 10 WHERE id = 2",)],
        "run 1 trial 2: stored as ok, but its samples make it invalid: its runs took",
    ),
    "processes left running, stored as ok": (
        [("UPDATE trials SET strays = 2 WHERE id = 2",)],
        "run 1 trial 2: stored as ok, but its samples make it stray: left 2 processes running",
    ),
    "a verified trial of a workload not known here": (
        [("UPDATE trials SET workload = 'nothing', cell = 'nothing fake/honest n=10' WHERE id = 2",)],
        "run 1 trial 2: stored as ok, but its workload 'nothing' is not one this concbench knows",
    ),
    "a trial under another cell's name": (
        [("UPDATE trials SET cell = 'triangle fake/honest n=11' WHERE id = 2",)],
        "run 1 trial 2: cell 'triangle fake/honest n=11' is not its workload, row and parameters",
    ),
    "a floor of negative memory": (
        [("UPDATE floors SET maxrss_kb = -5",)],
        "run 1 floors row 1: maxrss_kb: Input should be greater than or equal to 0",
    ),
    "text where a count goes": (
        [("UPDATE probes SET work_ns = 'fast'",)],
        "run 1 probes row 1: work_ns: Input should be a valid integer",
    ),
}


@pytest.fixture(scope="module")
def b_merged(stored, tmp_path_factory):
    """A store that holds b.db's runs. Made once; copied by each test."""
    into = tmp_path_factory.mktemp("merged") / "all.db"
    merged(stored[1], "--into", into, env={**os.environ, **FAKE_SUITE})
    return into


@pytest.mark.parametrize("attack", ATTACKS)
def test_a_hostile_source_is_refused_in_one_line_and_the_store_is_left_as_it_was(
    attack, sources, b_merged, fake_env, tmp_path
):
    a, _ = sources
    into = shutil.copy(b_merged, tmp_path / "all.db")
    before = dump(into)
    changes, refusal = ATTACKS[attack]
    hostile = forged(a, tmp_path / "hostile.db", *changes)
    done = concbench("merge", a, hostile, "--into", into, env=fake_env)
    assert_one_line_error(done, f"merge: {hostile}: {refusal}")
    assert dump(into) == before  # a.db's run, checked and sound, is not copied either


def test_a_refused_merge_leaves_every_command_reading_the_store(sources, b_merged, fake_env, tmp_path):
    a, _ = sources
    into = shutil.copy(b_merged, tmp_path / "all.db")
    hostile = forged(a, tmp_path / "hostile.db", ("UPDATE runs SET environment = ?", NESTED))
    assert concbench("merge", hostile, "--into", into, env=fake_env).returncode == 2
    for command in (["show"], ["show", "1"], ["history"], ["report", "--format", "json"], ["compare", "1", "2"]):
        done = concbench(*command, "--db", into, env=fake_env)
        assert done.returncode == 0 and "Traceback" not in done.stderr, (command, done.stderr)
    new = tmp_path / "new.db"
    assert concbench("merge", hostile, "--into", new, env=fake_env).returncode == 2
    assert not new.exists()  # every row is checked before the store is made


def test_a_store_with_json_nested_too_deep_is_said_damaged_in_one_line(sources, fake_env, tmp_path):
    """Defence in depth: JSON no merge lets in, written into a store by hand."""
    _, b = sources
    damaged = forged(b, tmp_path / "damaged.db", ("UPDATE runs SET environment = ? WHERE id = 2", NESTED))
    for command in (["show"], ["history"], ["report", "--format", "json"]):
        done = concbench(*command, "--db", damaged, env=fake_env)
        assert_one_line_error(done, f"database {damaged} is damaged or not a concbench database")


def test_every_column_a_merge_copies_is_checked():
    for table in schema.TABLES:
        assert tuple(validate.ROWS[table].model_fields) == schema.columns(table), table


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


def test_a_hostile_source_is_refused_by_a_postgresql_store_too(cluster, sources, fake_env, tmp_path, monkeypatch):
    a, b = sources
    cluster.new_database("hostile")
    url = cluster.url("hostile", password=None)
    monkeypatch.setenv("PGPASSWORD", PASSWORD)
    fake_env = {**fake_env, "PGPASSWORD": PASSWORD}
    merged(b, "--into", url, env=fake_env)
    before = [contents(url, run) for run in run_ids(url)]
    for attack in (
        "an environment nested 100,000 deep",
        "a result of 1e29",
        "50 MB of stderr",
        "a wrong result with an expectation forged to match",
    ):
        changes, refusal = ATTACKS[attack]
        hostile = forged(a, tmp_path / "hostile.db", *changes)
        done = concbench("merge", a, hostile, "--into", url, env=fake_env)
        assert_one_line_error(done, f"merge: {hostile}: {refusal}")
        assert [contents(url, run) for run in run_ids(url)] == before, attack
    for command in (["show"], ["history"], ["report", "--format", "json"]):
        done = concbench(*command, "--db", url, env=fake_env)
        assert done.returncode == 0 and "Traceback" not in done.stderr, (command, done.stderr)
