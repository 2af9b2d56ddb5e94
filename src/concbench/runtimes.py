"""Runtime manifests (runtimes/<name>/runtime.toml): how to detect, provide
and build a toolchain, the command that runs one trial, the mechanisms it
offers and the cells it cannot express. A manifest may extend another, to run
the same kit on another interpreter. Nothing here knows any particular
language."""

import contextlib
import os
import re
import signal
import subprocess
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Annotated, Literal

import pydantic

from . import machine_lock, orphans, paths
from .errors import UserError
from .toml_models import Strict, read_toml, validated

PROBE_TIMEOUT = 30
# make's own line on a failed recipe ("make: *** [Makefile:14: detect] Error 1"),
# which would hide the recipe's reason printed above it.
MAKE_FAILED = re.compile(r"make(\[\d+\])?: \*\*\* ")
BUILD_TIMEOUT_DEFAULT = 1800  # seconds: a cold build of the slowest kit takes minutes, not half an hour
BUILD_TIMEOUT_MAX = 86400  # a day; poll() takes no more than about 24 days


def build_timeout() -> int:
    """A build's time limit: CONCBENCH_BUILD_TIMEOUT seconds, else the default,
    so that a hanging build cannot hold the machine's turn for ever. Plain
    ASCII digits only: int() would take ' 5', '+5', '1_000' and other scripts' digits."""
    given = os.environ.get("CONCBENCH_BUILD_TIMEOUT", "")
    if not given:
        return BUILD_TIMEOUT_DEFAULT
    if not (given.isascii() and given.isdigit() and 1 <= int(given) <= BUILD_TIMEOUT_MAX):
        raise UserError(
            f"CONCBENCH_BUILD_TIMEOUT {given!r}: expected a whole number of seconds from 1 to {BUILD_TIMEOUT_MAX} (a day)"
        )
    return int(given)


PROBE_SAYS = 200  # characters of a failed probe's last line kept in the reason


# Debian Policy 5.6.1: what a package may be called; anything else (an
# option such as -oDPkg::Pre-Invoke=...) must never reach apt-get's argv.
DEBIAN_PACKAGE = re.compile(r"[a-z0-9][a-z0-9+.-]+")


def debian_package(name: str) -> str:
    if not DEBIAN_PACKAGE.fullmatch(name):
        raise ValueError(f"{name!r} is not a Debian package name (lower-case letters, digits, + - ., at least two)")
    return name


DebianPackage = Annotated[str, pydantic.AfterValidator(debian_package)]


class Option(Strict):
    args: list[str]
    doc: str


class Limit(Strict):
    """The most of a parameter a mechanism can take on a workload, and why;
    only in the tables whose parameters have the values `where` gives, if it
    gives any (a start too slow for the units to sleep together is no limit
    where they do not sleep)."""

    param: str
    max: int
    why: str
    where: dict[str, int | float | str] = {}

    def where_text(self) -> str:
        """` where delay_ms=5000`, or nothing for a limit on every table."""
        pairs = ", ".join(f"{name}={value}" for name, value in self.where.items())
        return f" where {pairs}" if pairs else ""


def _as_list(value):
    return [value] if isinstance(value, dict) else value


class Mechanism(Strict):
    doc: str
    # Set where the mechanism runs every workload on a fixed number of units
    # whatever the workload says (none: 0, one thread multiplexing: 1).
    units: int | None = pydantic.Field(default=None, ge=0)
    requires: list[str] = []
    packages: list[DebianPackage] = []
    # How to get its library where no Debian package has it (a gem, a
    # Haskell package): said when requires fails, in place of an apt-get line.
    # Such a mechanism is optional: the project installs nothing of it, so
    # doctor does not count it missing and the tests skip it where it is absent.
    install: str | None = None
    na: dict[str, str] = {}
    # A mechanism that runs a few workloads only (one call of a library's
    # that its report compares on two workloads): those, and why it runs no
    # other, each n/a with that reason unless na gives its own.
    only: list[str] = []
    na_others: str | None = None
    # By workload id: a limit, or several (each its own tables, `where`).
    limits: dict[str, Annotated[list[Limit], pydantic.BeforeValidator(_as_list)]] = {}
    # By workload id: what a reader of the row must know, such as why its
    # units ran one after another; shown under the table.
    notes: dict[str, str] = {}
    # Where its trials need other warm-ups than the runtime's: one that forks
    # reads its children's memory only in a warm-up run, whose time is
    # discarded (docs/protocol.md, "Memory of mechanisms that fork"); one whose
    # units run in isolates started afresh each run gains nothing from any.
    warmup: int | None = pydantic.Field(default=None, ge=0, le=1000)

    @pydantic.model_validator(mode="after")
    def _others_explained(self):
        if bool(self.only) != bool(self.na_others):
            raise ValueError("only and na_others go together: the workloads it runs, and why it runs no other")
        return self


