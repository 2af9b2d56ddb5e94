"""Hostile text and bad input through the real command line: what a runtime
prints, what a manifest, a spec or a path says is shown as text; bad options,
damaged databases and missing files get one line; a command asked only to
read creates nothing; bad input is refused before anything is built."""

import os
import re
import resource
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import FIXTURES, assert_one_line_error, concbench

from concbench.store import SCHEMA_VERSION, open_store

MARKUP = ("[/]", "[bold]x")  # each crashes rich if read as markup

# The fake runtime's detect command printing $FAKE_VERSION, as its kit does.
DETECT_FAKE_VERSION = 'detect = ["python3", "-c", "import os; print(os.environ.get(\'FAKE_VERSION\', \'1\'))"]'


def copied(source: Path, copy: Path, file: str, *edits: tuple[str, str]) -> Path:
    """A copy of a fixture folder, with each (line pattern, new lines) edit made in its file."""
    shutil.copytree(source, copy)
    text = (copy / file).read_text()
    for pattern, lines in edits:
        text, found = re.subn(pattern, lines.replace("\\", "\\\\"), text, flags=re.MULTILINE)
        assert found, pattern
    (copy / file).write_text(text)
    return copy


def with_runtime(env: dict, tmp_path: Path, *edits: tuple[str, str]) -> dict:
    """env with a copy of the fake runtime whose runtime.toml has the edits."""
    folder = copied(FIXTURES / "runtimes" / "fake", tmp_path / "runtimes" / "fake", "runtime.toml", *edits)
    return {**env, "CONCBENCH_RUNTIMES": str(folder.parent)}


def smoke(env: dict, *args) -> None:
    done = concbench("run", "-w", "triangle", "-m", "honest", "--profile", "smoke", *args, env=env)
    assert done.returncode == 0, done.stderr


def test_markup_in_a_runtimes_version_is_shown_as_text(fake_env, tmp_path):
    env = with_runtime(fake_env, tmp_path, (r"^detect = .*$", DETECT_FAKE_VERSION))
    for version in MARKUP:
        smoke({**env, "FAKE_VERSION": version})
    compared = concbench("compare", 1, 2, env=env)
    assert compared.returncode == 0, compared.stderr
    assert "differs: runtime fake: [/] -> [bold]x" in compared.stdout
    assert "fake [bold]x, no flags" in concbench("show", env=env).stdout
    doctor = concbench("doctor", env={**env, "FAKE_VERSION": "[/]"})
    assert "Traceback" not in doctor.stderr
    assert "ok      fake             [/]" in doctor.stdout


def test_markup_in_manifests_and_specs_is_shown_as_text(fake_env, tmp_path):
    env = with_runtime(
        fake_env,
        tmp_path,
        (r'^doc = "answers correctly"$', 'doc = "[/] answers"'),
        (r"^summary = .*$", 'summary = "[bold]x"'),
    )
    specs = copied(
        FIXTURES / "workloads", tmp_path / "workloads", "triangle.toml", (r"^title = .*$", 'title = "[/] Triangle"')
    )
    env["CONCBENCH_WORKLOADS"] = str(specs)
    listed = concbench("list", env=env)
    assert listed.returncode == 0, listed.stderr
    assert "triangle        [/] Triangle: n=100" in listed.stdout
    assert "fake         [bold]x" in listed.stdout and "fake/honest        [/] answers" in listed.stdout
    done = concbench("run", "-w", "triangle", "-m", "honest", "--profile", "smoke", env=env)
    assert done.returncode == 0, done.stderr
    assert "[/] Triangle (triangle): n=10" in done.stdout


