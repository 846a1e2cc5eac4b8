"""The knowledge's reading stored with each classification (the protocol, its key questions answered or not, a call
that names no medical problem), read back by the API's incident detail; migration 0011 on rows stored before it."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import create_engine, inspect, select, text

from app.db.migrate import alembic_config, upgrade
from app.db.models import Classification
from app.db.session import session_scope
from app.incidents.pipeline import store_message
from app.incidents.queries import classification_view
from app.intake.schemas import IntakeMessage
from app.settings import Settings
from tests.app.api.test_incident_actions_api import Api, running_api
from tests.app.triage_stub import classify_with, fresh_database

COLLAPSE = "my dad collapsed, he's not breathing"
ASKED = "CT: 911, what is your emergency?\nC: My dad collapsed.\nCT: Is he breathing?\nC: No"
"""Nothing but the answer says he is not breathing: the question gives the "No" its meaning."""
ASKED_AWAKE = (
    "CT: 911, what is the address of your emergency?\nC: 88 Birch Road.\n"
    "C: My husband just collapsed, he's not breathing.\nCT: Is he awake?\nC: No, he doesn't answer."
)
RIDE = "I need a ride to the airport"
ARREST_QUESTIONS = [
    ("awake", "Is the person awake?", "¿Está despierta la persona?"),
    ("breathing_normally", "Is the person breathing normally?", "¿Respira normalmente?"),
    ("breathing", "Is the person breathing?", "¿Está respirando?"),
    ("aed", "Is there an AED (defibrillator) nearby?", "¿Hay un desfibrilador (DEA) cerca?"),
]


def questions(*answered: str) -> list[dict[str, object]]:
    """The cardiac-arrest protocol's key questions as stored, the named ones answered."""
    return [{"id": id_, "en": en, "es": es, "answered": id_ in answered} for id_, en, es in ARREST_QUESTIONS]


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    url = f"sqlite:///{tmp_path / 'protocol.db'}"
    upgrade(url)
    with running_api(url, Settings(database_url=url, redis_url=None)) as running:
        yield running


def classified(api: Api, monkeypatch: pytest.MonkeyPatch, words: str) -> str:
    """A call stored as intake stores it, classified through `classify_incident` by the knowledge's reading."""
    with session_scope(api.url) as session:
        incident_id, _ = store_message(session, "cad", f"w-{uuid.uuid4()}", IntakeMessage(text=words))
    assert classify_with(monkeypatch, api.url, incident_id) == "classified"
    return incident_id


def stored(api: Api, incident_id: str) -> tuple[str | None, list[dict[str, object]], bool, int]:
    with session_scope(api.url) as session:
        row = session.scalars(select(Classification).where(Classification.incident_id == incident_id)).one()
        return row.protocol, row.key_questions, row.non_medical, row.esi_level


def test_store_classification_of_an_arrest_with_its_protocol_and_the_question_its_words_answer(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    incident_id = classified(api, monkeypatch, COLLAPSE)
    # "he's not breathing" already answers "is the person breathing?"; nobody asked whether he is awake.
    assert stored(api, incident_id) == ("cardiac-arrest", questions("breathing"), False, 1)
    body = api.client.get(f"/v1/incidents/{incident_id}", headers=api.tokens["dispatcher"]).json()
    reading = {key: body["classification"][key] for key in ("protocol", "key_questions", "non_medical")}
    assert reading == {"protocol": "cardiac-arrest", "key_questions": questions("breathing"), "non_medical": False}


@pytest.mark.parametrize(("transcript", "answered"), [(ASKED, ("breathing",)), (ASKED_AWAKE, ("awake", "breathing"))])
def test_store_classification_of_a_transcript_with_the_questions_asked_and_answered(
    api: Api, monkeypatch: pytest.MonkeyPatch, transcript: str, answered: tuple[str, ...]
) -> None:
    incident_id = classified(api, monkeypatch, transcript)
    assert stored(api, incident_id) == ("cardiac-arrest", questions(*answered), False, 1)


def test_store_classification_of_a_call_naming_no_medical_problem(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    incident_id = classified(api, monkeypatch, RIDE)
    protocol, key_questions, non_medical, level = stored(api, incident_id)
    assert (protocol, non_medical, level) == ("non-medical", True, 5)
    assert [(item["id"], item["answered"]) for item in key_questions] == [
        ("nm_anyone_hurt", False),
        ("nm_powered_equipment", False),
    ]
    body = api.client.get(f"/v1/incidents/{incident_id}", headers=api.tokens["call-taker"]).json()
    assert (body["esi_level"], body["classification"]["non_medical"]) == (5, True)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_upgrade_0011_reads_older_classifications_as_no_protocol_and_goes_down_again(
    request: pytest.FixtureRequest, tmp_path: Path, backend: str
) -> None:
    url = fresh_database(request, tmp_path, backend, revision="0010")
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO incidents (id, source, webhook_id, text, accepted_at, status, esi_level, model_level,"
                " guidance_state) VALUES ('old', 'cad', 'w-old', 'chest pain', :at, 'new', 2, 2, 'queued')"
            ),
            {"at": dt.datetime(2026, 11, 27, 8, 0)},
        )
        connection.execute(
            text(
                "INSERT INTO classifications (incident_id, esi_level, classifier_level, decision_point, probabilities,"
                " evidence, predicted_output_tokens, model_version, backend, created_at) VALUES ('old', 2, 3, 'B',"
                " '{\"2\": 0.6, \"3\": 0.4}', '[]', 100, 'v0', 'linear', :at)"
            ),
            {"at": dt.datetime(2026, 11, 27, 8, 0)},
        )
    engine.dispose()
    upgrade(url)
    with session_scope(url) as session:
        view = classification_view(session.get(Classification, 1))
        assert view is not None
        assert (view["protocol"], view["key_questions"], view["non_medical"]) == (None, [], False)
    command.downgrade(alembic_config(url), "0010")
    engine = create_engine(url)
    columns = {column["name"] for column in inspect(engine).get_columns("classifications")}
    assert {"protocol", "key_questions", "non_medical"} & columns == set()
    engine.dispose()