class Manifest(Strict):
    name: str
    language: str
    summary: str
    detect: list[str] = pydantic.Field(min_length=1)
    packages: list[DebianPackage] = []
    # How to get a toolchain that no Debian package provides (Go, rustup's
    # cargo): said when detect fails, instead of an apt-get line.
    install: str | None = None
    # How concbench gets that toolchain itself, on request (concbench setup
    # --provide NAME): a long build, cached outside the repository, which
    # install then names.
    provide: list[str] = []
    # The program that runs the kit, which detect, build, command and requires
    # name as {interpreter}: a manifest that extends this one gives its own.
    interpreter: str | None = None
    command: list[str] = pydantic.Field(min_length=1)
    build: list[str] = []
    options: dict[str, Option] = {}
    # The warm-ups a trial of this runtime takes, measured: as many as its
    # first runs are slower than the rest (a heap growing), none where they
    # are not, or "steady": until its runs are (a JIT compiling; warmup.py,
    # which its kit then implements). docs/protocol.md, "Warm-up". A --warmup
    # given replaces it, and the smoke profile takes none. Unmeasured: the one
    # warm-up every trial took before runtimes stated theirs.
    warmup: Annotated[int, pydantic.Field(ge=0, le=1000)] | Literal["steady"] = 1
    mechanisms: dict[str, Mechanism] = pydantic.Field(min_length=1)
    # Mechanisms this runtime would offer but that cannot be had here, and why
    # (doctor and list name them, so that nobody takes their absence for an oversight).
    absent: dict[str, str] = {}

    @pydantic.model_validator(mode="after")
    def _interpreter_given(self):
        commands = [self.detect, self.build, self.command, self.provide]
        commands += [m.requires + [m.install or ""] for m in self.mechanisms.values()]
        if self.interpreter is None and any("{interpreter}" in arg for argv in commands for arg in argv):
            raise ValueError("a command names {interpreter}, but the manifest gives no interpreter")
        return self


@dataclass(frozen=True)
class Probe:
    """The outcome of running a detection command."""

    ok: bool
    output: str


def probe(argv: list[str]) -> Probe:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        return Probe(False, str(e))
    output = done.stdout if done.returncode == 0 else done.stderr or done.stdout
    return Probe(done.returncode == 0, last_said(output))


def last_said(output: str) -> str:
    """A command's last line that says something, other than make's report of a failed recipe."""
    lines = [line for line in output.strip().splitlines() if not MAKE_FAILED.match(line)]
    return lines[-1] if lines else ""


