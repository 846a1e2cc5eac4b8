"""The same schema and pipeline steps on a real PostgreSQL server (what the pilot's compose file runs)."""

from __future__ import annotations

import base64
import datetime as dt
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, func, select
from standardwebhooks.webhooks import Webhook

from app.api.main import create_app
from app.db.migrate import upgrade
from app.db.models import Base, Classification, Incident, IncidentEvent, Outbox
from app.db.session import session_scope
from app.incidents.pipeline import classify_incident
from app.settings import Settings
from scheduler.redis_heap import RedisSemanticHeap
from tests.app.triage_stub import fresh_database

SECRET = "whsec_" + base64.b64encode(b"postgres-test-secret-32-random-b").decode()


@pytest.fixture(scope="module")
def migrated(postgres_url: str) -> str:
    upgrade(postgres_url)
    return postgres_url


@pytest.fixture
def client(migrated: str) -> Iterator[TestClient]:
    settings = Settings(database_url=migrated, webhook_secrets={"cad": [SECRET]})
    with TestClient(create_app(settings, reconciler=False)) as test_client:
        yield test_client


def test_the_migration_builds_the_models_schema_on_postgres(migrated: str) -> None:
    with create_engine(migrated).connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []


def test_intake_then_classification_on_postgres(
    client: TestClient, migrated: str, redis_url: str, small_model_dir: Path
) -> None:
    body = json.dumps(
        {"text": "Elderly man collapsed, not breathing, no pulse", "received_at": "2026-11-21T06:00:00+01:00"}
    )
    now = dt.datetime.now(dt.UTC)
    headers = {
        "webhook-id": "pg-1",
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": Webhook(SECRET).sign("pg-1", now, body),
    }
    first = client.post("/v1/intake/cad", content=body, headers=headers)
    again = client.post("/v1/intake/cad", content=body, headers=headers)
    assert first.status_code == again.status_code == 202
    incident_id = first.json()["incident_id"]
    assert again.json() == {"incident_id": incident_id, "duplicate": True}

    settings = Settings(database_url=migrated, redis_url=redis_url, model_dir=small_model_dir, queue_prefix="pg-test")
    heap = RedisSemanticHeap(redis.Redis.from_url(redis_url), "pg-test")
    assert classify_incident(settings, heap, incident_id) == "classified"
    assert classify_incident(settings, heap, incident_id) == "already classified"  # idempotent
    with session_scope(migrated) as session:
        incident = session.get(Incident, incident_id)
        assert incident is not None and incident.esi_level == 1 and incident.guidance_state == "queued"
        assert incident.received_at == dt.datetime(2026, 11, 21, 5, 0, tzinfo=dt.UTC)
        assert incident.accepted_at.tzinfo is not None and time.time() - incident.accepted_at.timestamp() < 60
        for model, count in ((Incident, 1), (Outbox, 1), (Classification, 1), (IncidentEvent, 2)):
            assert session.scalar(select(func.count()).select_from(model)) == count
    assert heap.waiting_ids() == [incident_id]


Stored = tuple[int, list[tuple[str | None, ...]]]


def _post_and_read(url: str, body: str) -> Stored:
    """Post `body` signed to a fresh app on `url`; the status and every stored incident's strings."""
    settings = Settings(database_url=url, webhook_secrets={"cad": [SECRET]})
    now = dt.datetime.now(dt.UTC)
    headers = {
        "webhook-id": "nul-1",
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": Webhook(SECRET).sign("nul-1", now, body),
    }
    with TestClient(create_app(settings, reconciler=False)) as test_client:
        status = test_client.post("/v1/intake/cad", content=body, headers=headers).status_code
    with session_scope(url) as session:
        rows = session.execute(
            select(Incident.text, Incident.caller, Incident.location, Incident.call_id, Incident.chief_complaint)
        ).all()
    return status, [tuple(row) for row in rows]


@pytest.mark.parametrize(
    ("sent", "expected"),
    [
        (
            {
                "text": "Chest\u0000 pain. Sweating",
                "caller": "\u0000Ann",
                "location": "1 Main\u0000 St",
                "call_id": "c-\u00001",
            },
            (202, [("Chest pain. Sweating", "Ann", "1 Main St", "c-1", "Chest pain")]),
        ),
        ({"text": "\u0000", "call_id": "c-2"}, (422, [])),
        ({"text": "\u200b\u0000\x07", "caller": "Ann"}, (422, [])),
    ],
)
def test_nul_is_handled_the_same_on_sqlite_and_postgres(
    request: pytest.FixtureRequest, tmp_path: Path, sent: dict[str, str], expected: Stored
) -> None:
    body = json.dumps(sent)
    assert "\\u0000" in body  # the escape a transcription system sends
    on_sqlite = _post_and_read(fresh_database(request, tmp_path, "sqlite"), body)
    on_postgres = _post_and_read(fresh_database(request, tmp_path, "postgres"), body)
    assert on_sqlite == on_postgres == expected
