"""A PostgreSQL store, on a real server: the same commands as on SQLite,
workers that drain one stored plan between them (one killed mid-trial), a
server restarted mid-run, and one-line errors for a bad or unreachable one."""

import dataclasses
import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import old_schemas
import psycopg
import pytest
from cluster import PASSWORD, USER, Cluster, server_bin
from conftest import assert_one_line_error, concbench

from concbench import worker
from concbench.records import CellKey, Probe, TrialRecord
from concbench.status import Status
from concbench.store import open_store, postgresql, schema


@pytest.fixture(scope="module")
def server():
    bin_dir = server_bin()
    if bin_dir is None:
        pytest.skip(
            "no PostgreSQL server installed (make test installs Debian's postgresql): apt-get install postgresql"
        )
    try:
        found = Cluster(bin_dir)
    except (RuntimeError, OSError) as e:
        pytest.skip(f"cannot start a throwaway PostgreSQL cluster: {e}")
    yield found
    found.remove()


@pytest.fixture
def database(server, request) -> str:
    """A fresh database on the server, named after the test: its name."""
    name = request.node.name.replace("[", "_").replace("]", "")[:60]
    server.new_database(name)
    return name


@pytest.fixture
def pg_env(server, database, fake_env, tmp_path):
    """The fake suite's environment with a fresh database on the server, and
    a state folder of its own for the journal."""
    return {**fake_env, "CONCBENCH_DB": server.url(database), "XDG_STATE_HOME": str(tmp_path / "state")}


def rows(env, sql, params=()):
    with psycopg.connect(env["CONCBENCH_DB"]) as db:
        return db.execute(sql, params).fetchall()


def stored_trials(env) -> int:
    """How many trials the run stored so far (none before its tables exist)."""
    try:
        return rows(env, "SELECT count(*) FROM trials")[0][0]
    except psycopg.Error:
        return 0


