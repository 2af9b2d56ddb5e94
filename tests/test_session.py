"""What `run` and `worker` do between parsing and printing, called directly
on the fake runtime: what is stored, what is refused, and how an interrupted
run ends."""

import io
import os
import shutil
import signal

import pytest
from conftest import FIXTURES
from rich.console import Console

from concbench import paths, session, workloads
from concbench.errors import UserError
from concbench.selection import Selection
from concbench.status import Status
from concbench.store import open_store


@pytest.fixture
def db(tmp_path, monkeypatch):
    """The fake runtime and the triangle workload alone; a database and a state folder of the test's own."""
    monkeypatch.setenv("CONCBENCH_BUILTINS", "off")
    monkeypatch.setenv("CONCBENCH_WORKLOADS", str(FIXTURES / "workloads"))
    monkeypatch.setenv("CONCBENCH_RUNTIMES", str(FIXTURES / "runtimes"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    term = signal.getsignal(signal.SIGTERM)
    yield tmp_path / "runs.db"
    signal.signal(signal.SIGTERM, term)  # a session takes SIGTERM as Ctrl-C; pytest's own again


class Watcher:
    """A screen that keeps what a session says and the runs whose tables it shows."""

    def __init__(self):
        self.out = io.StringIO()
        self.shown: list[int] = []
        self.screen = session.Screen(Console(file=self.out, width=200), self.tables)

    def tables(self, store, run_id: int) -> int:
        self.shown.append(run_id)
        return int(any(t.status != Status.OK for t in store.trials(run_id)))

    @property
    def said(self) -> str:
        return self.out.getvalue()


def request(*mechanisms: str, trials: int = 2, **given) -> session.Request:
    asked = dict(workloads=("triangle",), mechanisms=mechanisms, trials=trials)
    return session.Request(asked, profile="smoke", **given)


def test_a_run_stores_every_trial_verified_and_shows_its_tables(db):
    watcher = Watcher()
    code = session.run(request("honest", "liar"), str(db), watcher.screen)
    store = open_store(str(db), create=False)
    (run,) = store.runs()
    statuses = sorted((t.cell.mechanism, t.status) for t in store.trials(run.id))
    assert statuses == [("honest", Status.OK)] * 2 + [("liar", Status.INVALID)] * 2
    assert code == 1  # a trial did not verify
    assert run.state == "complete"
    assert watcher.shown == [run.id]
    assert f"run {run.id}: 2 cells x 2 trials" in watcher.said


def test_a_repeat_check_stores_a_second_run_that_names_the_first(db):
    watcher = Watcher()
    assert session.run(request("honest", repeat_check=True), str(db), watcher.screen) == 0
    first, second = open_store(str(db), create=False).runs()
    assert Selection.from_json(second.request).repeat_of == first.id
    assert Selection.from_json(first.request).repeat_of is None
    assert watcher.shown == [second.id]  # the tables once, of the repeat


def test_a_resumed_run_takes_only_the_trials_it_lacks(db):
    session.run(request("honest"), str(db), Watcher().screen)
    store = open_store(str(db), create=False)
    store.set_state(1, "interrupted")
    watcher = Watcher()
    assert session.run(session.Request(resume="latest"), str(db), watcher.screen) == 0
    (run,) = store.runs()
    assert run.state == "complete"
    assert len(store.trials(run.id)) == 2
    assert "run 1: 1 cells x 2 trials" in watcher.said and ", 0 trials to go" in watcher.said


@pytest.mark.parametrize(
    "asked, refused",
    [
        (dict(resume="latest", repeat_check=True), "--repeat-check starts two"),
        (dict(plan_only=True, asked=dict(budget=60.0)), "--budget is one machine's run"),
        (dict(plan_only=True, repeat_check=True), "--repeat-check is one machine's run"),
    ],
)
def test_what_cannot_go_together_is_refused_before_a_database_is_made(db, asked, refused):
    with pytest.raises(UserError, match=refused):
        session.run(session.Request(**asked), str(db), Watcher().screen)
    assert not db.exists()


def test_a_plan_for_workers_needs_a_shared_database(db):
    with pytest.raises(UserError, match="give a PostgreSQL database"):
        session.run(request("honest", plan_only=True), str(db), Watcher().screen)
    assert open_store(str(db), create=False).runs() == []


def test_a_resume_takes_no_other_options_and_no_complete_run(db):
    with pytest.raises(UserError, match="no interrupted run to resume"):
        session.run(session.Request(resume="latest"), str(db), Watcher().screen)
    session.run(request("honest"), str(db), Watcher().screen)
    with pytest.raises(UserError, match="run 1 is complete: nothing to resume"):
        session.run(session.Request(resume="1"), str(db), Watcher().screen)
    with pytest.raises(UserError, match="give no other options"):
        session.run(request("honest", resume="1"), str(db), Watcher().screen)


def test_a_selection_of_cells_that_cannot_run_stores_nothing(db):
    watcher = Watcher()
    with pytest.raises(UserError, match="nothing to run"):
        session.run(request("inexpressible"), str(db), watcher.screen)
    assert "triangle fake/inexpressible: n/a: this mechanism has no triangles" in watcher.said
    assert open_store(str(db), create=False).runs() == []


def test_sigterm_stops_a_run_as_ctrl_c_does_and_it_can_be_resumed(db, monkeypatch):
    def terminated(plan, schedule, store, run_id, display, machine):
        os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(session, "execute", terminated)
    watcher = Watcher()
    assert session.run(request("honest"), str(db), watcher.screen) == session.INTERRUPTED
    (run,) = open_store(str(db), create=False).runs()
    assert run.state == "interrupted"
    assert watcher.shown == []  # no finished trial: no tables
    assert f"continue with: concbench run --resume {run.id}" in watcher.said


def test_a_worker_takes_trials_only_from_a_shared_database(db):
    open_store(str(db))
    with pytest.raises(UserError, match="takes trials from a PostgreSQL database"):
        session.work(None, str(db), None, 60.0, paths.Suite(), Watcher().screen)


def test_the_folders_a_run_is_given_are_read_and_recorded_by_it_alone(db, monkeypatch, tmp_path):
    mine = shutil.copytree(FIXTURES / "workloads", tmp_path / "mine")  # from outside the repository
    monkeypatch.delenv("CONCBENCH_WORKLOADS")
    given = paths.Suite(workloads=(mine,))
    session.run(session.Request(request("honest").asked, "smoke", suite=given), str(db), Watcher().screen)
    (run,) = open_store(str(db), create=False).runs()
    assert run.environment["origins"]["workloads"] == str(mine)
    assert "triangle" not in workloads.load_all()  # no folder stays behind for the next command
