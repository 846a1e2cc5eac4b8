"""Possible duplicates flagged at intake (same address or call-back number within 30 minutes of an open call) and
merged; a call's text, address and number corrected with a reason, a new text triaged again by the classify path;
recent calls found by the API's `q`."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from app.db.migrate import upgrade
from app.db.models import Classification, Incident
from app.db.session import session_scope
from app.incidents.duplicates import address_key, callback_key
from app.incidents.pipeline import CallContact, store_message
from app.intake.schemas import IntakeMessage
from app.settings import Settings
from tests.app.api.test_incident_actions_api import Api, running_api
from tests.app.triage_stub import classify_with, plain_result


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    url = f"sqlite:///{tmp_path / 'duplicates.db'}"
    upgrade(url)
    with running_api(url, Settings(database_url=url, redis_url=None)) as running:
        yield running


def call(api: Api, text: str, location: str | None = None, caller: str | None = None, ago_s: float = 0) -> str:
    """A call stored as intake stores it, arrived `ago_s` ago (moved back after storing)."""
    with session_scope(api.url) as session:
        message = IntakeMessage(text=text, location=location, caller=caller)
        incident_id, _ = store_message(session, "cad", f"w-{uuid.uuid4()}", message)
        if ago_s:
            incident = session.get(Incident, incident_id)
            assert incident is not None
            incident.accepted_at -= dt.timedelta(seconds=ago_s)
    return incident_id


def flagged(api: Api, incident_id: str) -> str | None:
    body = api.client.get(f"/v1/incidents/{incident_id}", headers=api.tokens["dispatcher"]).json()
    link = body["possible_duplicate_of"]
    return None if link is None else str(link["id"])


def test_addresses_and_numbers_fold_to_one_key() -> None:
    assert address_key("12 Main Street, Apt. 4") == address_key(" 12  main st apartment 4 ") == "12 main st apt 4"
    assert address_key("Calle Mayor 5") == "c mayor 5"
    assert callback_key("+1 (555) 010-0123") == callback_key("555.010.0123") == "5550100123"
    assert callback_key("Ann Lee") is None and address_key("  ") is None


def test_a_call_at_the_same_address_or_from_the_same_number_is_flagged_within_30_minutes(api: Api) -> None:
    first = call(api, "Man collapsed in the kitchen", "12 Main Street", "+1 (555) 010-0123", ago_s=600)
    assert flagged(api, first) is None
    same_place = call(api, "Neighbour says a man collapsed", "12 main st.")
    same_number = call(api, "My husband is not breathing", "the kitchen", caller="555-010-0123")
    elsewhere = call(api, "Cut finger", "9 Pine Ave", caller="555-999-0000")
    assert [flagged(api, incident) for incident in (same_place, same_number, elsewhere)] == [first, first, None]
    stale = call(api, "Fall on ice", "4 Elm Road", ago_s=31 * 60)
    assert flagged(api, call(api, "Fall on ice again", "4 Elm Road")) is None  # 31 minutes apart
    assert api.post(stale, "close", body={"disposition": "other"}).status_code == 200
    events = api.events(same_place)
    assert events[-1][:4] == (
        "system:intake:cad",
        "possible_duplicate",
        {"possible_duplicate_of": None},
        {"possible_duplicate_of": first},
    )


def test_a_duplicate_is_merged_into_the_call_it_repeats(api: Api) -> None:
    first = call(api, "Man collapsed in the kitchen", "12 Main Street", ago_s=60)
    second = call(api, "Neighbour says a man collapsed", "12 Main St")
    assert api.post(first, "merge", body={"reason": "same man"}).json() == {
        "detail": "this call is not flagged as a possible duplicate"
    }
    assert api.post(second, "merge", body={"reason": " "}).status_code == 422
    merged = api.post(second, "merge", body={"reason": "same man, same kitchen"})
    assert merged.status_code == 200 and merged.json()["status"] == "closed"
    body = api.client.get(f"/v1/incidents/{second}", headers=api.tokens["dispatcher"]).json()
    assert (body["disposition"], body["merged_into"]["id"]) == ("duplicate call", first)
    assert api.events(second)[-1][1:] == (
        "merge",
        {"status": "new", "guidance_state": "pending"},
        {"status": "closed", "disposition": "duplicate call", "merged_into": first, "guidance_state": "cancelled"},
        "same man, same kitchen",
    )
    assert api.events(first)[-1][1:] == (
        "merged",
        {},
        {"merged": second},
        "same man, same kitchen (call: Neighbour says a man collapsed)",
    )


def test_a_corrected_text_is_triaged_again_and_audited(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    incident_id = call(api, "Twisted ankle", "1 Oak Lane")
    assert classify_with(monkeypatch, api.url, incident_id, plain_result(5)) == "classified"
    monkeypatch.undo()  # the correction reads the call with the real shipped triage model
    assert api.post(incident_id, "correct", body={"reason": "typo"}).json() == {
        "detail": "nothing to correct: type the corrected text, address or call-back number"
    }
    assert api.post(incident_id, "correct", body={"text": "x", "reason": " "}).status_code == 422
    assert api.post(incident_id, "correct", body={"callback_number": "12", "reason": "x"}).status_code == 422
    body = {"text": "He collapsed and is not breathing", "callback_number": "555 010 0199", "reason": "misheard"}
    done = api.post(incident_id, "correct", body=body)
    assert done.json() == {"incident_id": incident_id, "esi_level": 1, "retriaged": True, "heap": "not queued"}
    with session_scope(api.url) as session:
        rows = session.execute(
            select(Classification.text_revision, Classification.esi_level)
            .where(Classification.incident_id == incident_id)
            .order_by(Classification.id)
        ).all()
        incident = session.get(Incident, incident_id)
        assert incident is not None
        assert (incident.text_revision, incident.callback_key, incident.chief_complaint) == (
            1,
            "5550100199",
            "He collapsed and is not breathing",
        )
    assert [tuple(row) for row in rows] == [(0, 5), (1, 1)]
    actions = [event[1:] for event in api.events(incident_id)]
    assert actions[-2][0] == "classified" and actions[-2][2]["esi_level"] == 1
    assert actions[-1] == (
        "correct",
        {"text": "Twisted ankle", "callback_number": None},
        {"text": "He collapsed and is not breathing", "callback_number": "555 010 0199"},
        "misheard",
    )


def test_recent_calls_are_found_by_words_address_or_number_closed_ones_included(api: Api) -> None:
    kitchen = call(api, "Man collapsed in the kitchen", "12 Main Street", "+1 555 010 0123")
    other = call(api, "Sore throat", "9 Pine Ave", ago_s=7200)
    assert api.post(kitchen, "close", body={"disposition": "other"}).status_code == 200
    headers = api.tokens["call-taker"]

    def found(query: str, hours: float = 24) -> list[str]:
        body = api.client.get("/v1/incidents", params={"q": query, "since_hours": hours}, headers=headers).json()
        return [item["id"] for item in body["incidents"]]

    assert found("KITCHEN") == [kitchen]
    assert found("12 main st") == [kitchen]
    assert found("(555) 010-0123") == [kitchen]
    assert found("") == [kitchen, other]
    assert found("", hours=1) == [kitchen]
    assert found("100%") == []


def test_a_typed_call_keeps_its_call_back_number_and_age(api: Api) -> None:
    with session_scope(api.url) as session:
        message = IntakeMessage(text="My son fell in the pool")
        contact = CallContact(callback_number="555 010 0777", patient_age_years=4)
        incident_id, _ = store_message(session, "console", "c-1", message, entered_by="carl", contact=contact)
    body = api.client.get(f"/v1/incidents/{incident_id}", headers=api.tokens["dispatcher"]).json()
    assert (body["callback_number"], body["patient_age_years"]) == ("555 010 0777", 4)