def background(*args, env):
    return subprocess.Popen(
        [sys.executable, "-m", "concbench", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        stdin=subprocess.DEVNULL,
    )


def wait_for(condition, timeout=60):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_the_commands_work_on_a_server_as_on_a_file(pg_env, tmp_path):
    for _ in range(2):
        done = concbench(
            "run", "-w", "triangle", "-m", "honest,slow", "--profile", "smoke", "--trials", "2", env=pg_env
        )
        assert done.returncode == 0, done.stderr
    assert "fake/slow" in concbench("show", env=pg_env).stdout
    assert concbench("compare", "1", "2", env=pg_env).returncode == 0
    assert "fake/honest" in concbench("history", env=pg_env).stdout
    trials = [json.loads(line) for line in concbench("show", "--json", env=pg_env).stdout.splitlines()]
    assert len(trials) == 4 and {t["status"] for t in trials} == {"ok"}
    page = tmp_path / "r.html"
    assert concbench("report", "-o", page, env=pg_env).returncode == 0 and "fake/slow" in page.read_text()
    assert rows(pg_env, "SELECT version FROM concbench_schema") == [(schema.SCHEMA_VERSION,)]
    assert rows(pg_env, "SELECT count(*) > 0 FROM probes GROUP BY run_id ORDER BY run_id") == [(True,), (True,)]
    assert not leaks(concbench("show", env=pg_env).stdout)  # the password is never shown


def test_two_workers_drain_one_plan_and_no_trial_runs_twice(pg_env):
    planned = concbench(
        "run", "-w", "triangle", "-m", "honest,slow", "--profile", "smoke", "--trials", "3", "--plan-only", env=pg_env
    )
    assert planned.returncode == 0, planned.stderr
    assert "planned 2 cells x 3 trials = 6 trials" in planned.stdout
    assert rows(pg_env, "SELECT count(*) FROM trials") == [(0,)]  # a plan runs nothing
    workers = [background("worker", "--machine", name, env=pg_env) for name in ("a", "b")]
    outputs = [w.communicate(timeout=120) for w in workers]
    assert [w.returncode for w in workers] == [0, 0], outputs
    stored = rows(pg_env, "SELECT cell, trial, machine FROM trials")
    assert len(stored) == 6 and len({(cell, trial) for cell, trial, _ in stored}) == 6
    assert {machine for *_, machine in stored} == {"a", "b"}  # both took trials
    assert rows(pg_env, "SELECT DISTINCT state, claims FROM planned") == [("done", 1)]  # each claimed once
    shown = concbench("show", env=pg_env).stdout
    assert "plan: 6 of 6 trials done, 0 waiting" in shown and "complete" in shown
    again = concbench("worker", env=pg_env)
    assert_one_line_error(again, "no stored plan with trials waiting")


def test_an_interrupted_worker_counts_the_trials_it_stored_not_the_runs(pg_env):
    planned = concbench(
        "run", "-w", "triangle", "-m", "slow", "--profile", "smoke", "--trials", "8", "--plan-only", env=pg_env
    )
    assert planned.returncode == 0, planned.stderr
    for name, total in (("first", 2), ("second", 3)):  # the second stores one beside the first's two
        taker = background("worker", "--machine", name, env=pg_env)
        wait_for(lambda total=total: stored_trials(pg_env) >= total)
        taker.send_signal(signal.SIGINT)
        out, err = taker.communicate(timeout=60)
        ran = rows(pg_env, "SELECT count(*) FROM trials WHERE machine = %s", (name,))[0][0]
        assert re.search(rf"interrupted: worker {name}@\S+ stored {ran} trials", out), (out, err)
    assert ran < stored_trials(pg_env)


def test_a_killed_workers_trial_is_claimed_again_once_its_lease_lapses(pg_env):
    planned = concbench(
        "run", "-w", "triangle", "-m", "slow", "--profile", "smoke", "--trials", "3", "--timeout", "3", "--plan-only",
        env=pg_env,
    )  # fmt: skip
    assert planned.returncode == 0, planned.stderr
    doomed = background("worker", "--machine", "doomed", "--grace", "1", env=pg_env)
    wait_for(lambda: rows(pg_env, "SELECT count(*) FROM planned WHERE state = 'claimed'") == [(1,)])
    time.sleep(0.3)  # into its trial
    doomed.send_signal(signal.SIGKILL)
    doomed.communicate()
    held = rows(pg_env, "SELECT cell, trial FROM planned WHERE state = 'claimed'")
    assert len(held) == 1
    survivor = concbench("worker", "--machine", "survivor", env=pg_env, timeout=120)
    assert survivor.returncode == 0, survivor.stderr
    stored = rows(pg_env, "SELECT cell, trial, machine FROM trials")
    assert len(stored) == 3 and {machine for *_, machine in stored} == {"survivor"}
    assert rows(pg_env, "SELECT cell, trial FROM planned WHERE claims = 2") == held  # the dead one's, again
    assert "1 claimed again after a worker's lease lapsed" in concbench("show", env=pg_env).stdout


def test_a_server_restarted_mid_run_loses_no_finished_trial(server, pg_env):
    run = background("run", "-w", "triangle", "-m", "slow", "--profile", "smoke", "--trials", "6", env=pg_env)
    wait_for(lambda: stored_trials(pg_env) >= 1)
    server.stop()
    time.sleep(1.5)  # trials finish while it is down
    server.start()
    out, err = run.communicate(timeout=120)
    assert run.returncode == 0, err
    assert "connection lost" in out and "finished trials wait in" in out  # the journal kept them
    assert "trials that waited in the journal" in out
    stored = rows(pg_env, "SELECT trial, status FROM trials ORDER BY trial")
    assert stored == [(index, "ok") for index in range(6)]
    assert rows(pg_env, "SELECT state FROM runs") == [("complete",)]


def test_a_bad_or_unreachable_server_gets_one_line_and_nothing_written(server, pg_env, fake_env):
    cases = [
        ("postgresql://who@[::1/x", "is malformed"),
        ("postgresql://who@127.0.0.1:1/nothing?connect_timeout=2", "cannot connect"),
        (server.url(password="wrong"), "password authentication failed"),
    ]
    for url, fragment in cases:
        done = concbench(
            "run", "-w", "triangle", "-m", "honest", "--profile", "smoke", env={**fake_env, "CONCBENCH_DB": url}
        )
        assert_one_line_error(done, "database", fragment)
    assert_one_line_error(concbench("show", env=pg_env), "no runs stored yet")
    assert concbench("run", "-w", "triangle", "-m", "honest", "--profile", "smoke", env=pg_env).returncode == 0
    with psycopg.connect(pg_env["CONCBENCH_DB"], autocommit=True) as db:
        db.execute("UPDATE concbench_schema SET version = 99")
    for command in (["show"], ["run", "-w", "triangle", "-m", "honest", "--profile", "smoke"]):
        assert_one_line_error(concbench(*command, env=pg_env), "has schema 99, from a newer concbench")
    assert rows(pg_env, "SELECT count(*) FROM runs") == [(1,)]


def test_plan_only_and_worker_need_a_server(fake_env):
    assert_one_line_error(concbench("run", "-w", "triangle", "--plan-only", env=fake_env), "give a PostgreSQL database")
    assert_one_line_error(concbench("run", "-w", "triangle", "--plan-only", "--budget", "1m", env=fake_env), "--budget")
    concbench("run", "-w", "triangle", "-m", "honest", "--profile", "smoke", env=fake_env)
    assert_one_line_error(concbench("worker", env=fake_env), "takes trials from a PostgreSQL database")


def test_a_worker_goes_on_through_a_server_restart(server, pg_env):
    planned = concbench(
        "run", "-w", "triangle", "-m", "slow", "--profile", "smoke", "--trials", "6", "--plan-only", env=pg_env
    )
    assert planned.returncode == 0, planned.stderr
    taker = background("worker", env=pg_env)
    wait_for(lambda: stored_trials(pg_env) >= 1)
    server.stop()
    time.sleep(1.5)
    server.start()
    out, err = taker.communicate(timeout=120)
    assert taker.returncode == 0, err
    assert "plan: 6 of 6 trials done" in out
    assert rows(pg_env, "SELECT count(*), count(DISTINCT trial) FROM trials") == [(6, 6)]
    assert rows(pg_env, "SELECT DISTINCT state, claims FROM planned") == [("done", 1)]


def test_trials_kept_while_the_server_stays_away_are_sent_by_the_next_command(server, pg_env, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", pg_env["XDG_STATE_HOME"])
    store = open_store(pg_env["CONCBENCH_DB"])
    run_id = store.begin_run({"profile": "smoke"}, {})
    cell = CellKey("triangle", "fake", "honest", (("n", 10),))
    server.stop()
    try:
        for index in range(2):
            assert store.add_trial(run_id, TrialRecord(cell, index, Status.OK, "", {"area": 50}, wall_ns=index + 1))
        assert store.journal.pending() == 2 and store.journal.path.exists()
        assert store.send_journal(wait=False) == 2  # still away: they stay
    finally:
        server.start()
    store.journal._held.close()  # as if the run had ended: its journal is an orphan now
    later = open_store(pg_env["CONCBENCH_DB"], create=False)  # the next command sends them
    assert [(t.trial, t.wall_ns) for t in later.trials(run_id)] == [(0, 1), (1, 2)]
    assert later.journal.pending() == 0 and not list(later.journal.folder.iterdir())


def test_a_journaled_trial_whose_claim_lapsed_is_not_counted_as_stored(server, pg_env, monkeypatch, tmp_path):
    """The worker kept its trial while the server was away; meanwhile its
    lease lapsed and another worker stored the trial: the first is told so."""
    monkeypatch.setenv("XDG_STATE_HOME", pg_env["XDG_STATE_HOME"])
    store = open_store(pg_env["CONCBENCH_DB"])
    run_id = store.begin_run({"profile": "smoke"}, {})
    record = TrialRecord(CellKey("triangle", "fake", "honest", (("n", 10),)), 0, Status.OK, "", {"area": 50}, wall_ns=1)
    store.add_plan(run_id, [(record.cell.id, 0)])
    assert store.claim(run_id, "first", lease_s=0) == (record.cell.id, 0)
    server.stop()
    try:
        assert store.add_trial(run_id, record, claim="first")  # kept in the journal
    finally:
        server.start()
    time.sleep(2.1)  # past the lease, counted in whole seconds
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "another"))  # another machine's worker
    other = open_store(pg_env["CONCBENCH_DB"], create=False)
    assert other.claim(run_id, "second", lease_s=60) == (record.cell.id, 0)
    assert other.add_trial(run_id, dataclasses.replace(record, wall_ns=2), claim="second")
    said = []
    store.said = said.append
    assert store.send_journal(wait=True) == 0
    assert said[-1].endswith(
        "sent the 1 trials that waited in the journal; 1 not stored: their claims lapsed and other workers took them"
    )
    first = SimpleNamespace(store=store, name="first", said=said.append, kept=[record])
    assert worker.Worker.stored(first) == []
    assert "not stored: its claim lapsed" in said[-1]
    assert rows(pg_env, "SELECT wall_ns FROM trials") == [(2,)]


