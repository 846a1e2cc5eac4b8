"""Switching an incident's protocol card and marking its steps through the API: statuses, refusals, the card returned
and the exact audit events, on SQLite and PostgreSQL, on an incident carded as classification cards it."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.db.session import session_scope
from app.incidents.pipeline import store_message
from app.intake.schemas import IntakeMessage
from app.settings import Settings
from tests.app.api.test_incident_actions_api import Api, running_api
from tests.app.triage_stub import classify_with, fresh_database, plain_result, red_flag_result
from triage_models.language import CallLanguage
from triage_models.result import DecisionPoint

ARREST_TEXT = "He collapsed and is not breathing"


def arrest_result(language: str = "en") -> Any:
    """ESI 1 with the not-breathing floor rule: the adult CPR card."""
    flagged = red_flag_result(
        plain_result(1),
        ARREST_TEXT,
        "not breathing",
        rule_id="A-NOT-BREATHING",
        decision_point=DecisionPoint.A,
        description="not breathing",
    )
    return dataclasses.replace(flagged, language=CallLanguage(language, True, 0.9))


@pytest.fixture(params=["sqlite", "postgres"])
def api(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Api]:
    url = fresh_database(request, tmp_path, request.param)
    with running_api(url, Settings(database_url=url, redis_url=None)) as running:
        yield running


def carded(api: Api, monkeypatch: pytest.MonkeyPatch, language: str = "en") -> str:
    with session_scope(api.url) as session:
        incident_id, _ = store_message(session, "cad", f"w-{uuid.uuid4()}", IntakeMessage(text=ARREST_TEXT))
    assert classify_with(monkeypatch, api.url, incident_id, arrest_result(language)) == "classified"
    return incident_id


def test_switch_card_returns_the_new_card_and_audits_before_and_after(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    incident_id = carded(api, monkeypatch, "es")
    assert api.post(incident_id, "card/steps", body={"step": 2, "done": True}).status_code == 200
    response = api.post(incident_id, "card", body={"card_id": "aed", "reason": " an AED is on the wall "})
    assert response.status_code == 200
    body = response.json()
    assert (body["id"], body["language"], body["version"], body["steps_done"]) == ("aed", "es", "2026.11.1", [])
    assert api.events(incident_id)[-1] == (
        "dana",
        "card_switch",
        {"card": "cpr-adult", "card_version": "2026.11.1", "steps_done": [2]},
        {"card": "aed", "card_version": "2026.11.1", "card_language": "es", "steps_done": []},
        "an AED is on the wall",
    )
    detail = api.client.get(f"/v1/incidents/{incident_id}", headers=api.tokens["call-taker"]).json()
    assert detail["protocol_card"]["id"] == "aed"


def test_mark_card_steps_done_and_undone(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    incident_id = carded(api, monkeypatch)
    for step, done in ((3, True), (1, True), (3, True), (3, False)):
        response = api.post(incident_id, "card/steps", body={"step": step, "done": done})
        assert response.status_code == 200
    assert response.json()["steps_done"] == [1]
    assert [event[1:4] for event in api.events(incident_id)[2:]] == [
        ("card_step", {"steps_done": []}, {"steps_done": [3], "step": 3}),
        ("card_step", {"steps_done": [3]}, {"steps_done": [1, 3], "step": 1}),
        ("card_step", {"steps_done": [1, 3]}, {"steps_done": [1], "step": 3}),
    ]  # marking step 3 done twice records it once
    detail = api.client.get(f"/v1/incidents/{incident_id}", headers=api.tokens["dispatcher"]).json()
    assert detail["protocol_card"]["steps_done"] == [1]


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ({"step": 0, "done": True}, "choose a step 1-11 of the card cpr-adult"),
        ({"step": 12, "done": True}, "choose a step 1-11 of the card cpr-adult"),
        ({"step": "2", "done": True}, "choose a step 1-11 of the card cpr-adult"),
        ({"step": 2, "done": "yes"}, "done must be true or false"),
    ],
)
def test_mark_card_step_refuses_a_bad_step(
    api: Api, monkeypatch: pytest.MonkeyPatch, body: dict[str, Any], detail: str
) -> None:
    incident_id = carded(api, monkeypatch)
    response = api.post(incident_id, "card/steps", body=body)
    assert (response.status_code, response.json()) == (422, {"detail": detail})
    assert api.event_count() == 2  # received, classified


def test_card_refusals_role_reason_unknown_card_no_card_closed(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    incident_id = carded(api, monkeypatch)
    forbidden = api.post(incident_id, "card", role="call-taker", body={"card_id": "aed", "reason": "AED here"})
    steps = api.post(incident_id, "card/steps", role="call-taker", body={"step": 1, "done": True})
    for refused in (forbidden, steps):  # the API's dispatcher dependency answers before the action's own check
        assert (refused.status_code, refused.json()["detail"]) == (
            403,
            "a call-taker may not change an incident (dispatchers and supervisors)",
        )
    no_reason = api.post(incident_id, "card", body={"card_id": "aed", "reason": "  "})
    assert (no_reason.status_code, no_reason.json()["detail"]) == (422, "switching the card needs a reason")
    unknown = api.post(incident_id, "card", body={"card_id": "cpr-cat", "reason": "cat"})
    assert unknown.status_code == 422
    assert unknown.json()["detail"].startswith("no protocol card 'cpr-cat'; choose one of: aed, anaphylaxis, ")
    same = api.post(incident_id, "card", body={"card_id": "cpr-adult", "reason": "again"})
    assert (same.status_code, same.json()["detail"]) == (422, "the incident already has the card cpr-adult")
    minor = api.new_incident("Twisted ankle")
    no_card = api.post(minor, "card/steps", body={"step": 1, "done": True})
    assert (no_card.status_code, no_card.json()["detail"]) == (422, "the incident has no protocol card")
    # An ESI 1 call no unit reached closes only with a reason (the confirmation).
    close = {"disposition": "transported", "no_unit_reason": "a neighbour drove him in"}
    assert api.post(incident_id, "close", body=close).status_code == 200
    closed = api.post(incident_id, "card", body={"card_id": "aed", "reason": "AED here"})
    assert (closed.status_code, closed.json()["detail"]) == (409, "the incident is closed")
    assert [event[1] for event in api.events(incident_id)] == ["received", "classified", "close"]


def test_the_incident_list_names_each_incidents_card_as_the_queue_row_does(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    spanish = carded(api, monkeypatch, "es")
    english = carded(api, monkeypatch)
    assert api.post(english, "card", body={"card_id": "aed", "reason": "an AED is on the wall"}).status_code == 200
    with session_scope(api.url) as session:
        minor, _ = store_message(session, "cad", f"w-{uuid.uuid4()}", IntakeMessage(text="A sore toe"))
    assert classify_with(monkeypatch, api.url, minor, plain_result(4)) == "classified"
    listed = api.client.get("/v1/incidents", headers=api.tokens["call-taker"]).json()["incidents"]
    assert [(incident["id"], incident["protocol_card"]) for incident in listed] == [
        (
            spanish,
            {
                "id": "cpr-adult",
                "version": "2026.11.1",
                "title": "Paro cardíaco en adulto: RCP solo con las manos",
                "language": "es",
                "label": "CPR adult",
            },
        ),
        (
            english,
            {
                "id": "aed",
                "version": "2026.11.1",
                "title": "Using an AED (defibrillator) during CPR",
                "language": "en",
                "label": "AED",
            },
        ),
        (minor, None),
    ]
    detail = api.client.get(f"/v1/incidents/{english}", headers=api.tokens["call-taker"]).json()["protocol_card"]
    assert {key: detail[key] for key in ("id", "version", "title", "language", "label")} == listed[1]["protocol_card"]
