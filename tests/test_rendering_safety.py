"""Nothing a runtime prints, nor a manifest or a spec says, is read as markup
anywhere a run is shown: rich markup and terminal codes on the terminal,
HTML in Markdown, HTML and terminal codes on the HTML page, formulas in
CSV; and every registered format, run report and machines side by side, is
read as its readers read it. Where possible through the command line, with
the fake runtime's `says` mechanism saying what each test wants."""

import csv
import io
import json
import os
import re
import shutil
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import FIXTURES, concbench
from rich.console import Console
from test_machines_report import hostile_side_by_side

from concbench.display import html_safe
from concbench.progress import ProgressDisplay
from concbench.report import export, formats, html, markdown, run_report, terminal
from concbench.store import open_store

LOUD = "[/] and [bold red]x and \x1b[2J"  # rich markup, then the terminal's clear-screen
FORMULA = "=cmd|' /C calc'!A0"
SCRIPT, IMAGE = "<script>alert(1)</script>", "<img src=x onerror=alert(1)>"
ESCAPED_SCRIPT, ESCAPED_IMAGE = "&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;img src=x onerror=alert(1)&gt;"


def suite_env(fixtures: Path, tmp: Path) -> dict:
    return {
        **os.environ,
        "CONCBENCH_BUILTINS": "off",
        "CONCBENCH_WORKLOADS": str(fixtures / "workloads"),
        "CONCBENCH_RUNTIMES": str(fixtures / "runtimes"),
        "CONCBENCH_DB": str(tmp / "test.db"),
    }


def run_says(env: dict, tmp: Path, stdout: str = "", stderr: str = "", exit: int = 0, mechanisms: str = "says"):
    """A run of triangle whose `says` trial writes stdout and stderr as given
    and exits with exit: it completes, with a failed trial (exit status 1)."""
    for name, text in (("stdout", stdout), ("stderr", stderr)):
        (tmp / name).write_text(text)
    done = concbench(
        "run",
        "-w",
        "triangle",
        "-m",
        mechanisms,
        "--profile",
        "smoke",
        "--trials",
        "1",
        env={**env, "FAKE_STDOUT": str(tmp / "stdout"), "FAKE_STDERR": str(tmp / "stderr"), "FAKE_EXIT": str(exit)},
    )
    assert_ran(done, 1)
    return done


def assert_ran(done, returncode: int) -> None:
    assert done.returncode == returncode and "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr


def refusal(error: str) -> str:
    """A kit's clean refusal (docs/protocol.md)."""
    return json.dumps({"ok": False, "error": error}) + "\n"


def stored(env: dict, monkeypatch) -> run_report.RunReport:
    """The latest run's report, built in this process as the command line builds it."""
    monkeypatch.setenv("CONCBENCH_BUILTINS", "off")
    monkeypatch.setenv("CONCBENCH_WORKLOADS", env["CONCBENCH_WORKLOADS"])  # the specs: titles, baselines
    return run_report.build(open_store(Path(env["CONCBENCH_DB"])).stored_run())


def on_a_terminal(*renderables) -> str:
    """What a colour terminal would be sent."""
    console = Console(file=io.StringIO(), force_terminal=True, color_system="standard", width=200)
    for renderable in renderables:
        console.print(renderable)
    return console.file.getvalue()


def assert_literal(shown: str) -> None:
    """LOUD as text: its markup to be read, its escape written out, never sent."""
    assert "[/] and [bold red]x" in shown and "\\x1b[2J" in shown
    assert "\x1b[2J" not in shown


# The terminal


@pytest.fixture(scope="module")
def loud(tmp_path_factory) -> dict:
    """A run whose one trial writes markup and a terminal code to stderr, then exits 3."""
    tmp = tmp_path_factory.mktemp("loud")
    env = suite_env(FIXTURES, tmp)
    return {"env": env, "done": run_says(env, tmp, stderr=LOUD + "\n", exit=3)}


def test_a_trials_markup_and_terminal_codes_are_printed_as_text(loud):
    done = loud["done"]
    assert "\x1b" not in done.stdout
    assert "EXIT triangle fake/says #1: exit status 3: " + LOUD.replace("\x1b", "\\x1b") in done.stdout  # progress
    assert "fake/says trial 1: EXIT: exit status 3: " in done.stdout  # the table
    assert_literal(done.stdout)


def test_the_tables_on_a_colour_terminal_are_text_never_markup(loud, monkeypatch):
    report = stored(loud["env"], monkeypatch)
    (table,) = report.tables
    shown = on_a_terminal(*terminal.render(table))
    assert_literal(shown)
    assert shown.count("[/] and [bold red]x") == 2  # the failure's detail and its stderr


def test_the_run_header_shows_the_environment_as_text(loud, monkeypatch):
    report = stored(loud["env"], monkeypatch)
    run = replace(report.run, request={**report.run.request, "profile": LOUD})
    assert_literal(on_a_terminal(terminal.run_header(run, [("fake", LOUD)])))


