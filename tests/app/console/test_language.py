"""The call's language as triage read it, on data as `classify_incident` stores it: the queue row and the incident
head show it when it is not English (Spanish as "ES", any other language in red with "interpreter"), and the API
returns it on the incident and its classification."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from app.api.routes.incidents import summary
from app.console.render import render_incident, render_queue
from app.console.service import incident_detail, open_queue
from app.db.migrate import upgrade
from app.db.models import Incident
from app.db.session import session_factory, session_scope
from app.incidents.pipeline import store_message
from app.incidents.queries import classification_view, latest_classification
from app.intake.schemas import IntakeMessage
from tests.app.console.pages import row_html
from tests.app.triage_stub import classify_with, plain_result
from triage_models.language import CallLanguage

VIETNAMESE = CallLanguage("vi", False, 0.99, "language not supported (vi): the words are not English or Spanish")


@pytest.fixture
def url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'language.db'}"
    upgrade(url)
    return url


@pytest.fixture
def classified(url: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Three calls: one in Vietnamese (ESI 2 for an interpreter), one in Spanish, one in English."""
    calls = {
        "vi": ("Chồng tôi không thở được", dataclasses.replace(plain_result(2), language=VIETNAMESE)),
        "es": ("me torcí el tobillo", dataclasses.replace(plain_result(4), language=CallLanguage("es", True, 0.9))),
        "en": ("twisted ankle", plain_result(5)),
    }
    ids = {}
    for name, (text, result) in calls.items():
        with session_scope(url) as session:
            ids[name], _ = store_message(session, "cad", f"w-{name}", IntakeMessage(text=text))
        classify_with(monkeypatch, url, ids[name], result)
    return ids


@pytest.fixture
def session(url: str) -> Iterator[Session]:
    with session_factory(url)() as db:
        yield db


def test_the_queue_row_names_a_language_that_is_not_english(session: Session, classified: dict[str, str]) -> None:
    rows = open_queue(session)
    assert [(row.incident_id, row.language) for row in rows] == [
        (classified["vi"], "vi"),
        (classified["es"], "es"),
        (classified["en"], "en"),
    ]
    page = render_queue(rows)
    assert (
        '<span class="lang lang-foreign" title="language vi: not read by triage; interpreter needed">VI · '
        "interpreter</span></td>"
    ) in row_html(page, classified["vi"])
    assert '<span class="lang" title="Spanish: triage read it in Spanish">ES</span></td>' in row_html(
        page, classified["es"]
    )
    assert 'class="lang' not in row_html(page, classified["en"])


def test_the_incident_and_the_api_carry_the_language(session: Session, classified: dict[str, str]) -> None:
    view, _, _ = render_incident(incident_detail(session, classified["vi"]))
    assert 'VI · interpreter</span> <span class="head-complaint">' in view
    incident = session.get(Incident, classified["vi"])
    assert incident is not None
    assert summary(incident).language == "vi"
    view_json = classification_view(latest_classification(session, classified["vi"]))
    assert view_json is not None and view_json["language"] == "vi"