def test_markup_in_paths_is_shown_as_text(fake_env, tmp_path):
    db = tmp_path / "x[/]y" / "t.db"
    done = concbench("run", "-w", "triangle", "-m", "honest", "--profile", "smoke", "--db", db, env=fake_env)
    assert done.returncode == 0, done.stderr
    assert f"stored in {db}" in done.stdout
    output = tmp_path / "r[/].html"
    output.parent.mkdir()
    written = concbench("report", "-o", output, "--db", db, env=fake_env)
    assert written.returncode == 0, written.stderr
    assert f"report of run 1: {output}" in written.stdout and output.exists()


def test_a_report_ends_by_counting_the_rows_with_an_interval(fake_env, tmp_path):
    """make bench's last lines: 3 trials give the one row an interval, by Student's t."""
    db = tmp_path / "t.db"
    done = concbench("run", "-w", "triangle", "-m", "honest", "--trials", "3", "--db", db, env=fake_env)
    assert done.returncode == 0, done.stderr
    written = concbench("report", "-o", tmp_path / "r.html", "--db", db, env=fake_env)
    assert written.returncode == 0, written.stderr
    census, path = written.stdout.splitlines()[-2:]
    assert census.startswith("rows: 1; with a 95% interval 1 (100.0%; 1 of them by Student's t, from 3 to 5 values)")
    assert path.startswith("report of run 1: ")


@pytest.mark.parametrize(
    "option, values",
    [
        ("--timeout", ["nan", "inf", "-inf", "1e300", "0.001", "86401"]),
        ("--trials", ["1000000000000", "0", "1001"]),
        ("--runs", ["0", "1001"]),
        ("--warmup", ["-1", "1001"]),
    ],
)
def test_settings_out_of_bounds_get_one_line(fake_env, option, values):
    for value in values:
        assert_one_line_error(concbench("run", option, value, env=fake_env), option)
    assert not Path(fake_env["CONCBENCH_DB"]).exists()


def test_the_bounds_are_in_the_help(fake_env):
    shown = " ".join(concbench("run", "--help", env=fake_env).stdout.split())
    for bounds in ("[1<=x<=1000]", "[0<=x<=1000]", "[0.01<=x<=86400.0]"):
        assert bounds in shown


@pytest.mark.parametrize(
    "request_json, fragment",
    [
        ('{"trials": 1000000000000}', "trials: Input should be less than or equal to 1000"),
        ('{"timeout": NaN}', "timeout"),
        ('{"timeout": 1e300}', "timeout"),
        ('{"warmup": -1}', "warmup"),
        ('{"profile": "huge"}', "profile"),
        ('{"params": ["n"]}', "params"),
        ('{"bogus": 1}', "bogus"),
        ("[]", "is damaged or not a concbench database"),
    ],
)
def test_a_stored_selection_out_of_bounds_is_not_resumed(fake_env, request_json, fragment):
    db = Path(fake_env["CONCBENCH_DB"])
    run_id = open_store(db).begin_run({}, {})  # an interrupted run of an older or tampered database
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE runs SET request = ? WHERE id = ?", (request_json, run_id))
    assert_one_line_error(concbench("run", "--resume", env=fake_env), fragment)


@pytest.fixture(scope="module")
def stored_db(tmp_path_factory) -> Path:
    """A database of one smoke run: a verified cell and an invalid one."""
    db = tmp_path_factory.mktemp("stored") / "t.db"
    env = {
        **os.environ,
        "CONCBENCH_BUILTINS": "off",
        "CONCBENCH_WORKLOADS": str(FIXTURES / "workloads"),
        "CONCBENCH_RUNTIMES": str(FIXTURES / "runtimes"),
        "CONCBENCH_DB": str(db),
    }
    concbench("run", "-w", "triangle", "-m", "honest,liar", "--profile", "smoke", env=env)
    return db


