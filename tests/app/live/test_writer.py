"""The group-commit writer: a batch is one transaction, new calls' first events included."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from sqlalchemy import Engine, event, select

from app.db.migrate import upgrade
from app.db.models import CallPartial, CallSegment, LiveCall
from app.db.session import session_scope
from app.live.events import CallEvent, SegmentMessage
from app.live.store import Recorded
from app.live.writer import EventWriter

ANSWERED = dt.datetime(2026, 11, 27, 6, 0, tzinfo=dt.UTC)


def segment(call_id: str, sequence: int, text: str, final: bool = False) -> CallEvent:
    body = {"call_id": call_id, "sequence": sequence, "offset_s": sequence, "track": "caller", "text": text}
    return SegmentMessage.model_validate({**body, "final": final}).to_event("centre", ANSWERED)


def test_commit_writes_new_calls_first_partials_in_one_transaction(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'triage.db'}"
    upgrade(url)
    writer = EventWriter(url)
    first = writer._commit([segment("a", 1, "my"), segment("b", 1, "he"), segment("a", 2, "my husband")])
    second = writer._commit([segment("b", 2, "he is not breathing", final=True), segment("a", 3, "my husband fell")])
    writer.close()
    assert (writer.batches, writer.events, writer.retried_alone) == (2, 5, 0)
    assert [type(r) for r in first + second] == [Recorded] * 5
    assert [(r.new_call, r.duplicate, r.new_words) for r in first + second if isinstance(r, Recorded)] == [
        (True, False, False),
        (True, False, False),
        (False, False, False),
        (False, False, True),
        (False, False, False),
    ]
    with session_scope(url) as session:
        calls = {c.incident_id: c.call_id for c in session.scalars(select(LiveCall))}
        partials = [(calls[p.incident_id], p.sequence, p.text) for p in session.scalars(select(CallPartial))]
        finals = [(calls[s.incident_id], s.sequence, s.text) for s in session.scalars(select(CallSegment))]
    assert sorted(calls.values()) == ["a", "b"]
    assert partials == [("a", 3, "my husband fell")]
    assert finals == [("b", 2, "he is not breathing")]


def test_commit_reads_a_batch_of_existing_calls_in_three_statements(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'triage.db'}"
    upgrade(url)
    writer = EventWriter(url)
    writer._commit([segment(name, 1, "hello") for name in "abcd"])
    statements: list[str] = []

    def seen(conn: object, cursor: object, statement: str, *args: object) -> None:
        found = re.match(r"(SELECT|UPDATE|INSERT|DELETE)\b(?:.*?\b(?:FROM|INTO)\s+|\s+)(\w+)", statement, re.DOTALL)
        statements.append(f"{found[1]} {found[2]}" if found else statement)

    event.listen(Engine, "before_cursor_execute", seen)
    try:
        results = writer._commit([segment(name, 2, "hello there") for name in "abcd"])
    finally:
        event.remove(Engine, "before_cursor_execute", seen)
        writer.close()
    assert [r.duplicate for r in results if isinstance(r, Recorded)] == [False] * 4
    assert statements == [
        "SELECT live_calls",
        "SELECT call_partials",
        "SELECT call_segments",
        "UPDATE call_partials",
        "UPDATE live_calls",
    ]
