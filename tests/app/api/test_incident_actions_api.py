"""The incident actions through the API (claim, override, dispatch, close, notes): statuses, refusals and the exact
audit events written, on SQLite and PostgreSQL; an override is propagated to a real Redis after the commit."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.api.main import create_app
from app.auth.accounts import add_user, issue_token
from app.db.migrate import upgrade
from app.db.models import Incident, IncidentEvent, Outbox, Unit
from app.db.session import session_scope
from app.incidents.pipeline import store_message
from app.intake.schemas import IntakeMessage
from app.redis.keys import override_channel
from app.redis.queueing import heap_for, redis_client
from app.settings import Settings
from tests.app.triage_stub import fresh_database

ACTIONS = ("claim", "override", "dispatch", "close")
BODIES: dict[str, dict[str, Any] | None] = {
    "claim": None,
    "override": {"esi_level": 1, "reason": "now unresponsive"},
    "dispatch": {"units": ["M12"]},
    "close": {"disposition": "transported"},
}


@dataclass
class Api:
    client: TestClient
    url: str
    tokens: dict[str, dict[str, str]]
    """Role name: the Authorization header of that role's user."""
    user_ids: dict[str, str]

    def post(self, incident_id: str, action: str, role: str = "dispatcher", body: Any = None) -> Any:
        return self.client.post(f"/v1/incidents/{incident_id}/{action}", json=body, headers=self.tokens[role])

    def new_incident(self, text: str = "Chest pain, sweating") -> str:
        with session_scope(self.url) as session:
            incident_id, _ = store_message(session, "cad", f"w-{uuid.uuid4()}", IntakeMessage(text=text))
            session.get(Incident, incident_id).esi_level = 3  # type: ignore[union-attr]
        return incident_id

    def events(self, incident_id: str) -> list[tuple[str, str, Any, Any, Any]]:
        with session_scope(self.url) as session:
            rows = session.scalars(
                select(IncidentEvent).where(IncidentEvent.incident_id == incident_id).order_by(IncidentEvent.id)
            ).all()
            return [(event.actor, event.action, event.before, event.after, event.reason) for event in rows]

    def event_count(self) -> int:
        with session_scope(self.url) as session:
            return session.scalar(select(func.count()).select_from(IncidentEvent)) or 0


@contextmanager
def running_api(url: str, settings: Settings) -> Iterator[Api]:
    """The app on this database, with a dispatcher (dana), a call-taker (carl) and a supervisor (sue) and their
    tokens."""
    tokens, user_ids = {}, {}
    with session_scope(url) as session:
        for name, role in (("dana", "dispatcher"), ("carl", "call-taker"), ("sue", "supervisor")):
            user = add_user(session, name, role)
            user_ids[role] = user.id
            tokens[role] = {"authorization": f"Bearer {issue_token(session, user, 'tests')}"}
        session.add(Unit(name="M12", kind="ambulance", station="Station 3"))  # not audited: counts stay exact
    with TestClient(create_app(settings, reconciler=False, console=False)) as client:
        yield Api(client, url, tokens, user_ids)


@pytest.fixture(params=["sqlite", "postgres"])
def api(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Api]:
    url = fresh_database(request, tmp_path, request.param)
    with running_api(url, Settings(database_url=url, redis_url=None)) as running:
        yield running


def test_claim_incident(api: Api) -> None:
    incident_id = api.new_incident()
    response = api.post(incident_id, "claim")
    assert response.status_code == 200
    assert (response.json()["id"], response.json()["status"]) == (incident_id, "claimed")
    assert api.events(incident_id)[1:] == [
        (
            "dana",
            "claim",
            {"status": "new", "claimed_by": None},
            {"status": "claimed", "claimed_by": api.user_ids["dispatcher"]},
            None,
        )
    ]
    assert api.event_count() == 2  # received + claim


