"""Installing the Debian packages the runtime manifests name, when missing.
Quiet when everything is present, so `make` can call it every time."""

import os
import shutil
import subprocess

from .errors import UserError
from .runtimes import Runtime, last_said

# The harness builds its trial spawner and load generator with the C compiler.
HARNESS_PACKAGES = ["gcc", "libc6-dev"]
# The tests open the HTML report in a real browser; make lint runs hlint on
# the Haskell kit and clang-format on the C++ kit.
TEST_PACKAGES = ["chromium", "hlint", "clang-format"]
# The tests start a throwaway PostgreSQL server where it can be had; without
# it, its tests are skipped with the reason.
OPTIONAL_TEST_PACKAGES = ["postgresql"]


def required_packages(runtimes: list[Runtime], tests: bool = False) -> list[str]:
    names = HARNESS_PACKAGES + (TEST_PACKAGES if tests else [])
    for rt in runtimes:
        for package in rt.manifest.packages + [p for m in rt.manifest.mechanisms.values() for p in m.packages]:
            if package not in names:
                names.append(package)
    return names


def missing_packages(packages: list[str]) -> list[str]:
    if not shutil.which("dpkg-query"):
        raise UserError("no dpkg-query: install by hand: " + " ".join(packages))
    done = subprocess.run(
        ["dpkg-query", "-W", "-f", "${Package} ${db:Status-Status}\n", "--", *packages],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    installed = {line.split()[0] for line in done.stdout.splitlines() if line.endswith(" installed")}
    return [p for p in packages if p not in installed]


def install(packages: list[str]) -> None:
    prefix = [] if os.geteuid() == 0 else ["sudo", "-n"]
    if prefix and not shutil.which("sudo"):
        raise UserError(f"not root and no sudo: run as root: apt-get install {' '.join(packages)}")
    _run(prefix + ["apt-get", "update", "-qq"])
    _refuse_unknown(packages)
    _run(prefix + ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "--", *packages])


def _refuse_unknown(packages: list[str]) -> None:
    """apt-get reads a name it cannot find as an order (a trailing - removes
    that package, a trailing + installs it) or a pattern (a . in it), but
    takes a name that is a package's as that package: only those may reach it."""
    known = set(_run(["apt-cache", "pkgnames"]).split())
    unknown = [p for p in packages if p not in known]
    if unknown:
        raise UserError(
            f"not in apt's package lists, so apt-get would not read them as names: {' '.join(unknown)}; nothing installed"
        )


def _run(argv: list[str]) -> str:
    environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    try:
        done = subprocess.run(argv, capture_output=True, text=True, env=environment, stdin=subprocess.DEVNULL)
    except OSError as e:
        raise UserError(f"{' '.join(argv[:3])}: {e.strerror}") from None
    if done.returncode != 0:
        raise UserError(f"{' '.join(argv[:3])} failed: {last_said(done.stderr or done.stdout) or 'no output'}")
    return done.stdout
