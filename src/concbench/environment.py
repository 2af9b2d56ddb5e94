"""A fingerprint of the machine and toolchains, stored with every run."""

import hashlib
import os
import platform
import re
import subprocess
from pathlib import Path

from . import limits, paths, trial
from .runtimes import Runtime
from .store import postgresql

# The variables that change what a trial loads (its gems, packages, modules,
# shared libraries, interpreter options): trials inherit them, so two runs of
# one checkout can load different libraries. Options can carry secrets
# (-Dx.password=..., a URL's user:password@): recorded() masks them.
LOADER_VARIABLES = (
    "GEM_PATH",
    "GEM_HOME",
    "RUBYLIB",
    "RUBYOPT",
    "GHC_PACKAGE_PATH",
    "GHC_ENVIRONMENT",
    "GHCRTS",
    "PYTHONPATH",
    "NODE_OPTIONS",
    "JAVA_TOOL_OPTIONS",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
)
RECORDED_CHARACTERS = 1000  # of each loader variable: enough to name its folders, not a 100 KB path
# -Dkey=value, --key=value or KEY=value: its key, starting after no key
# character (so that a long run of them is scanned once, not once for each
# of its characters); its value, up to the next space outside quotes.
SETTING_KEY = re.compile(r"(?<![\w.-])([\w.-]+)=")
SETTING_VALUE = re.compile(r"""(?:"[^"]*"?|'[^']*'?|[^\s"'])*""")
SECRET_KEY = re.compile(r"password|passwd|secret|token|api[-_]?key|credential", re.IGNORECASE)
URL = re.compile(r"(?<![A-Za-z0-9+.-])" + postgresql.ANY_URL.pattern + r"\S+")


def fingerprint(
    runtimes: list[Runtime], caps: limits.Limits, machine_name: str | None = None, suite: paths.Suite = paths.Suite()
) -> dict:
    return {
        "machine": machine_name or platform.node() or "unnamed",
        "machine_id": machine_id(),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "usable_cores": len(os.sched_getaffinity(0)),  # fewer where concbench was pinned (taskset)
        "memory_kb": _meminfo_total_kb(),
        "kernel": platform.release(),
        "load": [round(x, 2) for x in os.getloadavg()],
        "governor": _read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor").strip() or None,
        "cpu_mhz": _cpu_mhz(),
        "python": platform.python_version(),
        "concbench": _commit(paths.PROJECT),
        "runtimes": {r.name: r.toolchain.output for r in runtimes if r.toolchain.ok},
        "origins": _origins(runtimes, suite),
        "libraries": {k: v for r in runtimes for k, v in r.library_versions().items()},
        "loader": {name: recorded(os.environ[name]) for name in LOADER_VARIABLES if name in os.environ},
        "limits": limits.describe(caps),
        "confinement": limits.confinement(),  # of a trial run at --cpus
        "trials": trial.conditions(),
    }


def recorded(value: str) -> str:
    """A loader variable as a run stores it: its secrets ***, then its first
    RECORDED_CHARACTERS, saying how many more were cut. Masked before the cut,
    which could split a URL's user:password@ so that it no longer looks like one."""
    value = URL.sub(lambda url: postgresql.shown(url[0]), value)
    value = _secret_values_masked(value)
    cut = len(value) - RECORDED_CHARACTERS
    return value if cut <= 0 else f"{value[:RECORDED_CHARACTERS]}... [{cut} characters cut]"


def _secret_values_masked(value: str) -> str:
    kept, at = [], 0
    for key in SETTING_KEY.finditer(value):
        if key.start() >= at and SECRET_KEY.search(key[1]):
            kept += [value[at : key.end()], postgresql.MASK]
            at = SETTING_VALUE.match(value, key.end()).end()
    return "".join(kept) + value[at:]


def machine_id() -> str:
    """A stable id of this machine: a hash of the host's machine-id (systemd's
    or D-Bus's: the id itself is meant to stay on the machine), or of its host
    name where it has neither."""
    host = _read("/etc/machine-id").strip() or _read("/var/lib/dbus/machine-id").strip() or platform.node()
    return hashlib.sha256(f"concbench machine {host}".encode()).hexdigest()[:16]


def same_machine(a: dict, b: dict) -> bool:
    """Whether two runs' fingerprints say one machine ran both; a run stored
    before machines were recorded could have run on either."""
    return not (a.get("machine_id") and b.get("machine_id")) or a["machine_id"] == b["machine_id"]


def machine_text(env: dict) -> str:
    """A run's machine as people name it: its name, with its id."""
    if not env.get("machine_id"):
        return "an unrecorded machine"
    return f"{env.get('machine')} ({env['machine_id']})"


def _cores(env: dict) -> str:
    usable = env.get("usable_cores")
    pinned = f" ({usable} usable by its trials)" if usable and usable != env.get("cores") else ""
    return f"{env.get('cores', '?')} cores{pinned}"


