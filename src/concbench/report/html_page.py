"""The frame of every HTML page of the report: the page itself, self-contained
(its style inline, nothing fetched), and its sections with their anchors.
Every text from a runtime or a user goes through display.html_safe. The
markup is well-formed XML, so that the tests can parse it strictly."""

import re

from ..display import html_safe


def page(title: str, body: list[str]) -> str:
    """A self-contained page: its style inline, nothing fetched."""
    return (
        f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8"/>\n'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"/>\n'
        f"<title>{html_safe(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def section(name: str, title: str, *parts: str) -> str:
    """A top-level section; its id comes from its name, as the links of the header's navigation do."""
    return (
        f'<section id="{slug(name)}">\n<h2>{html_safe(title)}</h2>\n'
        + "\n".join(p for p in parts if p)
        + "\n</section>"
    )


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-").lower()


CSS = """
:root { --ink: #1d2330; --muted: #5b6475; --rule: #d9dde5; --faint: #eef0f4; --accent: #2f5f98;
        --bad: #b2182b; --warn: #7a4d00; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1340px; padding: 28px 32px 72px; color: var(--ink); background: #fff;
       font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
h1 { font-size: 26px; margin: 0 0 10px; font-weight: 650; }
h1 .run { color: var(--muted); font-weight: 400; }
h2 { font-size: 20px; margin: 44px 0 12px; padding-bottom: 4px; border-bottom: 2px solid var(--ink); }
h3 { font-size: 16px; margin: 0 0 8px; }
h3 .workload, .params { color: var(--muted); font-weight: 400; }
.machine { color: var(--accent); font-weight: 600; }   /* a table of one of a run's machines */
.params, .mech, pre, .index { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace;
                               font-size: 12.5px; }
nav { margin-top: 14px; font-size: 13px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 4px 7px; text-align: left; vertical-align: top; border-bottom: 1px solid var(--faint); }
thead th { font-size: 12px; font-weight: 600; color: var(--muted); border-bottom: 1px solid var(--rule);
           vertical-align: bottom; }
th.mech { font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; }
td.num { white-space: nowrap; }
table.rows { font-size: 13px; }
table.rows th, table.rows td { padding: 4px 5px; }   /* sixteen columns fit a wide window */
table.rows tbody tr:hover { background: #f7f9fc; }
tr.baseline { background: #f2f6fb; }
tr.runtime-start > * { border-top: 2px solid var(--muted); }
.tag { font: 600 10px/1 system-ui, sans-serif; color: var(--accent); border: 1px solid var(--accent);
       border-radius: 3px; padding: 1px 3px; margin-left: 6px; vertical-align: 1px; }
table.facts th { font-weight: 600; color: var(--muted); white-space: nowrap; padding-left: 0; }
table.facts td, table.facts th { border: 0; padding-top: 1px; padding-bottom: 1px; }
table.facts td { overflow-wrap: anywhere; }   /* a long path of an outside runtime */
.none, .muted { color: var(--muted); font-style: italic; }
.status { color: var(--bad); font-weight: 650; white-space: nowrap; }
.alert { color: var(--bad); background: #fdf0f0; border-left: 4px solid var(--bad); padding: 6px 12px; }
ul.remarks { color: var(--warn); margin: 6px 0; }
.tag.mark { color: var(--warn); border-color: var(--warn); }
ul.warn { color: var(--warn); background: #fff7e6; border-left: 4px solid #e0a100; padding: 6px 12px 6px 30px;
          margin: 10px 0; }
ul.skipped { color: var(--muted); font-size: 13px; margin: 8px 0; padding-left: 20px; }
ul.skipped .kind { font-weight: 600; }
.scroll { overflow-x: auto; }
section.result { margin: 0 0 20px; padding: 18px 0 10px; border-top: 1px solid var(--rule); }
ol.index { columns: 2; column-gap: 32px; padding-left: 28px; margin: 0 0 24px; }
.charts { display: flex; flex-wrap: wrap; gap: 8px 36px; align-items: flex-start; }
.about { display: grid; grid-template-columns: repeat(auto-fit, minmax(360px, 1fr)); gap: 8px 48px;
          align-items: start; }
table.facts caption { text-align: left; font-size: 11px; font-weight: 600; letter-spacing: 0.06em;
                      text-transform: uppercase; color: var(--muted); padding-bottom: 2px; }
figure { margin: 14px 0 8px; break-inside: avoid; }
.charts > figure { flex: 1 1 400px; max-width: 500px; }
figcaption { font-size: 12.5px; color: var(--muted); margin-top: 6px; max-width: 720px; }
figcaption strong { color: var(--ink); font-weight: 600; }
svg.chart { display: block; max-width: 100%; height: auto; }
svg.chart a:hover text { text-decoration: underline; }
table.failed td { font-size: 13px; }
details summary { cursor: pointer; color: var(--muted); font-size: 12.5px; }
pre { white-space: pre-wrap; word-break: break-word; max-height: 28em; overflow: auto; margin: 4px 0;
      background: #f6f7f9; border: 1px solid var(--rule); border-radius: 3px; padding: 8px 10px; }
@page { size: A4 landscape; margin: 12mm; }
@media print {
  body { max-width: none; padding: 0; font-size: 11px; }
  table.rows { font-size: 11px; }
  nav, ol.index { display: none; }
  h2 { break-after: avoid; }
  section.result { break-inside: avoid-page; }
  .scroll { overflow: visible; }
  pre { max-height: none; }
}
"""