def a_copy(db: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "copy" / "t.db"
    copy.parent.mkdir()
    shutil.copy(db, copy)
    return copy


READERS = [["show"], ["show", "--json"], ["report", "--format", "md"], ["report"], ["compare", 1, 1], ["history"]]


@pytest.mark.parametrize("command", READERS)
def test_a_damaged_database_gets_one_line_naming_it(fake_env, tmp_path, stored_db, command):
    db = a_copy(stored_db, tmp_path)
    size = db.stat().st_size
    assert size > 3 * 4096  # the damage is past the first page, where sqlite starts
    with open(db, "r+b") as f:
        f.seek(4096)
        f.write(b"\xab" * (size - 4096))
    assert_one_line_error(
        concbench(*command, "--db", db, env=fake_env), f"database {db} is damaged or not a concbench database"
    )


@pytest.mark.parametrize(
    "tampering, fragment",
    [
        ("UPDATE trials SET params = '{not json'", "Expecting property name"),
        ("UPDATE trials SET params = '[1]'", "has no attribute 'items'"),
        ("UPDATE trials SET status = 'weird'", "'weird' is not a valid Status"),
        ("UPDATE runs SET environment = 'null'", "is not a JSON object"),
        ("ALTER TABLE samples DROP COLUMN evidence", "no such column"),
    ],
)
def test_a_foreign_databases_rows_get_one_line(fake_env, tmp_path, stored_db, tampering, fragment):
    db = a_copy(stored_db, tmp_path)
    with sqlite3.connect(db) as connection:
        connection.execute(tampering)
    for command in (["show"], ["show", "--json"], ["history"]):
        assert_one_line_error(
            concbench(*command, "--db", db, env=fake_env), "is damaged or not a concbench database", fragment
        )


def stored_trials(db: Path) -> int:
    try:
        with sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True) as connection:
            return connection.execute("SELECT count(*) FROM trials").fetchone()[0]
    except sqlite3.Error:  # not there yet, or its tables not yet made
        return 0


def test_a_database_deleted_mid_run_is_said_to_be_gone_not_read_only(fake_env, tmp_path):
    db = tmp_path / "doomed.db"
    run = subprocess.Popen(
        [sys.executable, "-m", "concbench", "run", "-w", "triangle", "-m", "slow", "--profile", "smoke"]
        + ["--trials", "6", "--db", str(db)],
        env=fake_env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not stored_trials(db):
        assert time.monotonic() < deadline, "no trial was stored"
        time.sleep(0.05)
    db.unlink()
    _, err = run.communicate(timeout=60)
    assert run.returncode == 2 and len(err.strip().splitlines()) == 1, err
    assert f"database {db} was deleted or moved while concbench was using it" in err and "readonly" not in err


def test_a_database_without_tables_or_not_a_database_gets_one_line(fake_env, tmp_path):
    bare = tmp_path / "bare.db"
    with sqlite3.connect(bare) as connection:
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    assert_one_line_error(
        concbench("show", "--db", bare, env=fake_env),
        f"database {bare} is damaged or not a concbench database: it has no table 'runs'",
    )
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n" * 500)
    assert_one_line_error(
        concbench("show", "--db", text, env=fake_env),
        f"database {text} is damaged or not a concbench database: file is not a database",
    )


@pytest.mark.parametrize("command", READERS)
def test_a_command_that_reads_creates_no_database_and_no_folder(fake_env, tmp_path, command):
    db = tmp_path / "missing" / "dir" / "x.db"
    assert_one_line_error(
        concbench(*command, "--db", db, env=fake_env), f"no database at {db}", "concbench run creates one"
    )
    assert not (tmp_path / "missing").exists()


def test_a_report_is_not_written_into_a_missing_folder(fake_env, tmp_path, stored_db):
    output = tmp_path / "missing" / "x.md"
    assert_one_line_error(
        concbench("report", "--format", "md", "-o", output, "--db", stored_db, env=fake_env), f"cannot write {output}"
    )
    assert not (tmp_path / "missing").exists()


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["run", "-w", ""], "--workload"),
        (["run", "-w", ","], "--workload"),
        (["run", "-w", "triangle,"], "--workload"),
        (["run", "-r", ""], "--runtime"),
        (["run", "-m", " "], "--mechanism"),
        (["run", "-o", ""], "--option"),
        (["run", "-p", ""], "--param"),
        (["run", "-p", ","], "--param"),
        (["history", "-w", ""], "--workload"),
        (["history", "-m", ","], "--mechanism"),
    ],
)
def test_an_empty_name_in_a_list_option_gets_one_line(fake_env, args, fragment):
    assert_one_line_error(concbench(*args, env=fake_env), fragment)