def _cpu_model() -> str:
    for line in _read("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def _cpu_mhz() -> int | None:
    """The current clock of the first CPU, where the kernel tells it."""
    khz = _read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq").strip()
    if khz.isdigit():
        return int(khz) // 1000
    for line in _read("/proc/cpuinfo").splitlines():
        if line.startswith("cpu MHz"):
            return round(float(line.split(":", 1)[1]))
    return None


def _meminfo_total_kb() -> int | None:
    for line in _read("/proc/meminfo").splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1])
    return None


def _origins(runtimes: list[Runtime], suite: paths.Suite) -> dict[str, str]:
    """Where what is not part of this checkout came from: runtimes and
    workload folders from outside it, with their git commits."""
    found = {f"runtime {r.name}": _place(r.folder) for r in runtimes if not paths.in_project(r.folder)}
    specs = [_place(folder) for folder in suite.workload_dirs() if not paths.in_project(folder)]
    return found | ({"workloads": "; ".join(specs)} if specs else {})


def _place(folder: Path) -> str:
    commit = _commit(folder)
    return f"{folder.resolve()}" + (f" (git {commit})" if commit else "")


def _commit(folder: Path) -> str:
    """The short commit of the git work tree holding folder, -dirty if its
    tracked files changed there; '' outside a work tree."""

    def git(*args):
        return subprocess.run(
            ["git", "-C", str(folder), *args], capture_output=True, text=True, stdin=subprocess.DEVNULL
        ).stdout.strip()

    try:
        commit = git("rev-parse", "--short", "HEAD")
        changed = commit and git("status", "--porcelain", "--untracked-files=no", "--", ".")
        return commit + ("-dirty" if changed else "")
    except OSError:
        return ""


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def describe(env: dict, runtime_infos: list[dict] = ()) -> list[tuple[str, str]]:
    """The fingerprint as labelled lines for a report. Flags come from the
    trials (runtime_infos), as each runtime reported them: options such as
    yjit change them per cell."""
    memory = env.get("memory_kb")
    clock = ", ".join(
        filter(
            None,
            [
                f"{env['cpu_mhz']} MHz" if env.get("cpu_mhz") else "",
                f"governor {env['governor']}" if env.get("governor") else "",
            ],
        )
    )
    lines = [
        *([("machine", machine_text(env))] if env.get("machine_id") else []),
        ("CPU", f"{env.get('cpu', '?')}, {_cores(env)}" + (f", {clock}" if clock else "")),
        ("memory", f"{memory / 1024**2:.1f} GiB" if memory else "?"),
        ("kernel", f"Linux {env.get('kernel', '?')}"),
        ("load at start", ", ".join(map(str, env.get("load", []))) + " (1, 5, 15 minutes)"),
        ("concbench", env.get("concbench") or "?"),
        *([("limits", env["limits"])] if env.get("limits") else []),
        *([("trial processes", env["trials"])] if env.get("trials") else []),
        *([("trials at --cpus", f"confined by {env['confinement']}")] if env.get("confinement") else []),
        ("harness", f"Python {env.get('python', '?')}"),
    ]
    flag_sets: dict[str, list[tuple[str, ...]]] = {}
    for info in runtime_infos:
        seen = flag_sets.setdefault(info.get("name", "?"), [])
        if tuple(info.get("flags") or ()) not in seen:
            seen.append(tuple(info.get("flags") or ()))
    for name, version in env.get("runtimes", {}).items():
        lines.append((name, version + (f", {_flags_text(flag_sets[name])}" if name in flag_sets else "")))
    origins = [(what, f"from {place}") for what, place in env.get("origins", {}).items()]
    return lines + list(env.get("libraries", {}).items()) + list(env.get("loader", {}).items()) + origins


def _flags_text(sets: list[tuple[str, ...]]) -> str:
    """A runtime's flags as its trials reported them: those every trial had,
    once, then what the others added (a mechanism's, an option's)."""
    common = [flag for flag in sets[0] if all(flag in s for s in sets[1:])]
    if len(sets) == 1 or not common:
        return " or ".join("flags " + " ".join(s) if s else "no flags" for s in sets)
    extras = [" ".join(flag for flag in s if flag not in common) for s in sets]
    some = "plus nothing or one of: " if "" in extras else "plus one of: "
    return "flags " + " ".join(common) + ", " + some + " | ".join(extra for extra in extras if extra)


def differences(before: dict, after: dict) -> list[str]:
    """What differs between the fingerprints of two runs, 'what: before -> after'
    (the machine, or the toolchains, may explain a change as well as the code)."""

    def flat(env: dict) -> dict:
        nested = {
            f"{label} {k}": v
            for kind, label in (("runtimes", "runtime"), ("libraries", "library"), ("loader", "variable"))
            for k, v in env.get(kind, {}).items()
        }
        nested |= {f"{what} from": place for what, place in env.get("origins", {}).items()}
        ignored = ("load", "cpu_mhz", "runtimes", "libraries", "loader", "origins")
        return {**{k: v for k, v in env.items() if k not in ignored}, **nested}

    a, b = flat(before), flat(after)
    return [
        f"{key}: {a.get(key, '-')} -> {b.get(key, '-')}" for key in dict.fromkeys([*a, *b]) if a.get(key) != b.get(key)
    ]
