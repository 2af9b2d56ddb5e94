"""The two versions of a runtime that `concbench ab` sets against each other.
A version is this checkout's runtimes, a folder of runtimes, or a git
revision of this checkout, each with runtime options of its own (-o yjit
against none). Where both sides would have the same rows, each side's
runtimes carry its letter (c@a, c@b), so that one run holds both."""

import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import orphans, paths, runtimes
from .errors import UserError

CURRENT = "current"
# What a git revision's runtimes/ may unpack to: a kit's sources are
# kilobytes; a commit could hold a file of any size, written under /tmp.
FILE_MOST = 64 * 2**20
TOTAL_MOST = 512 * 2**20


@dataclass(frozen=True)
class Version:
    letter: str  # "a" or "b"
    given: str  # as given: current, dir:PATH or git:REV
    options: tuple[str, ...]

    @property
    def kind(self) -> str:
        return self.given.partition(":")[0] if ":" in self.given else self.given

    @property
    def where(self) -> str:
        return self.given.partition(":")[2]


def parse(letter: str, given: str, options: tuple[str, ...]) -> Version:
    version = Version(letter, given, options)
    if given != CURRENT and version.kind not in ("dir", "git") or (version.kind != CURRENT and not version.where):
        raise UserError(f"--{letter} {given!r}: expected current, dir:PATH (a folder of runtimes) or git:REV")
    if version.kind == "dir" and not Path(version.where).expanduser().is_dir():
        raise UserError(f"--{letter} {given!r}: {version.where} is not a folder")
    return version


def lettered(a: Version, b: Version, runtime: runtimes.Runtime) -> bool:
    """Whether the runtime's rows need their sides' letters: only the options
    it has tell rows apart (-o slow5 on the C kit, none on Ruby's)."""
    return [o for o in a.options if o in runtime.manifest.options] == [
        o for o in b.options if o in runtime.manifest.options
    ]


class Checkouts:
    """The runtimes of each version, a git revision's unpacked in a temporary
    folder for as long as the A/B run lasts."""

    def __init__(self, suite: paths.Suite = paths.Suite()):
        self._suite = suite  # where this checkout's runtimes are
        # marked as the harness's, for the orphan cleaner to sweep if it dies
        self._folder = tempfile.TemporaryDirectory(prefix=f"{orphans.AB_PREFIX}{orphans.mark()}-")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._folder.cleanup()

    def runtimes(self, version: Version) -> dict[str, runtimes.Runtime]:
        """This checkout's runtimes (and those given with --runtimes), the
        version's own in place of those of the same name."""
        found = runtimes.load_all(self._suite.runtime_dirs())
        if version.kind == "dir":
            found |= runtimes.load_all([Path(version.where).expanduser()])
        elif version.kind == "git":
            found |= runtimes.load_all([self._unpack(version)])
        return found

    def origin(self, version: Version) -> str:
        """Where the version comes from, as the run records it."""
        options = f" with -o {','.join(version.options)}" if version.options else ""
        if version.kind == "git":
            return f"git {version.where} ({_commit(version.where)}){options}"
        if version.kind == "dir":
            return f"runtimes in {Path(version.where).expanduser().resolve()}{options}"
        return f"this checkout{options}"

    def _unpack(self, version: Version) -> Path:
        """runtimes/ of the revision, streamed from git archive and checked
        member by member before it is written: no copy held in memory."""
        into = Path(self._folder.name) / version.letter
        argv = _git_argv("archive", "--format=tar", _commit(version.where), "runtimes")
        with (
            tempfile.TemporaryFile() as said,
            subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=said, stdin=subprocess.DEVNULL) as git,
        ):
            try:
                with tarfile.open(fileobj=git.stdout, mode="r|") as tar:
                    tar.extractall(into, members=_bounded(tar, version), filter="data")
            except tarfile.FilterError as e:  # a link out of the folder, an absolute path
                raise UserError(
                    f"--{version.letter} {version.given!r}: runtimes/ holds what cannot be unpacked: {e}"
                ) from None
            except tarfile.ReadError as e:  # git failed, leaving an empty or cut stream
                said.seek(0)
                raise _failed(argv, said.read() or str(e).encode()) from None
            finally:
                git.kill()  # a refused archive's git is still writing; a read one's has exited
        return into / "runtimes"


def _bounded(tar: tarfile.TarFile, version: Version):
    """The archive's members, refused before the first too large to write."""
    total = 0
    for member in tar:
        total += member.size
        if member.size > FILE_MOST:
            raise UserError(
                f"--{version.letter} {version.given!r}: {member.name} holds {member.size} bytes, "
                f"more than the {_mib(FILE_MOST)} a file of runtimes/ may"
            )
        if total > TOTAL_MOST:
            raise UserError(
                f"--{version.letter} {version.given!r}: runtimes/ holds more than {_mib(TOTAL_MOST)}, "
                f"{member.name} past it"
            )
        yield member


def _mib(size: int) -> str:
    return f"{size / 2**20:g} MiB"


def _commit(revision: str) -> str:
    return _git("rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}").strip()


def _git(*args: str) -> str:
    argv = _git_argv(*args)
    try:
        done = subprocess.run(argv, capture_output=True, stdin=subprocess.DEVNULL)
    except OSError as e:
        raise UserError(f"git: {e}") from None
    if done.returncode != 0:
        raise _failed(argv, done.stderr)
    return done.stdout.decode(errors="replace")


def _git_argv(*args: str) -> list[str]:
    return ["git", "-C", str(paths.PROJECT), *args]


def _failed(argv: list[str], said: bytes) -> UserError:
    return UserError(
        f"git {argv[3]} {argv[-1]!r} failed: {said.decode(errors='replace').strip() or 'no such revision'}"
    )