class Runtime:
    def __init__(self, folder: Path, manifest: Manifest, kit: Path | None = None):
        self.folder = folder
        self.manifest = manifest
        self.kit = kit or folder  # the folder of its workload files: the base's, for one that extends
        self.name = manifest.name
        self._requirements: dict[str, Probe] = {}
        self.build_error: str | None = None

    def expand(self, argv: list[str], options: tuple[str, ...] = ()) -> list[str]:
        """Fill in {dir}, {interpreter}, {mechanisms} (their names, comma-separated)
        and {options} (which becomes zero or more arguments)."""
        out = []
        for arg in argv:
            if arg == "{options}":
                out += [a for o in options for a in self.manifest.options[o].args]
            else:
                arg = arg.replace("{interpreter}", self.manifest.interpreter or "")
                arg = arg.replace("{mechanisms}", ",".join(self.manifest.mechanisms))
                out.append(arg.replace("{dir}", str(self.folder)))
        return out

    def warmup(self, mechanism: str) -> int | Literal["steady"]:
        """The warm-ups a trial of this mechanism takes: its own, else the runtime's."""
        own = self.manifest.mechanisms[mechanism].warmup
        return self.manifest.warmup if own is None else own

    def implements(self, workload: str) -> bool:
        return any((self.kit / "workloads").glob(f"{workload}.*"))

    def na_reason(self, workload: str, mechanism: str, params: dict | None = None) -> str | None:
        """Why a cell cannot run here (with these parameters, if given), or None
        if it must run and verify."""
        spec = self.manifest.mechanisms[mechanism]
        if spec.only and workload not in spec.only:
            return spec.na.get(workload) or spec.na_others
        if not self.implements(workload):  # a file for no mechanism: the manifest's reason, if it gives one
            return spec.na.get(workload) or f"not implemented in {self.name} yet"
        if params is not None:
            for limit in spec.limits.get(workload, []):
                if reason := self._over_limit(limit, workload, mechanism, params):
                    return reason
        return spec.na.get(workload)

    def _over_limit(self, limit: Limit, workload: str, mechanism: str, params: dict) -> str | None:
        """Why these parameters are over the limit (their n/a reason), or None if they are within it."""
        for name in (limit.param, *limit.where):
            if name not in params:
                raise UserError(
                    f"{self.folder / 'runtime.toml'}: mechanisms.{mechanism}.limits.{workload}: "
                    f"{workload} has no parameter {name!r}"
                )
        holds = all(params[name] == value for name, value in limit.where.items())
        if holds and params[limit.param] > limit.max:
            return f"{limit.why} (it takes {limit.param} <= {limit.max}{limit.where_text()})"
        return None

    @cached_property
    def toolchain(self) -> Probe:
        return probe(self.expand(self.manifest.detect))

    def unavailable(self, mechanism: str) -> str | None:
        """Why a mechanism cannot run on this machine now, with the remedy; None if it can."""
        if not self.toolchain.ok:
            return f"{self.name} is missing{self.toolchain_said} ({self.toolchain_hint})"
        if self.build_error:
            return self.build_error
        spec = self.manifest.mechanisms[mechanism]
        if spec.requires and not (found := self.probe_requirement(mechanism)).ok:
            said = f": {found.output[:PROBE_SAYS]}" if found.output else ""  # what failed, e.g. the kernel's refusal
            return f"{self.name}/{mechanism} is unusable{said} ({self.mechanism_hint(mechanism)})"
        return None

    def mechanism_hint(self, mechanism: str) -> str:
        """How to get what a mechanism requires: its library's install command, else its packages."""
        spec = self.manifest.mechanisms[mechanism]
        return self.expand([spec.install])[0] if spec.install else self.install_hint(spec.packages)

    def probe_requirement(self, mechanism: str) -> Probe:
        if mechanism not in self._requirements:
            argv = self.expand(self.manifest.mechanisms[mechanism].requires)
            self._requirements[mechanism] = probe(argv)
        return self._requirements[mechanism]

    def library_versions(self) -> dict[str, str]:
        """What the requirement probes made so far printed, by mechanism: a
        probe prints its library's version (or nothing)."""
        return {f"{self.name}/{m}": p.output for m, p in self._requirements.items() if p.ok and p.output}

    @property
    def toolchain_said(self) -> str:
        """What the detect probe said when it failed (': ...'), e.g. why a provided toolchain no longer runs."""
        return f": {self.toolchain.output[:PROBE_SAYS]}" if self.toolchain.output else ""

    @property
    def toolchain_hint(self) -> str:
        return self.manifest.install or self.install_hint(self.manifest.packages)

    @staticmethod
    def install_hint(packages: list[str]) -> str:
        return f"apt-get install {' '.join(packages)}" if packages else "see its runtime.toml"

    def build(self) -> None:
        """Build what the runtime needs (make is incremental); a failure makes
        its mechanisms unavailable, with the reason, instead of stopping the run.
        It builds in the machine's turn: a build beside another concbench's trial
        would measure in it, and two builds of one kit at once (two runs, a run
        and a doctor) would break each other's files; a lock of the kit's own
        would not do, since a kit's build may build another's (Elixir's, Erlang's)."""
        if not self.manifest.build or not self.toolchain.ok:
            return
        argv = self.expand(self.manifest.build)
        try:
            with machine_lock.machine_turn():
                code, out = _in_own_group(argv, limit := build_timeout())
        except OSError as e:
            self.build_error = f"build failed ({' '.join(argv)}): {e}"
            return
        except subprocess.TimeoutExpired:
            self.build_error = (
                f"build failed ({' '.join(argv)}): took longer than {limit:g} s (CONCBENCH_BUILD_TIMEOUT)"
            )
            return
        if code != 0:
            self.build_error = f"build failed ({' '.join(argv)}): {last_said(out) or 'no output'}"

    def provide(self) -> None:
        """Get the toolchain as the manifest's provide command does, its
        output the user's to see; idempotent, as the command is."""
        argv = self.expand(self.manifest.provide)
        try:
            done = subprocess.run(argv, stdin=subprocess.DEVNULL)
        except OSError as e:
            raise UserError(f"{self.name}: cannot provide ({' '.join(argv)}): {e}") from None
        if done.returncode != 0:
            raise UserError(
                f"{self.name}: providing failed ({' '.join(argv)}: exit {done.returncode}); its output is above"
            )

    def trial_command(self, options: tuple[str, ...]) -> list[str]:
        return self.expand(self.manifest.command, options)