BUILD_LEAVES_A_MARKER = (
    r"^command = .*$",
    'command = ["python3", "{dir}/kit.py", "{options}"]\nbuild = ["touch", "{dir}/built"]',
)


def test_bad_input_is_refused_before_anything_is_built(fake_env, tmp_path):
    env = with_runtime(fake_env, tmp_path, BUILD_LEAVES_A_MARKER)
    marker = Path(env["CONCBENCH_RUNTIMES"]) / "fake" / "built"
    for args, fragment in [
        (["-w", "nosuch"], "unknown workload 'nosuch'"),
        (["-r", "nosuch"], "unknown runtime 'nosuch'"),
        (["-m", "nosuch"], "unknown mechanism 'nosuch'"),
        (["-o", "nosuch"], "unknown option 'nosuch'"),
        (["-p", "m=1"], "unknown parameter 'm'"),
        (["-p", "n=x"], "triangle: n=x is not an integer"),
        (["-p", "n=-1"], "triangle: n=-1 is out of bounds"),
    ]:
        assert_one_line_error(concbench("run", *args, env=env), fragment)
        assert not marker.exists()
    smoke(env)
    assert marker.exists()  # the build does leave it


# Address space for a command that refuses a costly spec or plan: it needs
# about 300 MiB; the attacks below once took 1.2 to 5.9 GB, or ran for minutes.
LITTLE_MEMORY = 512 * 1024 * 1024
QUICKLY = 30  # seconds


def cheaply(env: dict, *args):
    """The command line with little memory and time: running out of either
    (a MemoryError's traceback, a TimeoutExpired) fails the test."""

    def little_memory():
        resource.setrlimit(resource.RLIMIT_AS, (LITTLE_MEMORY, LITTLE_MEMORY))

    return concbench(*args, env=env, timeout=QUICKLY, preexec_fn=little_memory)


def with_triangle(env: dict, tmp_path: Path, *edits: tuple[str, str]) -> dict:
    """env with a copy of the fixture workloads whose triangle.toml has the edits."""
    folder = copied(FIXTURES / "workloads", tmp_path / "workloads", "triangle.toml", *edits)
    return {**env, "CONCBENCH_WORKLOADS": str(folder)}


@pytest.mark.parametrize(
    "total, fragment",
    [
        ("lcg_sum(10**9, 0, 1)", "triangle: 1,000,000,000 draws asked for, at most 1,000,000"),
        ("squares_mod_sum(10**12, 10**12)", "triangle: 1,000,000,000,000 terms (the least of count and modulus)"),
        ("2**2048 * 2**2048 * 2**2048", "triangle: a value of 4,097 bits, at most 4096"),  # the first product
        ("-" * 999 + "n", "nested more than 50 levels deep"),  # 1,000 levels, within the length
        ("(" * 1000 + "n" + ")" * 1000, "2,001 characters, at most 1,000"),
        ("1+" * 5000 + "1", "10,001 characters, at most 1,000"),  # once the parser's RecursionError
        ("9" * 1_000_000, "1,000,000 characters, at most 1,000"),
    ],
    ids=["lcg_sum", "squares_mod_sum", "4097 bits", "1000 deep", "1000 parentheses", "5000 additions", "1 MB literal"],
)
def test_an_expectation_too_costly_to_compute_gets_one_line(fake_env, tmp_path, total, fragment):
    env = with_triangle(fake_env, tmp_path, (r"^total = .*$", f'total = "{total}"'))
    assert_one_line_error(cheaply(env, "run", "-w", "triangle"), fragment)


