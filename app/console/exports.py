"""Audit CSV exports: private files, fetched once by the user who made them, deleted after the download or expiry."""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

EXPORT_TTL_S = 300.0
"""An export not downloaded within five minutes is deleted (the next search makes a new one)."""


@dataclass(frozen=True, slots=True)
class Export:
    owner: str
    path: Path
    expires: float


class ExportStore:
    """One export per user at most, in a directory only this process's user may enter (0700, files 0600).

    Gradio never sees these files: its file route serves its cache to any signed-in user, so the console links to
    its own route, which hands a file to its owner once (`take`) and refuses everyone else."""

    def __init__(self, ttl_s: float = EXPORT_TTL_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="triage-exports-"))  # mkdtemp: mode 0700
        self.ttl_s = ttl_s
        self._clock = clock
        self._exports: dict[str, Export] = {}
        self._lock = threading.Lock()
        self._remove = weakref.finalize(self, shutil.rmtree, self.directory, ignore_errors=True)  # also at exit

    def save(self, owner: str, text: str) -> str:
        """Write `text` as `owner`'s export, replacing their previous one; the token that fetches it."""
        token = secrets.token_urlsafe(24)
        path = self.directory / f"{token}.csv"
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as file:
            file.write(text)
        with self._lock:
            self._expire()
            for old in [key for key, export in self._exports.items() if export.owner == owner]:
                self._exports.pop(old).path.unlink(missing_ok=True)
            self._exports[token] = Export(owner, path, self._clock() + self.ttl_s)
        return token

    def take(self, owner: str, token: str) -> Path | None:
        """The export's file if `owner` made it and it has not expired, and forget it (the caller deletes the file
        after sending it); None for anyone else, leaving it to its owner."""
        with self._lock:
            self._expire()
            export = self._exports.get(token)
            if export is None or export.owner != owner:
                return None
            del self._exports[token]
            return export.path

    def close(self) -> None:
        """Delete every export and the directory."""
        with self._lock:
            self._exports.clear()
        self._remove()

    def _expire(self) -> None:
        now = self._clock()
        for token in [key for key, export in self._exports.items() if export.expires <= now]:
            self._exports.pop(token).path.unlink(missing_ok=True)
