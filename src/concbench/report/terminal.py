"""Tables for the terminal in the seed's own format (Ruby's Benchmark:
user, system, total and (real), then ratio), with the figures none of the
seeds had: spread, peak memory, units and how many trials verified."""

from rich.text import Text

from ..protocol import Status
from ..store import RunInfo
from .aggregate import CellResult, Table

LEGEND = (
    "user, system, total, (real): medians in seconds over the timed runs of verified trials,\n"
    "measured by the kit around the work only; ratio: real / real of the first row (the baseline);\n"
    "spread: coefficient of variation of real; memory: median peak RSS per trial process (wait4),\n"
    "* = the whole process tree (the parent's peak + each child's private memory); units: threads,\n"
    "fibers, processes or ractors created per run; trials: verified / run. A trial that is not\n"
    "verified never enters a figure."
)


def run_header(run: RunInfo) -> Text:
    request, env = run.request, run.environment
    settings = f"{request.get('profile')} profile"
    return Text.assemble(
        (f"run {run.id}", "bold"), f"  {run.started}  {settings}  {run.state}\n",
        f"{env.get('cpu', '?')}, {env.get('cores', '?')} cores, Linux {env.get('kernel', '?')}, "
        f"load {', '.join(map(str, env.get('load', [])))}, concbench {env.get('concbench') or '?'}",
        style=None)


def render(table: Table) -> list[Text]:
    width = max([len(r.key.row) for r in table.rows] + [len(s.row) for s in table.skipped] + [12])
    header = (f"{'':<{width}}       user     system      total        real    ratio"
              f"   spread     memory   units  trials")
    lines = [Text(f"{table.title} ({table.workload}): {table.params}", style="bold"),
             Text(header, style="dim")]
    lines += [_row(table, cell, width) for cell in table.rows]
    lines += [Text(f"{s.row:<{width}}  {s.kind}: {s.reason}", style="dim") for s in table.skipped]
    lines += [line for cell in table.rows for line in _failures(cell)]
    return lines


def _row(table: Table, cell: CellResult, width: int) -> Text:
    label = f"{cell.key.row:<{width}}"
    check = _check(cell)
    if cell.real is None:
        return Text.assemble(label, " " * 48, ("no verified trial", "red"), "  ", check)
    ratio = table.ratio(cell)
    memory = cell.memory_kb
    return Text.assemble(
        f"{label} {cell.user.median:10.6f} {cell.system.median:10.6f} {cell.total.median:10.6f} "
        f"({cell.real.median:10.6f})",
        f"{'x' + format(ratio, '.2f'):>9}" if ratio is not None else f"{'-':>9}",
        f"   ±{cell.real.cv * 100:4.1f}%" if cell.real.n > 1 else f"{'-':>9}",
        f"  {memory.median / 1024:7.1f} MB" if memory else "          -",
        "*" if cell.memory_is_tree else " ",
        f"{_units(cell.units):>7}  ",
        check,
    )


def _check(cell: CellResult) -> Text:
    verified, total = len(cell.verified), len(cell.trials)
    text = Text(f"{verified}/{total}", style="green" if verified == total else "red")
    for status, count in sorted(cell.failures.items()):
        text.append(f" {count} {status.upper()}", style="bold red")
    return text


def _units(units: tuple[int, ...]) -> str:
    if not units:
        return "-"
    return str(units[0]) if len(units) == 1 else f"{units[0]}-{units[-1]}"


def _failures(cell: CellResult) -> list[Text]:
    """Each distinct failure of a cell once, with the trials it hit and the end of its stderr."""
    seen: dict[tuple, list[int]] = {}
    for t in cell.trials:
        if t.status != Status.OK:
            seen.setdefault((t.status, t.detail, t.stderr), []).append(t.trial + 1)
    lines = []
    for (status, detail, stderr), numbers in seen.items():
        which = "trial" + ("s " if len(numbers) > 1 else " ") + ", ".join(map(str, numbers))
        lines.append(Text.assemble(f"  {cell.key.row} {which}: ", (status.upper(), "bold red"),
                                   f": {detail}"))
        lines += [Text(f"    | {line[:160]}", style="dim") for line in stderr.strip().splitlines()[-3:]]
    return lines
