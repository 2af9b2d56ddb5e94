"""The Pbt seed's "Diagnosis", computed from a run instead of written by hand:
for each kind of work, which mechanism wins and by how much, and where
concurrency does not pay.

Concurrency is judged within each runtime, against that runtime's own row of
the baseline's mechanism (its plain call): Go's plain call beating Ruby's
says how fast Go is, not that concurrency pays.

A mechanism beats another only when every timed run of it was faster than
every timed run of the other: with a handful of runs on a noisy machine,
anything less is not a ranking. Medians say by how much."""

from dataclasses import dataclass

from ..results import CellResult
from .aggregate import Table
from .figures import ratio_text


@dataclass(frozen=True)
class Finding:
    """One kind of work in one runtime: its table, the runtime's sequential
    baseline, its rows with figures best first, and the winners."""

    table: Table
    base: CellResult
    ranked: tuple[CellResult, ...]
    # The best row and every row level with it within the noise, if the best
    # is the baseline or clear of it; empty when no row is clear of the baseline.
    winners: tuple[CellResult, ...]

    @property
    def concurrent_winners(self) -> tuple[CellResult, ...]:
        """The winners that started units: a row that started none (a plain
        call through a library, Pbt's worker: :none) is sequential too, and
        its win over the baseline says nothing of concurrency."""
        return tuple(r for r in self.winners if r is not self.base and r.units != (0,))

    @property
    def pays(self) -> bool:
        """Some concurrent mechanism clearly beats the sequential baseline."""
        return self.base not in self.winners and bool(self.concurrent_winners)

    def ratio(self, row: CellResult) -> float:
        return row.rate.median / self.base.rate.median


def findings(tables: list[Table]) -> list[Finding]:
    """A finding for every rate table of a kind of work, per runtime (with its
    options) that has figures for the baseline's mechanism and another row
    to judge against it."""
    found = []
    for table in tables:
        if not (table.work and table.rate_format and table.baseline):
            continue
        kits: dict[tuple, list[CellResult]] = {}
        for row in table.rows:
            if row.rate:
                kits.setdefault((row.key.runtime, row.key.options), []).append(row)
        for rows in kits.values():
            base = next((r for r in rows if r.key.mechanism == table.baseline.key.mechanism), None)
            if base and len(rows) > 1:
                ranked = tuple(sorted(rows, key=lambda r: r.rate.median, reverse=True))
                found.append(Finding(table, base, ranked, _winners(ranked, base)))
    return found


def _winners(ranked: tuple[CellResult, ...], base: CellResult) -> tuple[CellResult, ...]:
    best = ranked[0]
    if best is base:
        return (base,)
    if not _beats(best, base):
        return ()
    return tuple(r for r in ranked if r is best or (not _beats(best, r) and _beats(r, base)))


def _beats(a: CellResult, b: CellResult) -> bool:
    return a.rate.min > b.rate.max


HEADING = "Diagnosis (computed from this run; a mechanism wins only if all its timed runs beat all of the other's):"


@dataclass(frozen=True)
class Diagnosis:
    """What each format shows: the heading, a paragraph per finding (a kind
    of work), the summary; plain text, which each format escapes its own way."""

    paragraphs: tuple[str, ...]
    summary: str
    heading: str = HEADING

    def lines(self) -> list[str]:
        """For the terminal: the paragraphs as "- " items between heading and summary."""
        return [self.heading, *(f"- {paragraph}" for paragraph in self.paragraphs), self.summary]


def diagnose(tables: list[Table]) -> Diagnosis | None:
    """The diagnosis of the run's tables; None if no rate table of a kind of work judges."""
    found = findings(tables)
    if not found:
        return None
    return Diagnosis(tuple(map(_paragraph, found)), _summary(found))


def _paragraph(finding: Finding) -> str:
    table, base = finding.table, finding.base
    where = f"{table.work} ({table.label})"
    if finding.winners == (base,):
        others = ", ".join(f"{r.key.row} {ratio_text(finding.ratio(r))}" for r in finding.ranked if r is not base)
        level = [r.key.row for r in finding.ranked[1:] if not _beats(base, r)]
        verb = f"is level with {', '.join(level)} within the noise" if level else "wins"
        return f"{where}: {base.key.row} {verb}; the others reach {others} of its speed. Concurrency does not pay."
    best = finding.ranked[0]
    if not finding.winners:
        return (
            f"{where}: no mechanism is clear of {base.key.row}; the best, {best.key.row}, "
            f"is {ratio_text(finding.ratio(best))} with overlapping runs. Concurrency does not pay here."
        )
    speeds = " and ".join(f"{ratio_text(finding.ratio(r))}" for r in finding.winners)
    who = (
        f"{finding.winners[0].key.row} wins at"
        if len(finding.winners) == 1
        else f"{_names(finding.winners)} win, level within the noise, at"
    )
    rest = ", ".join(
        f"{r.key.row} {ratio_text(finding.ratio(r))}"
        for r in finding.ranked
        if r not in finding.winners and r is not base
    )
    return f"{where}: {who} {speeds} the speed of {base.key.row}" + (f"; then {rest}." if rest else ".")


def _names(rows) -> str:
    names = [r.key.row for r in rows]
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]


def _summary(found: list[Finding]) -> str:
    winners_by_work: dict[str, list[str]] = {}
    for finding in found:
        if finding.pays:
            winners_by_work.setdefault(finding.table.work, []).extend(r.key.row for r in finding.concurrent_winners)
    paying = [f"{work} ({', '.join(dict.fromkeys(rows))})" for work, rows in winners_by_work.items()]
    not_paying = sorted({finding.table.work for finding in found if finding.table.work not in winners_by_work})
    winners = {r.key.row for finding in found for r in finding.winners}
    mechanisms = dict.fromkeys(r.key.row for finding in found for r in finding.ranked)
    never = [m for m in mechanisms if m not in winners]
    parts = [f"Concurrency pays for {', '.join(paying)}" if paying else "Concurrency pays for no kind of work here"]
    if not_paying:
        parts.append(f"it does not pay for {', '.join(not_paying)}")
    summary = "; ".join(parts) + "."
    if never:
        summary += f" {', '.join(never)} win{'s' if len(never) == 1 else ''} in no case."
    return summary
