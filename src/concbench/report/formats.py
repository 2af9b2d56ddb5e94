"""The report formats, each registered once: its name, what it renders (a
run's report, and the machines side by side where it can), its one-line
help, and where it goes by default. The command line takes its --format
choices, help and default destination from here, and the rendering-safety
tests run every format registered."""

from collections.abc import Callable
from dataclasses import dataclass

from . import export, html, markdown
from .machines import MachinesReport
from .run_report import RunReport


@dataclass(frozen=True)
class Format:
    name: str
    help: str
    run: Callable[[RunReport], str]
    machines: Callable[[MachinesReport], str] | None = None
    page: bool = False  # a page to open: by default a file beside the database, not standard output

    def file_name(self, run_id: int | str | None) -> str:
        """A page's file: run-RUN.html for a run's report, machines.html for the machines side by side."""
        return f"run-{run_id}.{self.name}" if run_id is not None else f"machines.{self.name}"


FORMATS = {
    f.name: f
    for f in (
        Format("html", "one self-contained page with charts", html.render, html.render_machines, page=True),
        Format("md", "Markdown tables in the seeds' styles", markdown.render, markdown.render_machines),
        Format("csv", "every trial and run (schema in docs/formats.md)", export.csv_text),
        Format("json", "every trial and run (schema in docs/formats.md)", export.json_text),
    )
}

DEFAULT = "html"

# The machines side by side come in these: "html or md".
MACHINES_CHOICES = " or ".join(f.name for f in FORMATS.values() if f.machines)


def _format_help() -> str:
    """Each help once, after the formats that share it: 'csv, json: every trial and run'."""
    names: dict[str, list[str]] = {}
    for f in FORMATS.values():
        names.setdefault(f.help, []).append(f.name)
    return "; ".join(f"{', '.join(named)}: {help}" for help, named in names.items()) + "."


def _output_help() -> str:
    pages = "; ".join(
        f"results/{f.file_name('RUN')} (results/{f.file_name(None)} with --machines) beside the database for {f.name}"
        for f in FORMATS.values()
        if f.page
    )
    return f"Where to write it. Default: {pages}, standard output for the others."


FORMAT_HELP = _format_help()
OUTPUT_HELP = _output_help()