def test_the_progress_display_shows_names_and_details_as_text(loud, monkeypatch):
    (trial,) = stored(loud["env"], monkeypatch).trials
    console = Console(file=io.StringIO(), force_terminal=True, color_system="standard", width=200)
    schedule = SimpleNamespace(planned=1, settings=SimpleNamespace(budget=None))
    with ProgressDisplay(console, schedule) as display:
        display.started(SimpleNamespace(key=SimpleNamespace(workload="[/]", row="[bold]x\x1b[2J")), 0, True)
        display.finished(trial)
    shown = console.file.getvalue()
    assert_literal(shown)
    assert "[/] [bold]x\\x1b[2J #1" in shown


# CSV


def test_a_refusal_that_is_a_formula_is_text_in_csv(fake_env, tmp_path):
    run_says(fake_env, tmp_path, stdout=refusal(FORMULA), exit=1, mechanisms="honest,says")
    report = concbench("report", "--format", "csv", env=fake_env)
    assert_ran(report, 0)
    rows = {row["mechanism"]: row for row in csv.DictReader(io.StringIO(report.stdout))}
    assert rows["says"]["detail"] == "'" + FORMULA
    assert rows["says"]["process_exit_code"] == "1" and rows["says"]["trial"] == "0"
    assert rows["honest"]["wall_ns"] == "1000" and rows["honest"]["run"] == "1"


def test_only_text_that_starts_like_a_formula_gets_the_single_quote(loud, monkeypatch):
    report = stored(loud["env"], monkeypatch)
    details = ["=1+1", "+1", "-1", "@SUM(A1)", "\t=1", "\r=1", "1+1", "a=b"]
    trials = [replace(report.trials[0], detail=detail, exit_code=-1) for detail in details]
    rows = list(csv.DictReader(io.StringIO(export.csv_text(replace(report, trials=trials)))))
    assert [row["detail"] for row in rows] == ["'" + d for d in details[:6]] + details[6:]
    assert {row["process_exit_code"] for row in rows} == {"-1"}  # a number: no single quote


# Markdown


def outside_fences(text: str) -> str:
    """The Markdown but its fenced code blocks, where text is literal."""
    kept, fence = [], None
    for line in text.splitlines():
        if fence is None and re.fullmatch("`{3,}", line):
            fence = line
        elif line == fence:
            fence = None
        elif fence is None:
            kept.append(line)
    return "\n".join(kept)


def assert_no_html(text: str) -> None:
    prose = outside_fences(text)
    assert "<script" not in prose and "<img" not in prose, prose


def test_a_trials_html_is_only_ever_in_fenced_blocks_in_markdown(fake_env, tmp_path):
    said = f"{SCRIPT} {IMAGE}"
    run_says(fake_env, tmp_path, stdout=refusal(said), stderr=f"{said}\n\x1b[2J\n", exit=1, mechanisms="honest,says")
    report = concbench("report", "--format", "md", env=fake_env)
    assert_ran(report, 0)
    assert_no_html(report.stdout)
    assert f"fake/says trial 1: ERROR: {said}" in report.stdout  # in its fenced block, as it was said
    assert "  | \\x1b[2J" in report.stdout and "\x1b" not in report.stdout


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> dict:
    """A run of a suite whose spec and manifest hold HTML (and markup, and a
    terminal code): triangle's title and a parameter, ticks' kind of work (for
    the diagnosis, which judges paced against honest), a note on honest and
    the reason inexpressible is n/a."""
    tmp = tmp_path_factory.mktemp("hostile")
    suite = tmp / "fixtures"
    shutil.copytree(FIXTURES, suite)
    triangle = suite / "workloads" / "triangle.toml"
    triangle.write_text(
        triangle.read_text()
        .replace('title = "Triangle"', f'title = "[/] {SCRIPT} & {IMAGE} \\u001b[2J"')
        .replace(
            "[params.n]", f'[params.look]\ntype = "choice"\nvalues = ["{IMAGE}"]\ndoc = "how it looks"\n\n[params.n]'
        )
        .replace("{ n = ", f'{{ look = "{IMAGE}", n = ')
    )
    ticks = suite / "workloads" / "ticks.toml"
    ticks.write_text(ticks.read_text().replace("\n[params", f'\nwork = "{SCRIPT} work"\n\n[params', 1))
    manifest = suite / "runtimes" / "fake" / "runtime.toml"
    manifest.write_text(
        manifest.read_text().replace("this mechanism has no triangles", IMAGE)
        + f'\n[mechanisms.honest.notes]\ntriangle = "{SCRIPT}"\n'
    )
    env = suite_env(suite, tmp)
    selection = ("-w", "triangle,ticks", "-m", "honest,paced,inexpressible")
    done = concbench("run", *selection, "--profile", "smoke", "--trials", "1", env=env)
    assert_ran(done, 0)
    return {"env": env, "done": done}


