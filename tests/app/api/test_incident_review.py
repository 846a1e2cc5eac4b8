"""The incident API returns the triage review flag, its reason and the predicted resources, as stored."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.api.main import create_app
from app.db.session import session_scope
from app.incidents.pipeline import store_message
from app.intake.schemas import IntakeMessage
from app.settings import Settings
from tests.app.triage_stub import (
    REVIEW_REASON,
    REVIEW_TEXT,
    classify_with,
    fresh_database,
    plain_result,
    review_result,
)


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return fresh_database(request, tmp_path, request.param)


@pytest.fixture
def client(url: str) -> Iterator[TestClient]:
    settings = Settings(database_url=url, dev_open_api=True)
    with TestClient(create_app(settings, reconciler=False, console=False)) as test_client:
        yield test_client


def stored(url: str, text: str, webhook_id: str) -> str:
    with session_scope(url) as session:
        incident_id, _ = store_message(session, "cad", webhook_id, IntakeMessage(text=text))
    return incident_id


def test_an_incident_that_needs_review_reads_back_with_its_reason_and_resources(
    client: TestClient, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    incident_id = stored(url, REVIEW_TEXT, "w-review")
    assert classify_with(monkeypatch, url, incident_id, review_result()) == "classified"
    body = client.get(f"/v1/incidents/{incident_id}").json()
    assert body["classification"] == {
        "esi_level": 2,
        "classifier_level": 2,
        "decision_point": "B",
        "probabilities": {"1": 0.05, "2": 0.41, "3": 0.38, "4": 0.1, "5": 0.06},
        "evidence": [
            {
                "rule_id": "chest_pain",
                "floor": False,
                "resolved": False,
                "esi_level": 2,
                "decision_point": "B",
                "description": "chest pain: consider ESI 2",
                "span": [34, 44],
                "text": "chest pain",
            }
        ],
        "predicted_output_tokens": 120,
        "model_version": "stub-1",
        "needs_review": True,
        "review_reason": "ESI 2 vs 3 too close to call (0.41 vs 0.38)",
        "resources": [
            {"kind": "imaging", "weight": 1, "span": [63, 68], "text": "x-ray"},
            {"kind": "labs", "weight": 1, "span": [73, 83], "text": "blood work"},
        ],
        "resource_count": 2,
        "language": "en",
        "protocol": None,
        "key_questions": [],
        "non_medical": False,
    }
    assert REVIEW_TEXT[34:44] == "chest pain" and REVIEW_TEXT[63:68] == "x-ray" and REVIEW_TEXT[73:83] == "blood work"
    assert (body["esi_level"], body["model_level"], body["override_level"]) == (2, 2, None)
    classified = [event for event in body["events"] if event["action"] == "classified"]
    assert [(event["after"], event["reason"]) for event in classified] == [
        ({"esi_level": 2, "model_version": "stub-1", "needs_review": True}, REVIEW_REASON)
    ]


def test_a_confident_classification_reads_back_without_review_or_resources(
    client: TestClient, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    incident_id = stored(url, "Sore throat for two days, no fever", "w-plain")
    classify_with(monkeypatch, url, incident_id, plain_result(5))
    classification = client.get(f"/v1/incidents/{incident_id}").json()["classification"]
    assert {key: classification[key] for key in ("needs_review", "review_reason", "resources", "resource_count")} == {
        "needs_review": False,
        "review_reason": "",
        "resources": [],
        "resource_count": 0,
    }


def test_the_classification_keeps_its_review_flag_after_an_override(
    client: TestClient, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    incident_id = stored(url, REVIEW_TEXT, "w-override")
    classify_with(monkeypatch, url, incident_id, review_result())
    response = client.post(f"/v1/incidents/{incident_id}/override", json={"esi_level": 3, "reason": "stable, talking"})
    assert response.status_code == 200
    body = client.get(f"/v1/incidents/{incident_id}").json()
    assert (body["esi_level"], body["model_level"], body["override_level"]) == (3, 2, 3)
    assert body["classification"]["needs_review"] is True  # what the models said; the override is the answer
