"""The intake endpoint and the incident API on a migrated SQLite database (no Redis: intake must not need it)."""

from __future__ import annotations

import base64
import datetime as dt
import json
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.exc import OperationalError
from standardwebhooks.webhooks import Webhook

from app.api.main import create_app
from app.api.routes import intake as intake_routes
from app.auth.accounts import add_user, issue_token
from app.db.migrate import upgrade
from app.db.models import Incident, IncidentEvent, Outbox
from app.db.session import session_scope
from app.intake.cleaning import EMPTY_TEXT_REASON
from app.redis.local import free_port
from app.settings import Settings

SECRET = "whsec_" + base64.b64encode(b"cad-vendor-secret-32-random-byte").decode()
PAGER_SECRET = "whsec_" + base64.b64encode(b"pager-gateway-secret-32-random!!").decode()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    url = f"sqlite:///{tmp_path / 'triage.db'}"
    upgrade(url)
    return Settings(database_url=url, webhook_secrets={"cad": [SECRET]}, redis_url=None)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings, reconciler=False)) as test_client:
        yield test_client


def signed(
    body: dict[str, object] | bytes, msg_id: str = "msg_1", secret: str = SECRET, at: float | None = None
) -> tuple[bytes, dict[str, str]]:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    when = dt.datetime.fromtimestamp(at if at is not None else time.time(), tz=dt.UTC)
    signature = Webhook(secret).sign(msg_id, when, raw.decode())
    headers = {
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(when.timestamp())),
        "webhook-signature": signature,
        "content-type": "application/json",
    }
    return raw, headers


def counts(settings: Settings) -> tuple[int, int, int]:
    with session_scope(settings.database_url) as session:
        return (
            session.scalar(select(func.count()).select_from(Incident)) or 0,
            session.scalar(select(func.count()).select_from(Outbox)) or 0,
            session.scalar(select(func.count()).select_from(IncidentEvent)) or 0,
        )


def test_a_signed_message_is_stored_with_its_outbox_entry_before_202(client: TestClient, settings: Settings) -> None:
    body, headers = signed({"text": "Man collapsed, not breathing.", "caller": "Ann", "call_id": "c-1"})
    response = client.post("/v1/intake/cad", content=body, headers=headers)
    assert response.status_code == 202
    assert response.json()["duplicate"] is False
    assert counts(settings) == (1, 1, 1)
    with session_scope(settings.database_url) as session:
        incident = session.get(Incident, response.json()["incident_id"])
        assert incident is not None
        assert (incident.source, incident.webhook_id, incident.caller, incident.call_id) == (
            "cad",
            "msg_1",
            "Ann",
            "c-1",
        )
        assert incident.chief_complaint == "Man collapsed, not breathing."
        assert incident.guidance_state == "pending"


def test_the_same_webhook_id_returns_the_same_incident_and_creates_nothing(
    client: TestClient, settings: Settings
) -> None:
    body, headers = signed({"text": "Chest pain"})
    first = client.post("/v1/intake/cad", content=body, headers=headers).json()
    again = client.post("/v1/intake/cad", content=body, headers=headers)
    assert again.status_code == 202
    assert again.json() == {"incident_id": first["incident_id"], "duplicate": True}
    assert counts(settings) == (1, 1, 1)


def test_intake_answers_503_with_retry_after_while_the_database_is_away(settings: Settings) -> None:
    """A sender retries a 503 with the same webhook-id (PostgreSQL restarting, say): nothing is stored, and it is
    told when to come back instead of getting a bare 500."""
    away = settings.model_copy(update={"database_url": f"postgresql+psycopg://triage@127.0.0.1:{free_port()}/triage"})
    with TestClient(create_app(away, reconciler=False, console=False)) as client:
        body, headers = signed({"text": "Man collapsed, not breathing."})
        response = client.post("/v1/intake/cad", content=body, headers=headers)
        metrics = client.get("/metrics").text
    assert response.status_code == 503
    assert response.headers["retry-after"] == "1"
    assert response.json() == {"detail": "the database is unavailable; retry the same message"}
    assert 'triage_intake_rejected_total{reason="database_unavailable"} 1.0' in metrics