def test_a_spec_and_a_manifest_are_text_on_the_terminal(hostile):
    shown = hostile["done"].stdout
    assert f"[/] {SCRIPT} & {IMAGE} \\x1b[2J (triangle)" in shown and "\x1b" not in shown


def test_html_in_a_spec_or_a_manifest_is_escaped_in_markdown(hostile):
    done = concbench("report", "--format", "md", env=hostile["env"])
    assert_ran(done, 0)
    text = done.stdout
    assert_no_html(text)
    (heading,) = [line for line in text.splitlines() if line.endswith(f"(triangle): look={ESCAPED_IMAGE} n=10")]
    assert heading.startswith(f"### [/] {ESCAPED_SCRIPT} &amp; {ESCAPED_IMAGE} \\x1b[2J ")
    assert "\x1b" not in text
    assert f"- fake/honest: note: {ESCAPED_SCRIPT}" in text  # the remarks
    assert f"| fake/inexpressible | n/a: {ESCAPED_IMAGE} |" in text  # a skipped row
    assert f"- {ESCAPED_SCRIPT} work (ticks " in text  # the diagnosis


def test_html_in_the_environment_is_escaped_in_markdown(hostile, monkeypatch):
    report = stored(hostile["env"], monkeypatch)
    run = replace(
        report.run,
        started=SCRIPT,
        state=IMAGE,
        request={**report.run.request, "profile": SCRIPT},
        environment={**report.run.environment, "concbench": IMAGE},
    )
    text = markdown.render(replace(report, run=run, environment=[(SCRIPT, IMAGE)]))
    assert_no_html(text)
    assert f"- {ESCAPED_SCRIPT}: {ESCAPED_IMAGE}" in text
    assert f"{ESCAPED_SCRIPT} profile, started {ESCAPED_SCRIPT}, {ESCAPED_IMAGE}." in text
    assert f"Produced by concbench {ESCAPED_IMAGE} from run 1" in text


# HTML

# What a page may not hold: control characters but tab and newline (which a
# <pre> of stderr keeps), lone surrogates, and the two noncharacters XML refuses.
CONTROL = "[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]"


def test_control_characters_are_written_as_their_escapes_in_html():
    said = "<b>\t'x'\n\x1b[2J\r\x00\x7f\x9b\ud800\uffff &\""
    assert html_safe(said) == "&lt;b&gt;\t&#x27;x&#x27;\n\\x1b[2J\\r\\x00\\x7f\\x9b\\ud800\\uffff &amp;&quot;"


def test_a_trials_stderr_and_a_runtimes_version_are_text_on_the_page(loud, monkeypatch):
    report = stored(loud["env"], monkeypatch)
    page = html.render(replace(report, environment=[("fake", LOUD)]))
    html_is_strict_xml_of_inert_text(page)
    assert page.count("[/] and [bold red]x and \\x1b[2J") == 3  # the environment, the detail and the stderr


# Every registered format


def html_is_strict_xml_of_inert_text(page: str) -> None:
    assert "<script" not in page and "<img" not in page  # the page has neither of its own
    assert not re.search(CONTROL, page)  # no terminal code, nothing strict XML refuses
    ET.fromstring(page.split("\n", 1)[1])  # well-formed: past its doctype, nothing broke out of its place


def markdown_has_no_html_nor_terminal_codes(text: str) -> None:
    assert_no_html(text)
    assert "\x1b" not in text  # a `cat` of the file must not run it


def csv_has_no_formula(text: str) -> None:
    for row in csv.reader(io.StringIO(text)):
        for cell in row:
            assert not re.match(r"[=@\t\r]|[+-](?![\d.]+$)", cell), cell


# How each format is read, and what must never be read in it.
READ_SAFELY = {
    "html": html_is_strict_xml_of_inert_text,
    "md": markdown_has_no_html_nor_terminal_codes,
    "csv": csv_has_no_formula,
    "json": json.loads,
}


def test_every_format_says_how_it_is_read_safely():
    assert set(READ_SAFELY) == set(formats.FORMATS)


@pytest.mark.parametrize("name", list(formats.FORMATS))
def test_a_hostile_run_is_text_in_every_format(hostile, monkeypatch, name):
    text = formats.FORMATS[name].run(stored(hostile["env"], monkeypatch))
    assert "alert(1)" in text  # the hostile text is there, to be read safely
    READ_SAFELY[name](text)


@pytest.mark.parametrize("name", [name for name, found in formats.FORMATS.items() if found.machines])
def test_hostile_machines_side_by_side_are_text_in_every_format(name):
    text = formats.FORMATS[name].machines(hostile_side_by_side())
    assert "alert(1)" in text
    READ_SAFELY[name](text)