def _in_own_group(argv: list[str], timeout: int) -> tuple[int, str]:
    """A command's exit code and output (stderr, else stdout), run in a
    process group of its own that is killed whole when it overruns or the
    harness is stopped (Ctrl-C, SIGTERM), so that no child of it lives on;
    the harness's mark finds what left the group (setsid), killed as the build
    ends however it ends, and lets the orphan cleaner find it if the harness is killed."""
    try:
        return _run_in_own_group(argv, timeout)
    finally:
        orphans.end_own()  # builds run before any trial: nothing marked is a trial's


def _run_in_own_group(argv: list[str], timeout: int) -> tuple[int, str]:
    with subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
        env={**os.environ, orphans.VARIABLE: orphans.mark()},
    ) as child:
        try:
            out, err = child.communicate(timeout=timeout)
        except BaseException:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)
            raise
    return child.returncode, err or out


def load_all(folders: list[Path] | None = None) -> dict[str, Runtime]:
    """Every runtime (of these folders, else the suite's): each folder of
    runtimes holds runtime folders, or is one."""
    found: dict[str, Runtime] = {}
    for folder in paths.Suite().runtime_dirs() if folders is None else folders:
        own = folder / "runtime.toml"
        for path in [own] if own.exists() else sorted(folder.glob("*/runtime.toml")):
            manifest, kit = read_manifest(path)
            if manifest.name != path.parent.name:
                raise UserError(f"{path}: name {manifest.name!r} does not match its folder")
            if manifest.name in found:
                raise UserError(
                    f"two runtimes named {manifest.name!r}: {found[manifest.name].folder} and {path.parent.resolve()}"
                )
            found[manifest.name] = Runtime(path.parent.resolve(), manifest, kit)
    return found


def read_manifest(path: Path) -> tuple[Manifest, Path]:
    """A manifest, and the folder of the kit and workload files it runs.

    A manifest may extend another (`extends`: that runtime's folder, relative
    to this one's), whose kit and files it then runs: its values replace the
    base's, tables merged key by key; the base's {dir} stays the base's
    folder; the base's mechanisms this one lists as absent are left out."""
    data = read_toml(path)
    kit = path.parent.resolve()
    if "extends" in data:
        folder = data.pop("extends")
        if not isinstance(folder, str):
            raise UserError(f"{path}: extends: the folder of the runtime it extends, as a string")
        base_path = (path.parent / folder).resolve() / "runtime.toml"
        base = read_toml(base_path)
        if "extends" in base:
            raise UserError(f"{path}: extends {base_path}, which extends another: one level only")
        kit = base_path.parent
        data = _over(_pinned(base, str(kit)), data)
        if isinstance(data.get("mechanisms"), dict) and isinstance(data.get("absent"), dict):
            data["mechanisms"] = {k: v for k, v in data["mechanisms"].items() if k not in data["absent"]}
    return validated(path, data, Manifest), kit


def _over(base: dict, own: dict) -> dict:
    """own over base: tables merged key by key; an array of tables (more
    limits on a workload) added to the base's table or tables."""
    merged = dict(base)
    for key, value in own.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            merged[key] = _over(base[key], value)
        elif _tables(value) and key in base and (isinstance(base[key], dict) or _tables(base[key])):
            merged[key] = _as_list(base[key]) + value
        else:
            merged[key] = value
    return merged


def _tables(value) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _pinned(value, folder: str):
    """The value with {dir} filled in as folder, in every string it holds."""
    if isinstance(value, str):
        return value.replace("{dir}", folder)
    if isinstance(value, list):
        return [_pinned(v, folder) for v in value]
    if isinstance(value, dict):
        return {k: _pinned(v, folder) for k, v in value.items()}
    return value
