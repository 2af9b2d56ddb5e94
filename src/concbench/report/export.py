"""The machine-readable reports of a run: every sample of every trial as
CSV, or one JSON document with the trials and the cells' summaries. Both are
built from the records of serialize.py; docs/formats.md documents them (and
why their field for samples is still called "runs")."""

import csv
import io
import json
from dataclasses import asdict

from ..records import PROCESS_FIGURES
from .run_report import RunReport
from .scaling import by_cell
from .serialize import cell_record, trial_record

# Raised when a field is removed or renamed, or changes its type, unit or
# meaning; adding a field or column does not raise it.
SCHEMA = 1

# A trial's record, flattened: "process" becomes process_*; its samples make
# the rows; stderr is left out (the JSON document has it).
TRIAL_COLUMNS = (
    "run",
    "workload",
    "runtime",
    "mechanism",
    "options",
    "params",
    "cpus",
    "trial",
    "status",
    "detail",
    "expected",
    *(f"process_{name}" for name in PROCESS_FIGURES),
    "peak_kb",
    "memory_method",
    "tree_rss_kb",
    "runtime_info",
    "late_generator",
    "machine",
    "machine_id",
    "cpu_set",
)
# A sample's columns: the names of its JSON record, where it is a "run".
SAMPLE_COLUMNS = (
    "run_index",
    "warmup",
    "wall_ns",
    "user_ns",
    "sys_ns",
    "units",
    "peak_live",
    "ops",
    "result",
    "evidence",
    "repeat",
    "latency",
)

# A spreadsheet reads a cell that starts with one of these as a formula (OWASP, "CSV Injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def json_text(report: RunReport) -> str:
    skipped = dict.fromkeys(s for table in report.tables for s in table.skipped)  # once, in table order
    speedups = by_cell(report.scaling)
    document = {
        "schema": SCHEMA,
        "run": asdict(report.run),
        "machine_speed": {**asdict(report.speed), "text": report.speed.text()} if report.speed else None,
        "trials": [trial_record(report.run, t) for t in report.trials],
        "cells": [
            cell_record(table, cell, speedups.get((table.label, cell.key.row)))
            for table in report.tables
            for cell in table.rows
        ],
        "skipped": [asdict(s) for s in skipped],
    }
    return json.dumps(document, indent=2) + "\n"


def csv_text(report: RunReport) -> str:
    """A row per sample of every trial, warm-ups included; a trial with no
    samples (a crash, a timeout) still has one, its sample columns empty."""
    out = io.StringIO()
    # Every text cell quoted, as OWASP's guidance on CSV injection asks: a bare
    # carriage return in a name would otherwise end the row for many readers.
    writer = csv.DictWriter(out, TRIAL_COLUMNS + SAMPLE_COLUMNS, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
    writer.writeheader()
    for t in report.trials:
        record = trial_record(report.run, t)
        trial = _trial_columns(record)
        for index, sample in enumerate(record["runs"]):
            writer.writerow(trial | _cells({"run_index": index, **sample}))
        if not record["runs"]:
            writer.writerow(trial)
    return out.getvalue()


def _trial_columns(record: dict) -> dict:
    process = {f"process_{name}": value for name, value in record["process"].items()}
    return _cells({name: value for name, value in (record | process).items() if name in TRIAL_COLUMNS})


def _cells(values: dict) -> dict:
    """Values as the JSON document writes them: true/false, lists and objects as JSON, null as empty;
    text that a spreadsheet would run as a formula is made text."""
    return {name: json.dumps(v) if isinstance(v, (bool, list, dict)) else _inert(v) for name, v in values.items()}


def _inert(value):
    """Text that starts like a formula behind a single quote, which a spreadsheet shows as text;
    numbers as they are."""
    return "'" + value if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value
