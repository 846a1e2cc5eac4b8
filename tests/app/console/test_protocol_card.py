"""The protocol card in the console, on data as `classify_incident` stores it: the queue row names it, the incident
shows it to read to the caller, steps marked done and a switched card show and read in the history as stored."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.api.main import create_app
from app.auth.accounts import Principal, add_user
from app.console import service
from app.console.history import describe_change
from app.console.incident_forms import FORM_FIELDS
from app.console.render import render_history, render_incident, render_queue
from app.db.migrate import upgrade
from app.db.models import Incident, Role
from app.db.session import session_factory, session_scope
from app.guidance.incident_card import card_label
from app.incidents.pipeline import store_message
from app.intake.schemas import IntakeMessage
from app.settings import Settings
from tests.app.api.test_card_actions_api import ARREST_TEXT, arrest_result
from tests.app.console.pages import row_html
from tests.app.triage_stub import classify_with, plain_result

DISPATCHER = Principal("dana", Role.DISPATCHER)
CALL_TAKER = Principal("carl", Role.CALL_TAKER)


@pytest.fixture
def url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'card.db'}"
    upgrade(url)
    return url


@pytest.fixture
def session(url: str) -> Iterator[Session]:
    with session_factory(url)() as db:
        yield db


def classified(url: str, monkeypatch: pytest.MonkeyPatch, text: str, result: object) -> str:
    with session_scope(url) as session:
        incident_id, _ = store_message(session, "cad", f"w-{uuid.uuid4()}", IntakeMessage(text=text))
    classify_with(monkeypatch, url, incident_id, result)  # type: ignore[arg-type]
    return incident_id


def test_card_labels_are_short_names() -> None:
    assert [card_label(card_id) for card_id in ("cpr-adult", "aed", "severe-bleeding", "choking-infant")] == [
        "CPR adult",
        "AED",
        "Severe bleeding",
        "Choking infant",
    ]


def test_the_queue_row_names_the_card_beside_the_complaint(
    session: Session, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    arrest = classified(url, monkeypatch, ARREST_TEXT, arrest_result())
    ankle = classified(url, monkeypatch, "Twisted ankle", plain_result(5))
    rows = service.open_queue(session)
    assert [(row.incident_id, row.card) for row in rows] == [(arrest, "CPR adult"), (ankle, "")]
    page = render_queue(rows)
    assert (
        '<td class="complaint">He collapsed and is not breathing <span class="card-tag" '
        'title="protocol card: read it to the caller">card: CPR adult</span></td>'
    ) in row_html(page, arrest)
    assert "card-tag" not in row_html(page, ankle)


def test_the_incident_shows_the_card_to_read_with_steps_done_marked(
    session: Session, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    incident_id = classified(url, monkeypatch, ARREST_TEXT, arrest_result("es"))
    service.mark_card_step(session, DISPATCHER, incident_id, 1, True)
    session.commit()
    detail = service.incident_detail(session, incident_id)
    view, _, history = render_incident(detail)
    assert '<section class="protocol-card" lang="es" data-card="cpr-adult">' in view
    assert (
        "<h3>Read to caller: Paro cardíaco en adulto: RCP solo con las manos <small>(cpr-adult 2026.11.1, es)" in view
    )
    assert '<p class="card-unreviewed" role="note">not reviewed by a medical director</p>' in view
    assert (
        '<li value="1" class="step-done">Ponga el teléfono en altavoz y quédese con la persona. '
        '<span class="step-mark">✓ done</span></li>' in view
    )
    assert '<li value="2">' in view and '<li value="11">' in view and '<li value="12">' not in view
    assert "<h4>Ask</h4>" in view and "<h4>Do not</h4>" in view
    assert view.index("protocol-card") < view.index('class="message"')  # the card first, then the call
    assert "card step marked" in history and "card steps done: none → 1" in history
    assert "protocol card: cpr-adult" in history  # the classified event names the card triage picked


def test_switching_the_card_reads_as_before_and_after_and_a_call_taker_may_not(
    session: Session, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    incident_id = classified(url, monkeypatch, ARREST_TEXT, arrest_result())
    with pytest.raises(service.ForbiddenError, match="a call-taker may not switch the protocol card"):
        service.switch_card(session, CALL_TAKER, incident_id, "aed", "AED here")
    with pytest.raises(service.ActionError, match="choose an incident first"):
        service.switch_card(session, DISPATCHER, "", "aed", "AED here")
    service.switch_card(session, DISPATCHER, incident_id, "aed", "an AED is on the wall")
    session.commit()
    detail = service.incident_detail(session, incident_id)
    assert detail is not None and detail.protocol_card is not None and detail.protocol_card.id == "aed"
    event = detail.events[-1]
    assert describe_change(event.before, event.after, {}) == "protocol card: cpr-adult → aed"
    history = render_history(detail.events, {})
    assert "protocol card switched" in history and "an AED is on the wall" in history


def test_a_minor_call_shows_no_card(session: Session, url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    incident_id = classified(url, monkeypatch, "Twisted ankle", plain_result(5))
    view, _, _ = render_incident(service.incident_detail(session, incident_id))
    assert "protocol-card" not in view


SAME_ORIGIN = {"Origin": "http://testserver"}
"""The console's own origin, as a browser sends it on every POST (the cross-origin check refuses others)."""


