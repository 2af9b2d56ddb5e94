"""The HTML report: one self-contained page (inline CSS and SVG; no script,
nothing fetched): the run and its environment, the diagnosis, an overview of
ratios, the scaling with CPUs and of its sweeps, a table and two charts per
workload and parameter set (and a served workload's percentile plot), and
the failed trials. Also the page of machines side by side (report --machines): a
heatmap of their ratios per table.

Its frame is html_page.py, its heatmaps html_ratios.py, its results
html_results.py and its charts html_charts.py and html_latency.py. Every
text that came from a runtime or a user (names, parameters, stderr, details,
the environment) goes through display.html_safe, which escapes its markup
and its control characters."""

from ..display import html_safe
from ..records import TrialRecord
from .diagnosis import Diagnosis
from .figures import LEGEND
from .html_charts import scaling
from .html_page import page, section, slug
from .html_ratios import HEAT_COLOURS, overview, side_by_side
from .html_results import results
from .machines import READING, MachinesReport
from .run_report import RunReport
from .stability import Stability


def render(report: RunReport) -> str:
    sections = {
        "Diagnosis": _diagnosis(report.diagnosis),
        "Overview": overview(report.tables),
        "Scaling": scaling(report.tables, report.scaling),
        "Results": results(report.tables),
        "Repeat check": _stability(report.repeat_check),
        "Failed trials": _failures(report.failed),
        "How to read": _reading(),
    }
    shown = {name: part for name, part in sections.items() if part}
    return page(f"concbench run {report.run.id}", [_header(report, list(shown)), *shown.values()])


def _header(report: RunReport, sections: list[str]) -> str:
    run, failed = report.run, report.failed
    facts = [
        ("started", run.started),
        ("finished", run.finished or "–"),
        ("state", run.state),
        ("profile", run.request.get("profile", "?")),
        ("asked for", _selection(run.request)),
        ("trials", f"{len(report.trials) - len(failed)} of {len(report.trials)} verified"),
    ]
    if report.speed:
        facts.append(("machine speed", report.speed.text()))
    alert = (
        f'<p class="alert">{len(failed)} of {len(report.trials)} trials failed or did not verify: '
        '<a href="#failed-trials">the failed trials</a>. A trial that is not verified never enters '
        "a figure.</p>"
        if failed
        else ""
    )
    nav = " · ".join(f'<a href="#{slug(name)}">{html_safe(name)}</a>' for name in sections)
    return (
        f'<header>\n<h1>concbench <span class="run">run {run.id}</span></h1>\n<div class="about">'
        + _facts("Run", facts)
        + _facts("Environment", report.environment)
        + f"</div>\n{alert}\n<nav>{nav}</nav>\n</header>"
    )


def _facts(caption: str, pairs: list[tuple[str, str]]) -> str:
    rows = "".join(f"<tr><th>{html_safe(label)}</th><td>{html_safe(value)}</td></tr>" for label, value in pairs)
    return f'<table class="facts"><caption>{html_safe(caption)}</caption>{rows}</table>'


def _selection(request: dict) -> str:
    """What the run command asked for, beyond the profile."""
    parts = [
        f"{key} {', '.join(map(str, request[key]))}"
        for key in ("workloads", "runtimes", "mechanisms", "options")
        if request.get(key)
    ]
    parts += [f"{name}={','.join(map(str, values))}" for name, values in (request.get("params") or {}).items()]
    parts += [
        f"{key} {request[key]}"
        for key in ("trials", "warmup", "runs", "timeout", "target", "max_trials", "budget", "min_run", "repeat_of")
        if request.get(key) is not None
    ]
    return "; ".join(parts) or "everything"


def _diagnosis(found: Diagnosis | None) -> str:
    """The diagnosis: its paragraphs as a list between its heading and its summary."""
    if not found:
        return ""
    items = "<ul>" + "".join(f"<li>{html_safe(paragraph)}</li>" for paragraph in found.paragraphs) + "</ul>"
    return section(
        "Diagnosis", "Diagnosis", f"<p>{html_safe(found.heading)}</p>", items, f"<p>{html_safe(found.summary)}</p>"
    )


def _stability(found: Stability | None) -> str:
    """A repeat check's summary and the cells that moved most."""
    if not found:
        return ""
    rows = "".join(f"<tr><td>{html_safe(cell)}</td><td>{difference:.1%}</td></tr>" for cell, difference in found.worst)
    worst = (
        f'<table class="facts"><caption>the {len(found.worst)} cells that moved most</caption>'
        f"<tr><th>cell</th><th>difference</th></tr>{rows}</table>"
    )
    return section("Repeat check", "Repeat check", f"<p>{html_safe(found.summary())}</p>", worst)


def _failures(failed: list[TrialRecord]) -> str:
    if not failed:
        return ""
    cells = {cell: i for i, cell in enumerate(dict.fromkeys(t.cell for t in failed))}  # each cell's trials together
    rows = "".join(
        f'<tr><td>{html_safe(t.cell.workload)} <span class="params">{html_safe(t.cell.params_text)}</span></td>'
        f'<td class="mech">{html_safe(t.cell.row)}</td><td class="num">{t.trial + 1}</td>'
        f'<td class="status">{html_safe(str(t.status).upper())}</td><td>{html_safe(t.detail)}{_stderr(t.stderr)}</td></tr>'
        for t in sorted(failed, key=lambda t: (cells[t.cell], t.trial))
    )
    return section(
        "Failed trials",
        f"Failed trials ({len(failed)})",
        "<p>Every trial that failed or did not verify, with the end of its stderr; none of them enters a figure.</p>",
        f'<div class="scroll"><table class="failed"><thead><tr><th>workload</th><th>mechanism</th>'
        f'<th class="num">trial</th><th>status</th><th>detail</th></tr></thead>'
        f"<tbody>{rows}</tbody></table></div>",
    )


def _stderr(stderr: str) -> str:
    if not stderr.strip():
        return '<div class="muted">no stderr</div>'
    lines = len(stderr.rstrip("\n").splitlines())
    summary = f"stderr ({lines} line{'s' if lines > 1 else ''})"
    return f"<details><summary>{summary}</summary><pre>{html_safe(stderr)}</pre></details>"


def _reading() -> str:
    return section(
        "How to read", "How to read", "<ul>" + "".join(f"<li>{html_safe(item)}</li>" for item in LEGEND) + "</ul>"
    )


# Machines side by side (concbench report --machines): a heatmap per table


def render_machines(found: MachinesReport) -> str:
    header = (
        '<header id="machines">\n<h1>concbench <span class="run">machines side by side</span></h1>\n'
        f'<div class="about">{_facts("Machines", [(m.name, m.summary()) for m in found.machines])}</div>\n</header>'
    )
    names = [m.name for m in found.machines]
    return page(
        "concbench machines",
        [
            header,
            section(
                "Ratios",
                "Ratios to each machine's own baseline",
                f"<p>{html_safe(READING)} {HEAT_COLOURS} on that machine (n/a, unavailable, or not in its run).</p>",
                *(side_by_side(side, names, side is found.tables[-1]) for side in found.tables),
            ),
        ],
    )
