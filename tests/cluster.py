"""A throwaway PostgreSQL cluster for the tests: initdb and pg_ctl from
Debian's postgresql, on a Unix socket in a temporary folder, run as the
postgres user when the tests run as root (the server refuses root)."""

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

USER, PASSWORD = "concbench", "a secret"


def server_bin() -> Path | None:
    """The newest installed server's programs, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(Path(p).parts[-3]))
    return Path(found[-1]).parent if found else None


class Cluster:
    def __init__(self, bin_dir: Path):
        self.bin = bin_dir
        self.owner = "postgres" if os.geteuid() == 0 else None
        self.folder = Path(tempfile.mkdtemp(prefix="concbench-pg-"))
        self.data = self.folder / "data"
        self.socket = self.folder / "socket"
        self.socket.mkdir()
        if self.owner:
            account = pwd.getpwnam(self.owner)
            for path in (self.folder, self.socket):
                os.chown(path, account.pw_uid, account.pw_gid)
        os.chmod(self.folder, 0o755)
        secret = self.folder / "password"
        secret.write_text(PASSWORD + "\n")
        os.chmod(secret, 0o644)
        self._as_owner("initdb", "-D", self.data, "-U", USER, "--pwfile", secret, "-A", "scram-sha-256", "--no-sync")
        self.start()

    def _as_owner(self, program: str, *args) -> None:
        done = subprocess.run(
            [self.bin / program, *map(str, args)],
            user=self.owner,
            capture_output=True,
            text=True,
            cwd=self.folder,
            stdin=subprocess.DEVNULL,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{program} failed: {(done.stderr or done.stdout).strip()[-500:]}")

    def start(self) -> None:
        settings = f"-k {self.socket} -c listen_addresses='' -c fsync=off"
        self._as_owner("pg_ctl", "-D", self.data, "-o", settings, "-l", self.folder / "log", "-w", "start")

    def stop(self) -> None:
        self._as_owner("pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop")

    def url(self, database: str = "postgres", password: str | None = PASSWORD) -> str:
        """The database's URL, with the password (None: without, for libpq to find)."""
        userinfo = USER if password is None else f"{USER}:{password.replace(' ', '%20')}"
        return f"postgresql://{userinfo}@/{database}?host={self.socket}"

    def new_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as db:
            db.execute(f'DROP DATABASE IF EXISTS "{name}"')
            db.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def remove(self) -> None:
        with contextlib.suppress(RuntimeError):  # already stopped
            self._as_owner("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)