def card_switch(incident_id: str, card_id: str, reason: str) -> list[object]:
    """An incident action's inputs (`app.console.incident_forms.FORM_FIELDS`) for a card switch."""
    dropdowns = ("level", "units", "disposition", "card_choice")
    form: dict[str, object] = {name: None if name in dropdowns else "" for name in FORM_FIELDS}
    form.update(card_choice=card_id, card_reason=reason)
    return [incident_id, "", *form.values()]


def gradio_action(client: TestClient, api_name: str, data: list[object]) -> str:
    """Call a console handler over Gradio's API as the signed-in user; the text of its answer."""
    started = client.post(f"/console/gradio_api/call/{api_name}", json={"data": data}, headers=SAME_ORIGIN)
    assert started.status_code == 200, started.text
    stream = client.get(f"/console/gradio_api/call/{api_name}/{started.json()['event_id']}")
    assert stream.status_code == 200 and "event: complete" in stream.text, stream.text
    answer: str = json.loads(stream.text.split("event: complete\ndata: ", 1)[1].splitlines()[0])[0]
    return answer


def test_a_dispatcher_marks_a_step_and_switches_the_card_from_the_console(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    incident_id = classified(url, monkeypatch, ARREST_TEXT, arrest_result())
    with session_scope(url) as session:
        add_user(session, "dana", "dispatcher", "dispatch-pass")
    with TestClient(create_app(Settings(database_url=url), reconciler=False)) as client:
        signed_in = client.post(
            "/login", data={"username": "dana", "password": "dispatch-pass"}, follow_redirects=False
        )
        assert signed_in.status_code == 303
        # A click on step 2 in the page sends "step:2:1" with the state the incident was shown in.
        assert gradio_action(client, "page_action", [incident_id, "", "step:2:1"]) == "Step 2 marked done."
        refused = gradio_action(client, "action_card_switch", card_switch(incident_id, "aed", " "))
        assert refused == "**Refused:** switching the card needs a reason"
        switched = gradio_action(client, "action_card_switch", card_switch(incident_id, "aed", "AED on the wall"))
        assert switched == "Card switched to aed."
    with session_scope(url) as session:
        incident = session.get(Incident, incident_id)
        assert incident is not None and (incident.card_id, incident.card_steps_done) == ("aed", [])
        detail = service.incident_detail(session, incident_id)
        assert detail is not None
        actions = [event.action for event in detail.events]
        assert actions == ["received", "classified", "card_step", "card_switch"]