def test_a_database_lost_mid_statement_is_logged_without_the_message(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """SQLAlchemy's error quotes the statement's parameters (the call itself): the log names the webhook-id and the
    driver's reason only."""

    def lost(*args: object) -> tuple[str, bool]:
        reason = psycopg.OperationalError("server closed the connection unexpectedly\nThis probably means...")
        raise OperationalError("INSERT INTO incidents (text) VALUES (%(text)s)", {"text": "Man collapsed"}, reason)

    monkeypatch.setattr(intake_routes, "store_message", lost)
    body, headers = signed({"text": "Man collapsed, not breathing."}, msg_id="msg_lost")
    response = client.post("/v1/intake/cad", content=body, headers=headers)
    assert response.status_code == 503
    assert "webhook_id=msg_lost" in caplog.text
    assert "OperationalError: server closed the connection unexpectedly" in caplog.text
    assert "collapsed" not in caplog.text and "INSERT" not in caplog.text


def test_refusals_carry_the_right_status_and_store_nothing(client: TestClient, settings: Settings) -> None:
    body, headers = signed({"text": "Chest pain"})
    assert client.post("/v1/intake/nobody", content=body, headers=headers).status_code == 404
    altered = client.post("/v1/intake/cad", content=body.replace(b"Chest", b"Ankle"), headers=headers)
    assert altered.status_code == 401 and altered.json()["detail"] == "no signature matches"
    wrong = signed({"text": "Chest pain"}, secret="whsec_" + base64.b64encode(b"x" * 32).decode())
    assert client.post("/v1/intake/cad", content=wrong[0], headers=wrong[1]).status_code == 401
    stale = signed({"text": "Chest pain"}, at=time.time() - 400)
    response = client.post("/v1/intake/cad", content=stale[0], headers=stale[1])
    assert response.status_code == 401 and response.json()["detail"] == "webhook-timestamp is too old"
    unsigned = client.post("/v1/intake/cad", content=body)
    assert unsigned.status_code == 401
    huge = signed({"text": "x" * 70_000})
    assert client.post("/v1/intake/cad", content=huge[0], headers=huge[1]).status_code == 413
    empty = signed({"text": "   ", "received_at": "yesterday"})
    response = client.post("/v1/intake/cad", content=empty[0], headers=empty[1])
    assert response.status_code == 422
    assert {error["field"] for error in response.json()["errors"]} == {"text", "received_at"}
    not_json = signed(b"text=hello")
    assert client.post("/v1/intake/cad", content=not_json[0], headers=not_json[1]).status_code == 422
    assert counts(settings) == (0, 0, 0)
    metrics = client.get("/metrics").text
    for reason, count in (
        ("unknown_source", 1),
        ("bad_signature", 2),
        ("missing_headers", 1),
        ("stale_timestamp", 1),
        ("too_large", 1),
        ("invalid", 2),
    ):
        assert f'triage_intake_rejected_total{{reason="{reason}"}} {count}.0' in metrics


@pytest.mark.parametrize("text", ["\u0000", "\u200b", "\u0000\u200b\x07 \u2060", "\x1b\x7f\x0c"])
def test_text_empty_once_cleaned_is_refused_with_the_reason_and_nothing_stored(
    client: TestClient, settings: Settings, text: str
) -> None:
    body, headers = signed({"text": text, "caller": "Ann"})
    response = client.post("/v1/intake/cad", content=body, headers=headers)
    assert response.status_code == 422
    assert response.json() == {"detail": "invalid message", "errors": [{"field": "text", "reason": EMPTY_TEXT_REASON}]}
    assert counts(settings) == (0, 0, 0)


def test_nul_is_removed_before_storing_and_the_rest_kept(client: TestClient, settings: Settings) -> None:
    sent: dict[str, object] = {
        "text": "Chest\u0000 pain\u200b",
        "caller": "\u0000Ann",
        "location": "1 Main\u0000 St",
        "call_id": "c-\u00001",
    }
    body, headers = signed(sent)
    assert b"\\u0000" in body  # JSON carries the escape, as a transcription system sends it
    response = client.post("/v1/intake/cad", content=body, headers=headers)
    assert response.status_code == 202
    with session_scope(settings.database_url) as session:
        incident = session.get(Incident, response.json()["incident_id"])
        assert incident is not None
        assert (incident.text, incident.caller, incident.location, incident.call_id) == (
            "Chest pain\u200b",
            "Ann",
            "1 Main St",
            "c-1",
        )


def test_incidents_need_a_token_and_come_most_urgent_first(client: TestClient, settings: Settings) -> None:
    ids = []
    for index, text in enumerate(["Sprained ankle", "Not breathing", "Unclassified yet"]):
        body, headers = signed({"text": text}, msg_id=f"m{index}")
        ids.append(client.post("/v1/intake/cad", content=body, headers=headers).json()["incident_id"])
    with session_scope(settings.database_url) as session:
        session.get(Incident, ids[0]).esi_level = 5  # type: ignore[union-attr]
        session.get(Incident, ids[1]).esi_level = 1  # type: ignore[union-attr]
        user = add_user(session, "dana", "dispatcher", "correct horse")
        token = issue_token(session, user, "tests")
    assert client.get("/v1/incidents").status_code == 401
    assert client.get(f"/v1/incidents/{ids[0]}").status_code == 401
    assert client.get("/v1/incidents", headers={"authorization": "Bearer tdk_wrong"}).status_code == 401
    auth = {"authorization": f"Bearer {token}"}
    listed = client.get("/v1/incidents", headers=auth).json()["incidents"]
    assert [item["id"] for item in listed] == [ids[1], ids[0], ids[2]]
    detail = client.get(f"/v1/incidents/{ids[1]}", headers=auth).json()
    assert detail["text"] == "Not breathing" and detail["guidance"] is None
    assert [event["action"] for event in detail["events"]] == ["received"]
    assert client.get("/v1/incidents/nope", headers=auth).status_code == 404


def test_the_open_api_is_for_development_only(settings: Settings) -> None:
    opened = settings.model_copy(update={"dev_open_api": True})
    with TestClient(create_app(opened, reconciler=False)) as open_client:
        assert open_client.get("/v1/incidents").status_code == 200
    closed = settings.model_copy(update={"dev_open_api": True, "env": "production"})
    with TestClient(create_app(closed, reconciler=False)) as prod_client:
        assert prod_client.get("/v1/incidents").status_code == 401


class LimitsClock:
    """The clock of the `limits` memory storage's windows, moved by the test."""

    def __init__(self, now: float) -> None:
        self.now = now

    def time(self) -> float:
        return self.now


def test_a_source_over_its_limit_gets_429_with_retry_after_and_its_retry_is_accepted(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Standard Webhooks sender retries a 429 after Retry-After: the refused call created nothing, its retry is
    stored once, and another source is not held back by the first one's limit."""
    clock = LimitsClock(time.time())
    monkeypatch.setattr("limits.storage.memory.time", clock)
    monkeypatch.setattr("app.intake.limits.time", clock)
    limited = settings.model_copy(
        update={"webhook_secrets": {"cad": [SECRET], "pager": [PAGER_SECRET]}, "intake_limits": {"cad": "2/minute"}}
    )
    with TestClient(create_app(limited, reconciler=False, console=False)) as client:
        answers = [
            client.post("/v1/intake/cad", content=body, headers=headers)
            for body, headers in (signed({"text": f"Call {n}: chest pain"}, f"msg_{n}") for n in range(3))
        ]
        assert [answer.status_code for answer in answers] == [202, 202, 429]
        refused = answers[2]
        assert refused.headers["retry-after"] == "61"
        assert refused.json() == {
            "detail": "source 'cad' is over its intake limit (2 per 1 minute): nothing was stored; "
            "send the same message again after 61 s"
        }
        assert counts(limited) == (2, 2, 2)
        body, headers = signed({"text": "Fall, hip pain"}, "p_1", secret=PAGER_SECRET)
        assert client.post("/v1/intake/pager", content=body, headers=headers).status_code == 202
        clock.now += int(refused.headers["retry-after"])
        body, headers = signed({"text": "Call 2: chest pain"}, "msg_2")
        retried = client.post("/v1/intake/cad", content=body, headers=headers)
        metrics = client.get("/metrics").text
    assert retried.status_code == 202
    assert retried.json()["duplicate"] is False
    assert counts(limited) == (4, 4, 4)
    assert 'triage_intake_source_refused_total{reason="rate_limited",source="cad"} 1.0' in metrics
    assert 'triage_intake_rejected_total{reason="rate_limited"} 1.0' in metrics


@pytest.mark.parametrize(
    "received_at", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:00:00-12:00"], ids=["year-1-east", "year-9999-west"]
)
def test_a_received_at_outside_what_utc_can_hold_is_refused_with_the_reason_and_nothing_stored(
    client: TestClient, settings: Settings, received_at: str
) -> None:
    """The probe's 500: such a time overflows when it is turned into UTC for the database."""
    body, headers = signed({"text": "Man collapsed, not breathing.", "caller": "Ann", "received_at": received_at})
    response = client.post("/v1/intake/cad", content=body, headers=headers)
    assert response.status_code == 422
    assert response.json() == {
        "detail": "invalid message",
        "errors": [
            {
                "field": "received_at",
                "reason": "Value error, received_at is outside the dates this service can store (years 1 to 9999 "
                "once in UTC); send the time the call was received, with its time zone",
            }
        ],
    }
    assert counts(settings) == (0, 0, 0)