def test_a_schema_7_database_gets_probes_and_a_probe_while_the_server_is_away_is_dropped(server, pg_env, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", pg_env["XDG_STATE_HOME"])
    run_id = open_store(pg_env["CONCBENCH_DB"]).begin_run({"profile": "smoke"}, {})
    with psycopg.connect(pg_env["CONCBENCH_DB"], autocommit=True) as db:
        db.execute("DROP TABLE probes")  # and the columns schemas 9 and 10 added: the tables of schema 7
        db.execute("ALTER TABLE samples DROP COLUMN latency")
        db.execute("ALTER TABLE trials DROP COLUMN cpus, DROP COLUMN cpu_set")
        db.execute("UPDATE concbench_schema SET version = 7")
    store = open_store(pg_env["CONCBENCH_DB"], create=False)
    assert rows(pg_env, "SELECT version FROM concbench_schema") == [(schema.SCHEMA_VERSION,)]
    store.add_probe(run_id, Probe(1, 4_000_000))
    server.stop()
    try:
        store.add_probe(run_id, Probe(2, 5_000_000))  # neither waits for the server nor fails the run
        assert store.journal.pending() == 0
    finally:
        server.start()
    assert open_store(pg_env["CONCBENCH_DB"], create=False).probes(run_id) == [Probe(1, 4_000_000)]


# Secrets: a database password is never printed, never on a command line that
# concbench asks for, and never in a trial's environment.

SECRET = "n0t-for-your-eyes"


def leaks(text: str) -> bool:
    """Whether the test cluster's password is in the text, as it is or percent-encoded."""
    return PASSWORD in text or PASSWORD.replace(" ", "%20") in text


@pytest.mark.parametrize(
    ("url", "masked"),
    [
        (f"postgresql://who:{SECRET}@db/x", "postgresql://who:***@db/x"),
        (f"postgres://:{SECRET}@/x?host=/run/pg", "postgres://:***@/x?host=/run/pg"),
        (
            f"postgresql://who@db/x?sslmode=require&password={SECRET}",
            "postgresql://who@db/x?sslmode=require&password=***",
        ),
        (f"postgresql://who@db/x?password={SECRET}&port=5433", "postgresql://who@db/x?password=***&port=5433"),
        (f"postgresql://who@db/x?pass%77ord={SECRET}", "postgresql://who@db/x?pass%77ord=***"),  # libpq decodes keys
        # libpq refuses a key in capitals; masked all the same
        (f"postgresql://who@db/x?PASSWORD={SECRET}", "postgresql://who@db/x?PASSWORD=***"),
        (f"postgresql://who@db/x?sslpassword={SECRET}", "postgresql://who@db/x?sslpassword=***"),
        (f"postgresql://who:{SECRET}@db/x?password={SECRET}", "postgresql://who:***@db/x?password=***"),
        (f"postgresql://who:a?{SECRET}@db/x", "postgresql://who:***@db/x"),  # libpq reads on past a '?'
        (f"postgresql://who:a@{SECRET}@db/x", "postgresql://who:***@db/x"),  # as meant, not as libpq reads it
        (f"postgresql://who:a/{SECRET}@db/x", "postgresql://who:***@db/x"),
        (f"postgresql://who:{SECRET}@[::1/x", "postgresql://who:***@[::1/x"),
        ("postgresql://who@db/x?application_name=a:b@c", "postgresql://who@db/x?application_name=a:b@c"),
        ("postgresql://who:@db/x?password=", "postgresql://who:@db/x?password="),  # empty: no password
    ],
)
def test_every_form_of_password_in_a_url_is_masked(url, masked):
    assert postgresql.shown(url) == masked
    assert postgresql.has_password(url) == (SECRET in url)


def test_a_password_is_in_no_error_whatever_the_url_or_the_server_says(server, fake_env):
    cases = [
        (f"postgresql://who:{SECRET}@[::1/x", "is malformed"),  # libpq's message quotes the whole URL
        (f"postgresql://who@db/x?password=%zz{SECRET}", "is malformed"),  # and a token it cannot decode
        (f"postgresql://who:a%zz{SECRET}@db/x", "is malformed"),
        (f"postgresql://who:a@{SECRET}@127.0.0.1/x", "percent-encode"),  # libpq would try the host '{SECRET}@...'
        (f"postgresql://who:a/{SECRET}@127.0.0.1/x", "percent-encode"),  # or the port 'a'
        (f"postgresql://who@127.0.0.1:1/x?connect_timeout=2&password={SECRET}", "cannot connect"),
        (server.url(password=SECRET), "password authentication failed"),
        (server.url(password=None) + f"&pass%77ord={SECRET}", "password authentication failed"),
    ]
    for url, fragment in cases:
        done = concbench("show", env={**fake_env, "CONCBENCH_DB": url})
        assert_one_line_error(done, "database", fragment)
        assert SECRET not in done.stderr + done.stdout, url


def test_a_password_in_the_query_is_in_no_progress_line(server, database, fake_env, tmp_path):
    url = server.url(database, password=None) + "&password=" + PASSWORD.replace(" ", "%20")
    env = {**fake_env, "CONCBENCH_DB": url, "XDG_STATE_HOME": str(tmp_path / "state")}
    commands = [  # each names the database
        ["run", "-w", "triangle", "-m", "honest", "--profile", "smoke", "--trials", "2", "--plan-only"],
        ["worker"],
        ["run", "-w", "triangle", "-m", "honest", "--profile", "smoke"],
    ]
    for command in commands:
        done = concbench(*command, env=env)
        assert done.returncode == 0, done.stderr
        assert "password=***" in done.stdout and not leaks(done.stdout + done.stderr)


def test_a_password_on_the_command_line_gets_one_warning_and_one_in_the_environment_none(fake_env):
    def unreachable(name, password=SECRET):
        return f"postgresql://who@127.0.0.1:1/{name}?connect_timeout=2&password={password}"

    merged = concbench("merge", unreachable("a"), unreachable("b"), "--into", unreachable("c"), env=fake_env)
    warnings = [line for line in merged.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "~/.pgpass, a service file or PGPASSWORD" in warnings[0], merged.stderr
    assert "every local user" in concbench("show", "--db", unreachable("x"), env=fake_env).stderr
    assert_one_line_error(concbench("show", env={**fake_env, "CONCBENCH_DB": unreachable("x")}), "cannot connect")
    assert_one_line_error(concbench("show", "--db", unreachable("x", password=""), env=fake_env), "cannot connect")


def test_each_safe_way_to_give_a_password_works_and_keeps_it_off_the_command_line(server, database, fake_env, tmp_path):
    bare = server.url(database, password=None)
    service = f"[bench]\nhost={server.socket}\nuser={USER}\ndbname={database}\npassword={PASSWORD}\n"
    ways = {
        "PGPASSWORD": ({"PGPASSWORD": PASSWORD}, {}, ["--db", bare]),
        "~/.pgpass": ({}, {".pgpass": f"*:*:*:{USER}:{PASSWORD}\n"}, ["--db", bare]),
        "a service file": ({}, {".pg_service.conf": service}, ["--db", "postgresql://?service=bench"]),
        "$CONCBENCH_DB": ({"CONCBENCH_DB": server.url(database)}, {}, []),
    }
    for way, (variables, files, arguments) in ways.items():
        home = tmp_path / way.strip("~/$")
        home.mkdir()
        for name, text in files.items():
            (home / name).write_text(text)
            (home / name).chmod(0o600)  # libpq ignores a ~/.pgpass others can read
        env = {**fake_env, "HOME": str(home), "XDG_STATE_HOME": str(home / "state"), **variables}
        run = background("run", "-w", "triangle", "-m", "slow", "--profile", "smoke", *arguments, env=env)
        proc = Path(f"/proc/{run.pid}/cmdline")  # what ps shows every local user
        wait_for(proc.read_bytes)  # empty while the process is still in exec
        command_line = proc.read_bytes().decode()
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0 and not err, (way, err)
        assert "concbench" in command_line and not leaks(command_line), way
        assert not leaks(out), way
    assert rows({"CONCBENCH_DB": server.url(database)}, "SELECT count(*) FROM runs") == [(len(ways),)]


def test_a_trial_cannot_print_the_database_password(pg_env):
    """Nor stop the run with the NULs between the variables, which no
    PostgreSQL text holds: each is stored as U+FFFD."""
    env = {
        **pg_env,
        "PGPASSWORD": SECRET,
        "FAKE_STDERR": "/proc/self/environ",  # the trial prints its whole environment
        "FAKE_EXIT": "1",
    }
    done = concbench("run", "-w", "triangle", "-m", "says", "--profile", "smoke", env=env)
    assert done.returncode == 1, done.stderr
    (trial,) = [json.loads(line) for line in concbench("show", "--json", env=pg_env).stdout.splitlines()]
    assert "\ufffdFAKE_EXIT=1\ufffd" in trial["stderr"]  # it did print it
    assert SECRET not in trial["stderr"] and "CONCBENCH_DB=" not in trial["stderr"]


def shape(url: str) -> set:
    """A database's columns, with their types, constraints and defaults, and
    its indexes, their names left out."""
    columns = rows(
        {"CONCBENCH_DB": url},
        "SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns "
        "WHERE table_schema = 'public'",
    )
    indexes = rows({"CONCBENCH_DB": url}, "SELECT tablename, indexdef FROM pg_indexes WHERE schemaname = 'public'")
    return set(columns) | {(table, re.sub(r"INDEX \S+ ON", "INDEX ON", made)) for table, made in indexes}


def test_a_database_of_schema_7_migrates_to_exactly_the_current_one(server, database):
    old = server.url(database)
    with psycopg.connect(old, autocommit=True) as db:
        db.execute(schema.for_postgresql(old_schemas.postgresql_schema_7()))
        db.execute("CREATE TABLE concbench_schema (version INTEGER NOT NULL)")
        db.execute("INSERT INTO concbench_schema VALUES (7)")
    open_store(old, create=False)
    fresh = server.new_database(f"{database[:40]}_fresh")
    open_store(fresh)
    assert shape(old) == shape(fresh)
    assert rows({"CONCBENCH_DB": old}, "SELECT version FROM concbench_schema") == [(schema.SCHEMA_VERSION,)]
