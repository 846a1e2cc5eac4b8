"""Two deliveries of one incident (a worker frozen past its lease, the heap handing the incident to another): the
first to finish stands, and the incident's guidance and outcome are always that one delivery's, never a mix. Run on
SQLite and on PostgreSQL, where the incident's row is locked while a delivery writes or finishes."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from app.db.models import Guidance, GuidanceState, Incident, Outcome, utcnow
from app.db.session import session_scope
from app.engine_worker.outcomes import (
    Served,
    WrittenGuidance,
    open_incident,
    put_guidance,
    put_outcome,
    record_failed,
    record_finished,
    write_guidance,
)
from app.guidance.checker import Failure, GuidanceCheck
from scheduler.redis_heap import HeapItem
from tests.app.engine_worker.one_call import add_call_1
from tests.app.triage_stub import fresh_database

ACCEPTED = utcnow()


def one_call_generating(request: pytest.FixtureRequest, tmp_path: Path, backend: str) -> str:
    """A migrated database holding `call-1`, its guidance being generated."""
    database_url = fresh_database(request, tmp_path, backend)
    add_call_1(database_url, GuidanceState.GENERATING.value, ACCEPTED)
    return database_url


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return one_call_generating(request, tmp_path, request.param)


@pytest.fixture
def postgres_call(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """PostgreSQL only: SQLite has one writer at a time, so a second finish waits on its database lock there."""
    return one_call_generating(request, tmp_path, "postgres")


def delivery(number: int) -> HeapItem:
    return HeapItem("call-1", 2, 5.0, 0, deliveries=number)


def served(tokens: int) -> Served:
    return Served("hf", "tiny-llama", 0.5, 0.1, tokens)


def rows(url: str) -> tuple[str, int | None, str | None, int | None, int | None, bool | None]:
    """State, guidance tokens and text, outcome tokens and deliveries, and the check's verdict."""
    with session_scope(url) as session:
        incident, guidance = session.get(Incident, "call-1"), session.get(Guidance, "call-1")
        outcome = session.get(Outcome, "call-1")
        assert incident is not None and guidance is not None and outcome is not None
        return (
            incident.guidance_state,
            guidance.tokens,
            guidance.text,
            outcome.tokens,
            outcome.deliveries,
            guidance.check_passed,
        )


def test_the_first_delivery_to_finish_stands_with_its_own_guidance(url: str) -> None:
    # Both stream their guidance; the second's text is the last written when the first finishes.
    assert write_guidance(url, "call-1", "first so far", 3, "tiny-llama")
    assert write_guidance(url, "call-1", "second so far", 4, "tiny-llama")
    first = WrittenGuidance("first whole", 3, "tiny-llama", check=GuidanceCheck(()))
    assert record_finished(url, "call-1", delivery(1), served(3), ACCEPTED, first) == 2
    second = WrittenGuidance("second whole", 4, "tiny-llama", check=GuidanceCheck((Failure("contradiction", "no"),)))
    assert record_finished(url, "call-1", delivery(2), served(4), ACCEPTED, second) is None
    assert not write_guidance(url, "call-1", "second again", 4, "tiny-llama")
    assert not record_failed(url, "call-1", delivery(2), Served("hf", "tiny-llama", 0.5, error="boom"), ACCEPTED)
    assert rows(url) == (GuidanceState.DONE.value, 3, "first whole", 3, 1, True)


def test_a_delivery_finishing_while_another_holds_the_row_waits_and_then_writes_nothing(postgres_call: str) -> None:
    url = postgres_call
    finished: list[int | None] = []
    second = WrittenGuidance("second whole", 4, "tiny-llama", check=GuidanceCheck(()))

    def finish_second() -> None:
        finished.append(record_finished(url, "call-1", delivery(2), served(4), ACCEPTED, second))

    with session_scope(url) as session:  # the first delivery, mid-finish: its row locked
        incident = open_incident(session, "call-1")
        assert incident is not None
        waiting = threading.Thread(target=finish_second)
        waiting.start()
        waiting.join(timeout=1.0)
        assert waiting.is_alive() and finished == []  # held at the lock, not past it
        put_guidance(session, "call-1", WrittenGuidance("first whole", 3, "tiny-llama", check=GuidanceCheck(())))
        put_outcome(session, incident, delivery(1), served(3), 1.0, utcnow(), replace=True)
        incident.guidance_state = GuidanceState.DONE.value
    waiting.join(timeout=30)
    assert finished == [None]
    assert rows(url) == (GuidanceState.DONE.value, 3, "first whole", 3, 1, True)
