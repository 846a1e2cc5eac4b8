"""Test helper: a real PostgreSQL server in a scratch data directory, which a test may crash and start again."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from app.redis.local import free_port


def postgres_bin(name: str) -> str:
    found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    if found is None:
        raise RuntimeError(
            f"PostgreSQL's {name} is not installed (Debian: apt-get install postgresql; `make test` does)"
        )
    return found


@dataclass
class PostgresServer:
    """One server: `start()` (waits until it accepts connections), `crash()` (an immediate shutdown: every process
    ends at once without a checkpoint, as if the machine lost power, and the next start runs crash recovery),
    `stop()`. Runs as `postgres` when we are root, outside pytest's private temporary directory, which that user
    cannot enter."""

    root: Path
    port: int

    @classmethod
    def create(cls) -> PostgresServer:
        root = Path(tempfile.mkdtemp(prefix="triage-postgres-"))
        server = cls(root, free_port())
        server.sockets.mkdir()
        if os.geteuid() == 0:
            shutil.chown(root, "postgres")
            shutil.chown(server.sockets, "postgres")
        initdb = [postgres_bin("initdb"), "-D", str(server.data), "-A", "trust", "-U", "triage", "--no-sync"]
        subprocess.run([*server._prefix, *initdb], check=True, capture_output=True)
        return server

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def sockets(self) -> Path:
        return self.root / "sockets"

    @property
    def url(self) -> str:
        """The server's `postgres` database."""
        return f"postgresql+psycopg://triage@127.0.0.1:{self.port}/postgres"

    @property
    def _prefix(self) -> list[str]:
        return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def _pg_ctl(self, *args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([*self._prefix, postgres_bin("pg_ctl"), "-D", str(self.data), *args], capture_output=True)

    def start(self) -> None:
        options = f"-p {self.port} -k {self.sockets} -c listen_addresses=127.0.0.1 -c fsync=off"
        started = self._pg_ctl("-o", options, "-l", str(self.root / "log"), "-w", "start")
        if started.returncode != 0:
            raise RuntimeError(f"PostgreSQL did not start: {started.stderr.decode(errors='replace')}")

    def crash(self) -> None:
        """`pg_ctl stop -m immediate`: the postmaster SIGQUITs every backend and exits; nothing is flushed."""
        stopped = self._pg_ctl("-m", "immediate", "-w", "stop")
        if stopped.returncode != 0:
            raise RuntimeError(f"PostgreSQL did not stop: {stopped.stderr.decode(errors='replace')}")

    def running(self) -> bool:
        return self._pg_ctl("status").returncode == 0

    def stop(self) -> None:
        self._pg_ctl("-m", "fast", "stop")

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def log(self) -> str:
        try:
            return (self.root / "log").read_text(errors="replace")[-3000:]
        except OSError:
            return ""
