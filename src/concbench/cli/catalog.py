"""What the suite holds and what this machine has: concbench list, doctor and setup."""

from collections.abc import Iterator

import click
from rich.text import Text

from .. import limits, paths, runtimes, workloads
from .. import setup as system
from ..display import printable
from ..errors import UserError
from ..selection import Selection
from ..store import postgresql
from .console import console
from .shared_options import suite_options


@click.command(name="list")
@suite_options
def list_(suite):
    """Workloads, runtimes, mechanisms, and every n/a cell with its reason."""
    specs, found = workloads.load_all(suite.workload_dirs()), runtimes.load_all(suite.runtime_dirs())
    console.print(_heading("Workloads", "concbench run -w ID; parameters at the quick profile"))
    for spec in specs.values():
        quick = " ".join(
            f"{k}={','.join(map(str, v)) if isinstance(v, list) else v}" for k, v in spec.profiles["quick"].items()
        )
        console.print(
            Text.assemble(printable(f"  {spec.id:<15} {spec.title}: {quick}  "), (printable(f"({spec.origin})"), "dim"))
        )
    console.print()
    console.print(_heading("Runtimes and mechanisms", "concbench run -r NAME -m NAME"))
    for rt in found.values():
        for line in _runtime_lines(rt):
            console.print(printable(line))
    console.print()
    console.print(_heading("Cells that do not run"))
    for line in _na_lines(specs, found):
        console.print(printable(line))


def _heading(title: str, hint: str = "") -> Text:
    return Text.assemble((title, "bold"), f"  ({hint})" if hint else "")


def _runtime_lines(rt: runtimes.Runtime) -> Iterator[str]:
    yield f"  {rt.name:<12} {rt.manifest.summary}"
    for name, mech in rt.manifest.mechanisms.items():
        optional = f"  (optional: {rt.mechanism_hint(name)})" if mech.install else ""
        yield f"    {rt.name + '/' + name:<18} {mech.doc}{optional}"
    for name, option in rt.manifest.options.items():
        yield f"    option {name:<11} {option.doc}  (-o {name})"
    for name, why in rt.manifest.absent.items():
        yield f"    {rt.name + '/' + name:<18} absent: {why}"


def _na_lines(specs: dict[str, workloads.Workload], found: dict[str, runtimes.Runtime]) -> Iterator[str]:
    for spec in specs.values():
        for rt in found.values():
            for mechanism in rt.manifest.mechanisms:
                row = f"{spec.id:<15} {rt.name + '/' + mechanism:<18}"
                reason = rt.na_reason(spec.id, mechanism)
                if reason:
                    yield f"  {row} n/a: {reason}"
                    continue
                for limit in rt.manifest.mechanisms[mechanism].limits.get(spec.id, []):
                    yield f"  {row} n/a above {limit.param}={limit.max}{limit.where_text()}: {limit.why}"


@click.command()
@suite_options
def doctor(suite):
    """Which toolchains and libraries are present, and how to install what is missing."""
    missing = 0
    for rt in runtimes.load_all(suite.runtime_dirs()).values():
        rt.build()
        ok = rt.toolchain.ok and not rt.build_error
        missing += not ok
        state = (
            rt.toolchain.output
            if ok
            else rt.build_error
            if rt.toolchain.ok
            else f"not found{rt.toolchain_said} ({rt.toolchain_hint})"
        )
        console.print(Text.assemble(_found(ok), printable(f" {rt.name:<16} {state}")))
        for name, mech in rt.manifest.mechanisms.items():
            if not mech.requires or not ok:
                continue
            found = rt.probe_requirement(name)
            if found.ok or not mech.install:
                missing += not found.ok
                hint = "" if found.ok else f"  ({rt.mechanism_hint(name)})"
                what = f"{found.output or ' '.join(rt.expand(mech.requires))}{hint}"
                console.print(Text.assemble(_found(found.ok), printable(f" {rt.name + '/' + name:<16} {what}")))
            else:  # a library the project does not install: not counted as missing
                said = f" ({found.output})" if found.output else ""
                where = f" {rt.name + '/' + name:<16} optional, not installed{said}: {rt.mechanism_hint(name)}"
                console.print(Text.assemble(("missing", "yellow"), printable(where)))
        for name, why in rt.manifest.absent.items():  # cannot be had here: not counted as missing
            console.print(Text.assemble(("absent ", "yellow"), printable(f" {rt.name + '/' + name:<16} {why}")))
    console.print(printable(f"database: {postgresql.shown(paths.default_db())}"))
    console.print(f"limits: {limits.describe(Selection().caps)} (concbench run --memory-limit, --process-limit)")
    return 1 if missing else 0


def _found(ok: bool) -> Text:
    return Text("ok     ", style="green") if ok else Text("missing", style="red")


@click.command()
@click.option("--dry-run", is_flag=True, help="Only print what would be installed.")
@click.option("--tests", is_flag=True, help="Also what the tests need (a browser for the HTML report).")
@click.option(
    "--provide",
    "provided",
    multiple=True,
    metavar="RUNTIME",
    help="Also build a runtime's toolchain that no package provides, as its manifest's provide "
    "command does (ruby34: Ruby 3.4, about 8 minutes, once per machine); 'all' for every such runtime.",
)
@suite_options
def setup(dry_run, tests, provided, suite):
    """Install the Debian packages the runtimes need (apt-get), if any are missing,
    and build the toolchains --provide names, if not built yet.

    Prints nothing when everything is present."""
    found = runtimes.load_all(suite.runtime_dirs())
    to_provide = _to_provide(found, provided)
    missing = system.missing_packages(system.required_packages(list(found.values()), tests))
    if missing:
        console.print(printable(f"{'would install' if dry_run else 'installing'}: {' '.join(missing)}"))
        if not dry_run:
            system.install(missing)
    optional = system.missing_packages(system.OPTIONAL_TEST_PACKAGES) if tests else []
    if optional:
        console.print(printable(f"{'would install' if dry_run else 'installing'}: {' '.join(optional)}"))
        if not dry_run:
            try:
                system.install(optional)
            except UserError as e:
                console.print(printable(f"{e}: the tests that need {' '.join(optional)} will be skipped"))
    for rt in to_provide:
        if dry_run:
            console.print(printable(f"would provide: {rt.name} ({' '.join(rt.expand(rt.manifest.provide))})"))
        else:
            rt.provide()
    return 0


def _to_provide(found: dict[str, runtimes.Runtime], names: tuple[str, ...]) -> list[runtimes.Runtime]:
    """The runtimes --provide names ('all': every one with a provide command)."""
    providable = {name: rt for name, rt in found.items() if rt.manifest.provide}
    if "all" in names:
        return list(providable.values())
    for name in names:
        if name not in providable:
            offered = ", ".join(providable) or "none"
            raise UserError(
                f"--provide {name}: no runtime of that name has a provide command (those that do: {offered})"
            )
    return [providable[name] for name in dict.fromkeys(names)]