def test_override_incident_keeps_its_shape_and_writes_one_event(api: Api) -> None:
    incident_id = api.new_incident()
    response = api.post(incident_id, "override", body={"esi_level": 1, "reason": "  now unresponsive "})
    assert response.status_code == 200
    assert response.json() == {"incident_id": incident_id, "esi_level": 1, "heap": "not queued"}
    assert api.events(incident_id)[1:] == [
        (
            "dana",
            "override",
            {"esi_level": 3, "override_level": None},
            {"esi_level": 1, "override_level": 1},
            "now unresponsive",
        )
    ]
    assert api.event_count() == 2
    detail = api.client.get(f"/v1/incidents/{incident_id}", headers=api.tokens["call-taker"]).json()
    assert (detail["esi_level"], detail["override_level"]) == (1, 1)


def test_dispatch_and_close_incident(api: Api) -> None:
    incident_id = api.new_incident()
    dispatched = api.post(incident_id, "dispatch", role="supervisor", body=BODIES["dispatch"])
    assert dispatched.status_code == 200 and dispatched.json()["status"] == "dispatched"
    assert dispatched.json()["dispatched_at"] is not None  # its wait clock stops there
    held = api.post(incident_id, "close", body={"disposition": "treated on scene"})  # sue holds it now
    assert (held.status_code, held.json()["detail"]) == (
        409,
        "sue holds this call: take it over (with a reason) to act on it",
    )
    closed = api.post(incident_id, "close", role="supervisor", body={"disposition": "treated on scene"})
    assert closed.status_code == 200 and closed.json()["status"] == "closed"
    assert api.events(incident_id)[1:] == [
        (
            "sue",
            "dispatch",
            {"status": "new", "claimed_by": None},
            {"status": "dispatched", "units": ["M12"], "claimed_by": api.user_ids["supervisor"]},
            None,
        ),
        (
            "sue",
            "close",
            {"status": "dispatched", "guidance_state": "pending"},
            {"status": "closed", "disposition": "treated on scene", "guidance_state": "cancelled"},
            None,
        ),
    ]
    assert api.event_count() == 3
    listed = api.client.get("/v1/incidents", headers=api.tokens["dispatcher"]).json()["incidents"]
    assert incident_id not in [item["id"] for item in listed]


def test_add_note_to_incident_by_any_role_and_on_a_closed_incident(api: Api) -> None:
    incident_id = api.new_incident()
    response = api.post(incident_id, "notes", role="call-taker", body={"note": " caller called back "})
    assert response.status_code == 201
    body = response.json()
    assert {key: body[key] for key in ("actor", "action", "before", "after", "reason")} == {
        "actor": "carl",
        "action": "note",
        "before": {},
        "after": {},
        "reason": "caller called back",
    }
    assert body["at"] is not None
    assert api.post(incident_id, "close", body={"disposition": "other"}).status_code == 200
    assert api.post(incident_id, "notes", body={"note": "crew back in service"}).status_code == 201
    assert [event[1] for event in api.events(incident_id)] == ["received", "note", "close", "note"]
    assert api.post(incident_id, "notes", body={"note": "   "}).status_code == 422
    assert api.event_count() == 4


def test_a_closed_incident_cannot_be_overridden_claimed_dispatched_or_closed_again(api: Api) -> None:
    incident_id = api.new_incident()
    assert api.post(incident_id, "close", body={"disposition": "duplicate call"}).status_code == 200
    before = api.event_count()
    for action in ACTIONS:
        response = api.post(incident_id, action, body=BODIES[action])
        assert response.status_code == 409, action
        assert "closed" in response.json()["detail"]
    assert api.event_count() == before == 2
    detail = api.client.get(f"/v1/incidents/{incident_id}", headers=api.tokens["dispatcher"]).json()
    assert (detail["status"], detail["esi_level"], detail["override_level"]) == ("closed", 3, None)


def test_a_call_taker_may_not_claim_override_dispatch_or_close(api: Api) -> None:
    incident_id = api.new_incident()
    for action in ACTIONS:
        response = api.post(incident_id, action, role="call-taker", body=BODIES[action])
        assert response.status_code == 403, action
        assert response.json()["detail"].startswith("a call-taker may not")
    assert api.event_count() == 1


def test_actions_need_a_token(api: Api) -> None:
    incident_id = api.new_incident()
    for action in (*ACTIONS, "notes"):
        body = BODIES.get(action) or {"note": "hello"}
        response = api.client.post(f"/v1/incidents/{incident_id}/{action}", json=body)
        assert response.status_code == 401, action
    assert api.event_count() == 1


