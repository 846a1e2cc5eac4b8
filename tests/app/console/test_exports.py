"""Audit exports: private files, one per user, handed to their owner once, deleted at expiry."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from app.console.exports import ExportStore


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: Clock) -> ExportStore:
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    return ExportStore(ttl_s=60, clock=clock)


def test_an_export_is_written_private_and_taken_only_by_its_owner_once(store: ExportStore) -> None:
    token = store.save("sue", "at,incident\n")
    [file] = store.directory.iterdir()
    assert file.name == f"{token}.csv" and file.read_text() == "at,incident\n"
    assert stat.S_IMODE(file.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.directory.stat().st_mode) == 0o700
    assert store.take("dana", token) is None
    assert store.take("sue", "not-a-token") is None
    assert store.take("sue", token) == file  # dana's attempt left it to sue
    assert store.take("sue", token) is None


def test_a_new_export_replaces_the_owners_previous_one_only(store: ExportStore) -> None:
    first = store.save("sue", "one")
    other = store.save("ann", "theirs")
    second = store.save("sue", "two")
    assert sorted(path.name for path in store.directory.iterdir()) == sorted([f"{other}.csv", f"{second}.csv"])
    assert store.take("sue", first) is None
    assert store.take("ann", other) is not None


def test_an_export_not_taken_before_expiry_is_deleted(store: ExportStore, clock: Clock) -> None:
    late = store.save("sue", "late")
    clock.now += 59
    fresh = store.save("ann", "fresh")
    clock.now += 1
    assert store.take("sue", late) is None
    assert [path.name for path in store.directory.iterdir()] == [f"{fresh}.csv"]
    assert store.take("ann", fresh) is not None


def test_close_deletes_the_directory(store: ExportStore) -> None:
    store.save("sue", "x")
    store.close()
    assert not store.directory.exists()