SECOND_PARAMETER = '[params.m]\ntype = "int"\nmin = 0\nmax = 1_000_000\ndoc = "unused"\n\n[expect]'


def test_a_plan_too_large_gets_one_line(fake_env, tmp_path):
    env = with_triangle(fake_env, tmp_path, (r"^\[expect\]$", SECOND_PARAMETER), (r" \}$", ", m = 0 }"))
    values = ",".join(map(str, range(10_000)))
    for args, fragments in [
        (
            ["-p", f"n={values}", "-p", f"m={values}"],  # once 5.9 GB
            [
                "triangle: sweeping n (10,000 values) x m (10,000 values) makes 100,000,000 parameter sets, at most 1,000"
            ],
        ),
        (
            ["-p", "n=" + ",".join(map(str, range(1000)))],  # 1,000 x the fake runtime's mechanisms: once started
            ["the selection makes ", " cells (n/a ones included), at most 5,000"],
        ),
    ]:
        assert_one_line_error(cheaply(env, "run", "-w", "triangle", *args), *fragments)


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--min-run", "1e400"], "from 0 s to 1 minute"),
        (["--min-run", "9" * 400], "from 0 s to 1 minute"),  # a float of inf
        (["--min-run", "inf"], "from 0 s to 1 minute"),
        (["--min-run", "nan"], "from 0 s to 1 minute"),
        (["--min-run", "61s"], "from 0 s to 1 minute"),
        (["--min-run", ""], "from 0 s to 1 minute"),
        (["--budget", "8d"], "from 1 s to 7 days"),
        (["--budget", "inf"], "from 1 s to 7 days"),
    ],
)
def test_a_time_out_of_bounds_gets_one_line_with_the_bounds_in_sensible_units(fake_env, args, fragment):
    assert_one_line_error(concbench("run", *args, env=fake_env), f"'{args[0]}'", fragment)
    assert not Path(fake_env["CONCBENCH_DB"]).exists()


@pytest.mark.parametrize("value", ["", " ", "latest1", "1.0", "+1", "１"])
def test_resume_with_an_empty_variable_is_refused_not_a_new_run(fake_env, value):
    """run --resume "$RUN" where RUN is unset: refused, not a new run of the whole suite."""
    done = concbench("run", "--resume", value, env=fake_env)
    assert_one_line_error(done, "'--resume'", "expected a run number")
    assert not Path(fake_env["CONCBENCH_DB"]).exists()


@pytest.mark.parametrize("command", [["run"], ["show"], ["merge", "--into"]])
def test_an_empty_database_is_refused_not_taken_for_this_folder(fake_env, command):
    option = command[-1] if command[-1].startswith("--") else "--db"
    args = [*command, ""] if option == "--into" else [*command, "--db", ""]
    sources = ["x.db"] if option == "--into" else []
    assert_one_line_error(concbench(*args, *sources, env=fake_env), f"'{option}'", "is empty")


@pytest.mark.parametrize("threshold", ["300", "0.1"])
def test_an_ab_threshold_is_never_refused_as_a_target_the_user_did_not_give(fake_env, threshold):
    """ab settles its cells to half the threshold: 300% once failed as
    '--target' (at most 100%)."""
    done = concbench("ab", "-w", "triangle", "-m", "honest", "--budget", "2s", "--threshold", threshold, env=fake_env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "target" not in done.stderr and "Traceback" not in done.stderr
    assert f"and {threshold}% or more" in done.stdout


@pytest.mark.parametrize("value", ["-1", "nan", "inf", ""])
def test_a_bad_ab_threshold_is_refused_naming_it(fake_env, value):
    assert_one_line_error(concbench("ab", "--threshold", value, env=fake_env), "'--threshold'")