@pytest.mark.parametrize("esi_level", [2.0, True, 0, 6, "2", None, [2]])
def test_override_incident_refuses_a_level_that_is_not_an_integer_1_to_5(api: Api, esi_level: Any) -> None:
    incident_id = api.new_incident()
    response = api.post(incident_id, "override", body={"esi_level": esi_level, "reason": "worse"})
    assert response.status_code == 422
    assert response.json() == {"detail": "choose an ESI level 1-5"}
    assert api.event_count() == 1


def test_refusals_for_a_bad_reason_or_disposition_write_nothing(api: Api) -> None:
    incident_id = api.new_incident()
    assert api.post(incident_id, "override", body={"esi_level": 2, "reason": "  "}).status_code == 422
    assert api.post(incident_id, "override", body={"esi_level": 2}).status_code == 422
    assert api.post(incident_id, "close", body={"disposition": "gone fishing"}).status_code == 422
    assert api.post(incident_id, "close", body={}).status_code == 422
    assert api.post(incident_id, "notes", body={}).status_code == 422
    assert api.event_count() == 1


def test_actions_on_an_unknown_incident_are_404(api: Api) -> None:
    for action in (*ACTIONS, "notes"):
        body = BODIES.get(action) or {"note": "hello"}
        response = api.post("no-such-incident", action, body=body)
        assert response.status_code == 404, action
        assert response.json() == {"detail": "no such incident"}
    assert api.event_count() == 0


def listening(tmp_path: Path, redis_url: str) -> tuple[str, str, Any]:
    """A migrated database, a fresh queue prefix and a subscriber to its override channel."""
    url = f"sqlite:///{tmp_path / 'triage.db'}"
    upgrade(url)
    prefix = f"t-{uuid.uuid4().hex[:8]}"
    subscriber = redis_client(redis_url).pubsub(ignore_subscribe_messages=True)  # type: ignore[no-untyped-call]
    subscriber.subscribe(override_channel(prefix))
    return url, prefix, subscriber


def first_notice(subscriber: Any) -> list[str]:
    """The first message the subscriber gets within 5 s (none: []); the subscriber closed."""
    published: list[str] = []
    deadline = time.monotonic() + 5
    while not published and time.monotonic() < deadline:
        message = subscriber.get_message(timeout=0.5)
        if message is not None:
            data = message["data"]
            published.append(data.decode() if isinstance(data, bytes) else data)
    subscriber.close()
    return published


def test_override_incident_is_propagated_to_the_heap_and_the_engines(tmp_path: Path, redis_url: str) -> None:
    url, prefix, subscriber = listening(tmp_path, redis_url)
    with running_api(url, Settings(database_url=url, redis_url=redis_url, queue_prefix=prefix)) as api:
        incident_id = api.new_incident()
        heap = heap_for(redis_url, prefix)
        assert heap.push(incident_id, 3, 2.0, 1)
        response = api.post(incident_id, "override", body={"esi_level": 1, "reason": "not breathing now"})
        assert response.json() == {"incident_id": incident_id, "esi_level": 1, "heap": "waiting"}
        item = heap.get(incident_id)
        assert item is not None and item.esi_level == 1
        assert api.event_count() == 2
    published = first_notice(subscriber)
    assert published == [f"override {incident_id} 1"]


def test_close_incident_takes_it_out_of_the_heap_and_tells_the_engines(tmp_path: Path, redis_url: str) -> None:
    url, prefix, subscriber = listening(tmp_path, redis_url)
    with running_api(url, Settings(database_url=url, redis_url=redis_url, queue_prefix=prefix)) as api:
        incident_id = api.new_incident()
        heap = heap_for(redis_url, prefix)
        assert heap.push(incident_id, 3, 2.0, 1)
        response = api.post(incident_id, "close", body={"disposition": "duplicate call"})
        assert response.status_code == 200 and response.json()["status"] == "closed"
        assert incident_id not in heap
        with session_scope(url) as session:
            incident = session.get(Incident, incident_id)
            assert incident is not None and incident.guidance_state == "cancelled"
            outbox = session.get(Outbox, incident_id)
            assert outbox is not None and outbox.done_at is not None
    published = first_notice(subscriber)
    assert published == [f"closed {incident_id}"]
