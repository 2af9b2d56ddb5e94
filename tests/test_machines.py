"""Which machine ran a run: a stable id and a name with every run; compare
and history set two machines' figures against each other only when asked."""

import json
import sqlite3

from conftest import assert_one_line_error, concbench
from test_history import blocks, paced_run

from concbench import environment


def set_machine_id(env, run_id, machine_id):
    """As if another machine had made the run: every test run is made here."""
    with sqlite3.connect(env["CONCBENCH_DB"]) as db:
        found = json.loads(db.execute("SELECT environment FROM runs WHERE id = ?", (run_id,)).fetchone()[0])
        db.execute(
            "UPDATE runs SET environment = ? WHERE id = ?", (json.dumps({**found, "machine_id": machine_id}), run_id)
        )
        db.execute("UPDATE trials SET machine_id = ? WHERE run_id = ?", (machine_id, run_id))


def stored_environment(env, run_id):
    with sqlite3.connect(env["CONCBENCH_DB"]) as db:
        return json.loads(db.execute("SELECT environment FROM runs WHERE id = ?", (run_id,)).fetchone()[0])


def test_every_run_records_a_stable_machine_id_and_the_name_given():
    assert environment.machine_id() == environment.machine_id() and len(environment.machine_id()) == 16
    assert environment.same_machine({"machine_id": "a"}, {"machine_id": "a"})
    assert not environment.same_machine({"machine_id": "a"}, {"machine_id": "b"})
    assert environment.same_machine({}, {"machine_id": "b"})  # a run stored before machines were recorded


def test_run_records_the_machine_and_the_report_shows_it(fake_env):
    paced_run({**fake_env, "CONCBENCH_MACHINE": "ci-box 2"}, 1000)
    stored = stored_environment(fake_env, 1)
    assert stored["machine"] == "ci-box 2" and stored["machine_id"] == environment.machine_id()
    assert f"machine ci-box 2 ({environment.machine_id()})" in concbench("show", env=fake_env).stdout
    bad = concbench("run", "-w", "triangle", "--machine", "a\nb", env=fake_env)
    assert bad.returncode == 2 and "is not a machine name" in bad.stderr


def test_compare_refuses_two_machines_unless_asked(fake_env):
    paced_run(fake_env, 1000)
    paced_run(fake_env, 1500)
    set_machine_id(fake_env, 2, "0123456789abcdef")
    assert_one_line_error(
        concbench("compare", "1", "2", env=fake_env),
        "runs 1 and 2 ran on different machines",
        "(0123456789abcdef)",
        "another machine is not a code change",
        "--across-machines",
    )
    across = concbench("compare", "1", "2", "--across-machines", env=fake_env)
    assert across.returncode == 0, across.stderr
    assert "differs: machine_id: " in across.stdout and "slower" in across.stdout


def test_history_follows_the_latest_runs_machine_unless_asked(fake_env):
    for wall_ns in (1000, 1500, 1000):
        paced_run(fake_env, wall_ns)
    set_machine_id(fake_env, 2, "0123456789abcdef")
    done = concbench("history", "-m", "paced", env=fake_env)
    assert done.returncode == 0, done.stderr
    assert [line.split()[1] for line in blocks(done.stdout)["fake/paced"]] == ["1", "3"]
    assert "0 steps in 0 cells" in done.stdout
    assert "left out 1 run(s) of other machines" in done.stdout
    across = concbench("history", "-m", "paced", "--across-machines", env=fake_env)
    assert len(blocks(across.stdout)["fake/paced"]) == 4 and "step: slower" in across.stdout


def test_a_run_drained_on_two_machines_is_not_compared_nor_followed_as_one(fake_env):
    paced_run(fake_env, 1000)
    paced_run(fake_env, 1000)
    with sqlite3.connect(fake_env["CONCBENCH_DB"]) as db:  # as if a worker elsewhere had taken paced's trials
        db.execute("UPDATE trials SET machine = 'far', machine_id = 'feedfacefeedface' WHERE mechanism = 'paced'")
    assert_one_line_error(
        concbench("compare", "1", "2", env=fake_env),
        "run 1's trials ran on 2 machines",
        "far (feedfacefeedface)",
        "--across-machines",
    )
    assert concbench("compare", "1", "2", "--across-machines", env=fake_env).returncode == 0
    followed = blocks(concbench("history", env=fake_env).stdout)
    assert "fake/honest" in followed and "fake/paced" not in followed  # this machine's trials only
