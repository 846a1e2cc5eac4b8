"""The `classify` task run eagerly on a migrated SQLite database, a real redis-server and a small trained model."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import redis
from sqlalchemy import select

from app.console.service import open_queue
from app.db.migrate import upgrade
from app.db.models import Incident, IncidentEvent, Outbox, utcnow
from app.db.session import session_scope
from app.incidents.pipeline import reconcile, store_message
from app.intake.schemas import IntakeMessage
from app.redis.queueing import handed, mark_handed
from app.settings import Settings
from app.worker import tasks
from scheduler.redis_heap import RedisSemanticHeap


@pytest.fixture
def settings(tmp_path: Path, redis_url: str, small_model_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    url = f"sqlite:///{tmp_path / 'tasks.db'}"
    upgrade(url)
    settings = Settings(database_url=url, redis_url=redis_url, model_dir=small_model_dir, queue_prefix="tasks-test")
    monkeypatch.setattr(tasks, "get_settings", lambda: settings)
    return settings


def stored(settings: Settings, text: str) -> str:
    """A message stored as intake stored it before it refused text empty once cleaned (no validation)."""
    message = IntakeMessage.model_construct(text=text, caller=None, location=None, received_at=None, call_id=None)
    with session_scope(settings.database_url) as session:
        incident_id, _ = store_message(session, "cad", f"w-{text!r}", message)
    return incident_id


def test_an_unclassifiable_message_is_closed_for_review_and_never_handed_over_again(settings: Settings) -> None:
    incident_id = stored(settings, "\u200b\u0000")
    result = tasks.classify.apply(args=[incident_id])
    assert (result.state, result.result) == ("SUCCESS", "unclassifiable")
    with session_scope(settings.database_url) as session:
        incident = session.get(Incident, incident_id)
        outbox = session.get(Outbox, incident_id)
        assert incident is not None and outbox is not None
        assert (incident.guidance_state, incident.esi_level, incident.classified_at) == ("failed", None, None)
        assert incident.needs_review is True
        assert incident.review_reason == "cannot classify: message is empty: there is nothing to triage"
        assert outbox.done_at is not None
        events = session.scalars(select(IncidentEvent).order_by(IncidentEvent.id)).all()
        assert [(event.actor, event.action) for event in events] == [
            ("system:intake:cad", "received"),
            ("system:classifier", "unclassifiable"),
        ]
        assert events[1].after == {"guidance_state": "failed", "needs_review": True}
        [row] = open_queue(session)
        assert (row.incident_id, row.guidance_state, row.review_pending) == (incident_id, "failed", True)
    heap = RedisSemanticHeap(redis.Redis.from_url(str(settings.redis_url)), settings.queue_prefix)
    published: list[str] = []
    later = utcnow() + dt.timedelta(hours=1)
    assert reconcile(settings, heap, published.append, now=later) == {
        "republished": 0,
        "requeued": 0,
        "in_broker": 0,
        "rekeyed": 0,
        "expired_leases": 0,
    }
    assert published == []
    again = tasks.classify.apply(args=[incident_id])  # a redelivery sent before it was closed
    assert (again.state, again.result) == ("SUCCESS", "finished")


def test_a_classifiable_message_is_classified_and_queued(settings: Settings) -> None:
    incident_id = stored(settings, "Elderly man collapsed, not breathing, no pulse")
    client = redis.Redis.from_url(str(settings.redis_url))
    mark_handed(client, settings.queue_prefix, incident_id, settings.outbox_redeliver_s)
    assert handed(client, settings.queue_prefix, [incident_id]) == {incident_id}
    result = tasks.classify.apply(args=[incident_id])
    assert (result.state, result.result) == ("SUCCESS", "classified")
    assert handed(client, settings.queue_prefix, [incident_id]) == set()  # off the broker: no longer marked
    with session_scope(settings.database_url) as session:
        incident = session.get(Incident, incident_id)
        assert incident is not None
        assert (incident.guidance_state, incident.esi_level, incident.needs_review) == ("queued", 1, False)


def test_a_transient_error_is_still_retried(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    incident_id = stored(settings, "Chest pain since noon")
    calls: list[str] = []

    def database_away_once(*args: object) -> str:
        calls.append(str(args[2]))
        if len(calls) == 1:
            raise ConnectionError("database away")
        return "classified"

    monkeypatch.setattr(tasks, "classify_incident", database_away_once)
    result = tasks.classify.apply(args=[incident_id])  # run eagerly, a retry runs at once
    assert (result.state, result.result, calls) == ("SUCCESS", "classified", [incident_id, incident_id])
    with session_scope(settings.database_url) as session:
        outbox = session.get(Outbox, incident_id)
        incident = session.get(Incident, incident_id)
        assert outbox is not None and outbox.done_at is None
        assert incident is not None and (incident.guidance_state, incident.needs_review) == ("pending", False)
