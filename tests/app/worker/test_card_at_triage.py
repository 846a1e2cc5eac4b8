"""The protocol card reaches the incident with the ESI level: the `classify` task run eagerly (real triage model,
real redis-server, migrated SQLite, no engine worker running), then the incident read through the API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.api.main import create_app
from app.db.migrate import upgrade
from app.db.models import Guidance, Incident, IncidentEvent
from app.db.session import session_scope
from app.incidents.pipeline import store_message
from app.intake.schemas import IntakeMessage
from app.settings import Settings
from app.worker import tasks


@pytest.fixture
def settings(tmp_path: Path, redis_url: str, small_model_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    url = f"sqlite:///{tmp_path / 'cards.db'}"
    upgrade(url)
    settings = Settings(
        database_url=url, redis_url=redis_url, model_dir=small_model_dir, queue_prefix="cards-test", dev_open_api=True
    )
    monkeypatch.setattr(tasks, "get_settings", lambda: settings)
    return settings


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings, reconciler=False, console=False)) as test_client:
        yield test_client


def classified(settings: Settings, text: str) -> str:
    """A call stored as intake stores it, then classified by the task (no engine worker exists in this test)."""
    with session_scope(settings.database_url) as session:
        incident_id, _ = store_message(session, "cad", f"w-{text}", IntakeMessage(text=text))
    result = tasks.classify.apply(args=[incident_id])
    assert (result.state, result.result) == ("SUCCESS", "classified")
    return incident_id


def test_an_arrest_has_its_card_before_any_guidance_token(settings: Settings, client: TestClient) -> None:
    incident_id = classified(settings, "Elderly man collapsed, not breathing, no pulse")
    with session_scope(settings.database_url) as session:
        incident = session.get(Incident, incident_id)
        assert incident is not None
        assert (incident.esi_level, incident.guidance_state) == (1, "queued")
        assert (incident.card_id, incident.card_version, incident.card_language) == ("cpr-adult", "2026.11.1", "en")
        assert incident.card_steps_done == []
        assert session.get(Guidance, incident_id) is None  # no token written: the engine never saw it
        event = session.scalars(select(IncidentEvent).where(IncidentEvent.action == "classified")).one()
        assert event.after is not None
        assert event.after["card"] == {"id": "cpr-adult", "version": "2026.11.1", "language": "en"}
    body = client.get(f"/v1/incidents/{incident_id}").json()
    card = body["protocol_card"]
    assert (body["guidance"], body["guidance_state"]) == (None, "queued")
    assert {key: card[key] for key in ("id", "version", "title", "language", "reviewed")} == {
        "id": "cpr-adult",
        "version": "2026.11.1",
        "title": "Adult cardiac arrest: hands-only CPR",
        "language": "en",
        "reviewed": False,
    }
    assert card["steps"][0] == "Put your phone on speaker and stay with the person."
    assert len(card["steps"]) == 11
    assert card["review_state"] == "not reviewed by a medical director"
    assert card["key_questions"][0] == "Is the person awake?"
    assert card["do_not"][0] == "Do not stop pushing to check for a pulse or for breathing."
    assert card["steps_done"] == []


def test_a_spanish_call_gets_the_spanish_card_and_a_child_the_child_card(
    settings: Settings, client: TestClient
) -> None:
    spanish = classified(settings, "Mi esposo se desmayó, no respira y no tiene pulso")
    child = classified(settings, "My 8 year old son is choking on a grape and can't breathe")
    spanish_card = client.get(f"/v1/incidents/{spanish}").json()["protocol_card"]
    child_card = client.get(f"/v1/incidents/{child}").json()["protocol_card"]
    assert (spanish_card["id"], spanish_card["language"], spanish_card["title"]) == (
        "cpr-adult",
        "es",
        "Paro cardíaco en adulto: RCP solo con las manos",
    )
    assert (child_card["id"], child_card["language"], child_card["title"]) == (
        "choking-child",
        "en",
        "Choking child (1 year to puberty, awake)",
    )


def test_a_minor_call_has_no_card(settings: Settings, client: TestClient) -> None:
    incident_id = classified(settings, "Twisted my ankle playing football, it is a bit swollen")
    body = client.get(f"/v1/incidents/{incident_id}").json()
    assert (body["esi_level"], body["protocol_card"]) == (4, None)
    with session_scope(settings.database_url) as session:
        incident = session.get(Incident, incident_id)
        assert incident is not None
        assert (incident.card_id, incident.card_version, incident.card_language) == (None, None, None)
