"""The HTML report end to end: a run of the fake runtime through the real
command line (a sweep, a rate table, failing cells and a mechanism that
writes markup to stderr), then `concbench report`. The page is parsed as
strict XML, then opened in a headless Chromium."""

import os
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import FIXTURES, concbench

from concbench.records import CellKey, Sample, TrialRecord
from concbench.report import aggregate, charts, html_ratios
from concbench.results import CellResult
from concbench.status import Status

HOSTILE = "<script>alert(1)</script> \"'&"

# A mechanism that refuses with markup in its error and on its stderr.
EVIL = f"""

def evil(request, answer):
    import json, sys
    print({HOSTILE!r}, file=sys.stderr)
    print(json.dumps({{"ok": False, "error": {HOSTILE!r}}}))
    sys.exit(1)
"""

CHROMIUM = Path("/usr/bin/chromium")
# No network here: the background-networking flags keep Chromium from trying.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    """The report of one run: triangle swept over n=10,100,1000 and the rate
    workload ticks, on honest, paced (3 us a run), liar, evil and inexpressible."""
    root = tmp_path_factory.mktemp("html")
    suite = root / "fixtures"
    shutil.copytree(FIXTURES, suite)
    fake = suite / "runtimes" / "fake"
    with open(fake / "runtime.toml", "a") as manifest:
        manifest.write('\n[mechanisms.evil]\ndoc = "refuses with markup in its error and on stderr"\n')
    ticks = suite / "workloads" / "ticks.toml"  # a kind of work, for the diagnosis
    ticks.write_text(ticks.read_text().replace("\n[params", '\nwork = "trivial work"\n\n[params', 1))
    for workload in ("triangle", "ticks"):
        with open(fake / "workloads" / f"{workload}.py", "a") as implementation:
            implementation.write(EVIL)
    env = {
        **os.environ,
        "CONCBENCH_BUILTINS": "off",
        "CONCBENCH_WORKLOADS": str(suite / "workloads"),
        "CONCBENCH_RUNTIMES": str(suite / "runtimes"),
        "CONCBENCH_DB": str(root / "test.db"),
        "FAKE_WALL_NS": "3000",
    }
    done = concbench(
        "run",
        "-w",
        "triangle,ticks",
        "-m",
        "honest,paced,liar,evil,inexpressible",
        "-p",
        "n=10,100,1000",
        "--profile",
        "smoke",
        "--runs",
        "6",
        env=env,
    )
    assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr, done.stderr
    path = root / "report.html"
    done = concbench("report", "-o", path, env=env)
    assert done.returncode == 0, done.stderr
    return path


def parse(path: Path) -> ET.Element:
    """The page as XML: parsing fails unless the markup is well-formed."""
    doctype, markup = path.read_text().split("\n", 1)
    assert doctype == "<!DOCTYPE html>"
    return ET.fromstring(markup)


def classed(root: ET.Element, tag: str, name: str) -> list[ET.Element]:
    return [e for e in root.iter(tag) if name in e.get("class", "").split()]


def text(element: ET.Element) -> str:
    return "".join(element.itertext())


def test_the_page_is_well_formed_and_fetches_nothing(report):
    page, root = report.read_text(), parse(report)
    assert not [e.tag for e in root.iter() if e.tag in ("script", "link", "img", "iframe", "object", "embed")]
    assert "http://" not in page and "https://" not in page and "url(" not in page and "@import" not in page
    ids = {e.get("id") for e in root.iter() if e.get("id")}
    links = [e.get("href") for e in root.iter() if e.get("href") is not None]
    assert links and all(link.startswith("#") and link[1:] in ids for link in links)  # every link works
    assert not [e for e in root.iter() if e.get("src") is not None]


def test_the_header_names_the_run_and_shows_the_environment(report):
    header = parse(report).find("body/header")
    facts = {text(row.find("th")): text(row.find("td")) for row in header.iter("tr")}
    assert facts["state"] == "complete" and facts["profile"] == "smoke" and facts["trials"] == "7 of 15 verified"
    assert "run 1" in text(header.find("h1"))
    assert facts["harness"].startswith("Python") and facts["fake"].endswith("no flags")
    assert "8 of 15 trials failed" in text(header)


def test_the_diagnosis_is_shown_as_written(report):
    (section,) = [s for s in parse(report).iter("section") if s.get("id") == "diagnosis"]
    items = [text(li) for li in section.findall("ul/li")]
    assert len(items) == 1 and items[0].startswith("trivial work (ticks batch=10 seconds=0.01): fake/honest wins")
    assert text(section.find("p")).startswith("Diagnosis (computed from this run")


def test_a_table_and_two_charts_per_table_with_a_bar_per_verified_row(report):
    sections = classed(parse(report), "section", "result")
    assert [text(s.find("h3")) for s in sections] == [
        "Ticks (ticks) batch=10 seconds=0.01",
        "Triangle (triangle) n=10",
        "Triangle (triangle) n=100",
        "Triangle (triangle) n=1000",
    ]
    for section in sections:
        rows = section.findall(".//table/tbody/tr")
        verified = [r.find("th").text for r in rows if not classed(r, "td", "none")]
        for kind in ("time", "memory"):
            (figure,) = classed(section, "figure", kind)
            bars = classed(figure, "rect", "bar")
            assert [text(t) for t in figure.iter("text") if t.text in verified] == verified
            assert len(bars) == len(verified) and all(float(b.get("width")) > 0 for b in bars)
    ticks, small, _, large = sections
    assert [r.find("th").text for r in small.findall(".//tbody/tr")] == [
        "fake/honest",
        "fake/paced",
        "fake/liar",
        "fake/evil",
    ]  # the tables' order
    headers = [text(th) for th in small.findall(".//thead/tr/th")]
    assert headers[:2] == ["mechanism", "real"] and "warm-up (discarded)" in headers and "memory" in headers
    assert "x3.00" in text(small) and "1 INVALID" in text(small) and "1 ERROR" in text(small)
    assert "n/a fake/honest: an honest count past 500 is too tiring" in text(large)
    assert "fake/inexpressible: this mechanism has no triangles" in text(large)
    assert "lower is better. Whiskers: the 95% confidence interval" in text(classed(small, "figure", "time")[0])
    assert "Whiskers: the min–max range" in text(classed(small, "figure", "memory")[0])
    assert "ops/s" in text(ticks.find(".//thead")) and "higher is better" in text(ticks)


def test_a_sweep_gets_scaling_charts_of_time_and_memory_with_a_line_per_mechanism(report):
    time, memory = classed(parse(report), "figure", "scaling")
    for figure in (time, memory):
        lines = classed(figure, "g", "line")
        points = [len(classed(line, "g", "point")) for line in lines]
        assert points == [2, 3]  # honest is n/a at n=1000
        labels = [t.text for t in figure.iter("text")]
        assert {"10", "100", "1,000", "fake/honest", "fake/paced", "n"} <= set(labels)
        assert "Log scale on x" in text(figure.find("figcaption"))
    assert "time" in time.get("class") and "median real time over n" in text(time.find("figcaption"))
    assert "memory" in memory.get("class") and "median peak memory over n" in text(memory.find("figcaption"))
    assert any(t.text and t.text.endswith(" MB") for t in memory.iter("text"))


def test_the_heatmap_has_a_cell_per_cell_that_ran(report):
    (figure,) = classed(parse(report), "figure", "heatmap-figure")
    cells = classed(figure, "rect", "heat-cell")
    assert len(cells) == 4 + 4 + 4 + 3  # ticks, then triangle n=10, 100, 1000 (honest n/a)
    labels = [t.text for t in figure.iter("text")]
    assert labels.count("x3.00") == 2 and labels.count("failed") == 8
    assert "ticks batch=10 seconds=0.01 [ops/s]" in labels
    assert "blue is better than the baseline" in text(figure.find("figcaption"))


def test_failed_trials_are_listed_with_their_stderr_escaped(report):
    page = report.read_text()
    assert "<script" not in page and "alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &quot;&#x27;&amp;" in page
    (section,) = [s for s in parse(report).iter("section") if s.get("id") == "failed-trials"]
    rows = section.findall(".//tbody/tr")
    assert len(rows) == 8
    evil = [r for r in rows if text(r).count("fake/evil")]
    assert len(evil) == 4 and all(HOSTILE in text(r) for r in evil)
    assert all(r.find(".//details/pre").text.strip() == HOSTILE for r in evil)
    statuses = {text(td) for td in classed(section, "td", "status")}
    assert statuses == {"INVALID", "ERROR"}


def _table(workload: str, **params) -> aggregate.Table:
    cell = CellResult(CellKey(workload, "fake", "honest", tuple(params.items())), ())
    text = " ".join(f"{k}={v}" for k, v in params.items())
    return aggregate.Table(
        workload=workload, title=workload.title(), params_text=text, rows=(cell,), skipped=(), baseline=cell
    )


def test_sweeps_are_tables_that_differ_in_one_numeric_parameter():
    grid = [_table("grid", a=a, b=b, mode="x") for a in (5, 1) for b in (1, 2)]
    found = aggregate.sweeps([*grid, _table("grid", a=1, b=1, mode="y"), _table("alone", n=1)])
    assert [(s.param, s.fixed, s.values) for s in found] == [
        ("a", "b=1 mode=x", (1, 5)),
        ("a", "b=2 mode=x", (1, 5)),
        ("b", "a=5 mode=x", (1, 2)),
        ("b", "a=1 mode=x", (1, 2)),
    ]
    assert found[0].tables == (grid[2], grid[0])


def test_charts_escape_their_texts():
    svg = charts.bar_chart([charts.Bar(HOSTILE, 2, 1, 3, HOSTILE, HOSTILE)], str, HOSTILE)
    root = ET.fromstring(svg)
    assert "<script" not in svg and root.get("aria-label") == HOSTILE
    assert [t.text for t in root.iter("text")][-2:] == [HOSTILE, HOSTILE] and root.find("g/title").text == HOSTILE


def test_the_page_renders_in_a_browser_without_errors(report):
    sync_api = _browser()
    problems, requests = [], []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        tab = browser.new_page(viewport={"width": 1200, "height": 900})
        tab.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
        tab.on("pageerror", lambda e: problems.append(f"page error: {e}"))
        tab.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
        tab.on("request", lambda r: requests.append(r.url))
        tab.goto(report.as_uri())
        seen = tab.evaluate(MEASURE)
        browser.close()
    assert problems == [] and requests == [report.as_uri()]
    assert seen["overflow"] <= 0, "the page is wider than a 1200 px window"
    charts_seen = seen["charts"]
    assert [c["figure"] for c in charts_seen] == ["heatmap-figure", "scaling time", "scaling memory"] + [
        "time",
        "memory",
    ] * 4
    for chart in charts_seen:
        assert chart["width"] > 200 and chart["height"] > 40, chart
        assert chart["marks"] == chart["visible"] > 0, chart
    assert seen["rows"] == [4, 4, 4, 3]


def _browser():
    """Playwright's sync API, with Debian's Chromium; skipped without them
    only outside CI, whose setup installs both."""
    missing = "" if CHROMIUM.exists() else f"{CHROMIUM} is missing (apt-get install chromium)"
    try:
        from playwright import sync_api
    except ImportError:
        sync_api, missing = None, "the playwright package is missing (pip install playwright)"
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{missing}: the test setup installs it")
        pytest.skip(missing)
    return sync_api


# Per chart: its figure, its size, how many marks (bars, lines' markers,
# heat cells) it has and how many of those the browser drew with an area.
MEASURE = """() => {
  const drawn = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const charts = [...document.querySelectorAll("svg.chart")].map(svg => {
    const marks = [...svg.querySelectorAll("rect.bar, rect.heat-cell, g.point > circle, g.point > polygon")];
    const box = svg.getBoundingClientRect();
    return {figure: svg.closest("figure").className, width: box.width, height: box.height,
            marks: marks.length, visible: marks.filter(drawn).length};
  });
  const rows = [...document.querySelectorAll("section.result table.rows")].map(t => t.tBodies[0].rows.length);
  return {charts, rows, overflow: document.documentElement.scrollWidth - window.innerWidth};
}"""


def test_the_overview_wraps_past_ten_mechanisms_whole_runtimes_at_a_time():
    rows = [f"r{r}/m{m}" for r, count in enumerate((7, 3, 6)) for m in range(count)]
    records = [
        TrialRecord(
            CellKey("triangle", row.split("/")[0], row.split("/")[1], (("n", 10),)),
            0,
            Status.OK,
            "",
            {},
            samples=tuple(Sample(False, 1_000_000 * (1 + i), 1, 1, 1, {}) for _ in range(3)),
        )
        for i, row in enumerate(rows)
    ]
    page = ET.fromstring(html_ratios.overview(aggregate.tables(records, [], {})))
    heatmaps = list(page.iter("svg"))
    columns = [[t.text for t in svg.iter("text") if t.get("transform")] for svg in heatmaps]
    assert columns == [rows[:10], rows[10:]]  # r0 and r1 (10 columns), then r2
    assert [len(classed(svg, "rect", "heat-cell")) for svg in heatmaps] == [10, 6]
    assert ["100x worse" in [t.text for t in svg.iter("text")] for svg in heatmaps] == [False, True]  # one legend


def test_runtimes_wrap_into_parts_never_split():
    assert html_ratios._wrapped([("a", 11), ("b", 6), ("c", 3), ("d", 2)], 10) == [
        [("a", 11)],
        [("b", 6), ("c", 3)],
        [("d", 2)],
    ]
