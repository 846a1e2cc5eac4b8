"""The dispatcher's screen as HTML, on data as the product stores it: the row's columns and alert label, one level
after an override, a closed incident's line, the guidance state in words, a typed call's place in the queue."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from app.auth.accounts import Principal, add_user
from app.console import service
from app.console.render import (
    alert_label,
    guidance_cell,
    guidance_label,
    render_engine_banner,
    render_incident,
    render_queue,
)
from app.db.migrate import upgrade
from app.db.models import Guidance, Incident, Role
from app.db.session import session_factory, session_scope
from app.incidents.pipeline import store_message
from app.incidents.read_model import ProtocolCardView
from app.intake.schemas import IntakeMessage
from app.status.engine import EngineStatus
from tests.app.api.test_card_actions_api import ARREST_TEXT, arrest_result
from tests.app.console.details import card as cpr_card
from tests.app.console.details import detail, guidance, link
from tests.app.console.pages import row_html
from tests.app.triage_stub import classify_with, plain_result

DISPATCHER = Principal("dana", Role.DISPATCHER)


@pytest.fixture
def url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'screen.db'}"
    upgrade(url)
    with session_scope(url) as session:
        add_user(session, "dana", Role.DISPATCHER)
    return url


@pytest.fixture
def session(url: str) -> Iterator[Session]:
    with session_factory(url)() as db:
        yield db


def classified(url: str, monkeypatch: pytest.MonkeyPatch, text: str, result: object, location: str = "") -> str:
    with session_scope(url) as session:
        message = IntakeMessage(text=text, location=location or None)
        incident_id, _ = store_message(session, "cad", f"w-{uuid.uuid4()}", message)
    classify_with(monkeypatch, url, incident_id, result)  # type: ignore[arg-type]
    return incident_id


def test_a_row_has_location_and_source_columns_and_an_alert_label(
    session: Session, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    arrest = classified(url, monkeypatch, ARREST_TEXT, arrest_result(), "12 Main St")
    sprain = classified(url, monkeypatch, "Sprained wrist, can move the fingers", plain_result(4))
    rows = service.open_queue(session)
    assert [alert_label(row) for row in rows] == [
        "ESI 1 · CPR adult · 12 Main St",
        "ESI 4 · Sprained wrist, can move the fingers · via cad",
    ]
    row = row_html(render_queue(rows), arrest)
    assert 'data-label="ESI 1 · CPR adult · 12 Main St" data-esi="1">' in row
    assert '<td class="wait-ok" data-target="60" title="target 1:00 for ESI 1">0:00</td>' in row
    assert '<td class="location">12 Main St</td><td class="source">cad</td><td class="status">new</td>' in row
    assert '<td class="location"></td><td class="source">cad</td>' in row_html(render_queue(rows), sprain)


def test_after_an_override_the_badge_and_the_detail_line_say_the_same_level(
    session: Session, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    incident_id = classified(url, monkeypatch, "Chest pain, sweating", dataclasses.replace(plain_result(2)))
    before = render_incident(service.incident_detail(session, incident_id))[0]
    assert "classifier ESI 2 · final ESI 2 · decision point C" in before
    service.override(session, DISPATCHER, incident_id, 3, "pain eased, walking")
    session.commit()
    after = render_incident(service.incident_detail(session, incident_id))[0]
    assert (
        '<span class="esi esi-3" style="background:#f9a825" title="overridden by a dispatcher">ESI 3 ✎</span>' in after
    )
    assert "classifier ESI 2 · final ESI 3 (override of triage ESI 2) · decision point C" in after
    assert "final ESI 2" not in after


def test_a_closed_incident_says_so_with_its_disposition(
    session: Session, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    incident_id = classified(url, monkeypatch, "Twisted ankle", plain_result(5))
    assert 'class="closed-line"' not in render_incident(service.incident_detail(session, incident_id))[0]
    service.close(session, DISPATCHER, incident_id, "treated on scene")
    session.commit()
    view = render_incident(service.incident_detail(session, incident_id))[0]
    assert '<p class="closed-line" role="note">Closed (treated on scene): notes only.</p>' in view


def test_the_guidance_state_is_in_words() -> None:
    down = EngineStatus(False, "unavailable", "model m not found; trying again (attempt 2)", 1)
    starting = EngineStatus(False, "loading", "loading model m", 1)
    queued = detail(guidance_state="queued")
    # A dispatcher reads what to do; a supervisor also why.
    assert guidance_label(queued, down) == (
        '<span class="guidance-state engine-unavailable">guidance unavailable: read the protocol card</span>'
    )
    assert guidance_label(queued, down, supervisor=True) == (
        '<span class="guidance-state engine-unavailable">engine down: model m not found; trying again (attempt 2)'
        "</span>"
    )
    assert guidance_label(queued, starting) == (
        '<span class="guidance-state engine-unavailable">guidance starting: read the protocol card</span>'
    )
    assert guidance_label(queued, starting, supervisor=True) == (
        '<span class="guidance-state engine-unavailable">engine starting: loading model m</span>'
    )
    done = detail(guidance_state="done", guidance=guidance("builtin:tiny-llama", label="test model: not real guidance"))
    assert guidance_label(done, EngineStatus(True, "serving", engines=1)) == (
        '<span class="guidance-state">done (test model)</span>'
    )
    assert guidance_cell("done", "", None, test_model=True) == '<td class="engine-test">done (test model)</td>'
    assert guidance_cell("generating", "", down) == '<td class="engine-generating">generating</td>'
    test_model = EngineStatus(True, "serving", engines=1, test_model=True)
    assert render_engine_banner(test_model) == (
        '<div class="engine-banner loading" role="status"><b>Guidance comes from a test model:</b> it is not real '
        "guidance. Read the protocol card to the caller.</div>"
    )  # said once ("test model: test model" no more), the setting for supervisors only
    assert render_engine_banner(test_model, supervisor=True).endswith(
        "Read the protocol card to the caller. Set a real model (TRIAGE_MODEL) for guidance.</div>"
    )
    assert render_engine_banner(EngineStatus(True, "serving", engines=1)) == ""


def test_the_queue_row_says_test_model_for_its_guidance(
    session: Session, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    incident_id = classified(url, monkeypatch, "Twisted ankle", plain_result(5))
    session.add(Guidance(incident_id=incident_id, text="x", model="builtin:tiny-llama", prompt_version="p1"))
    session.get(Incident, incident_id).guidance_state = "done"  # type: ignore[union-attr]
    session.commit()
    (row,) = service.open_queue(session)
    assert row.test_model
    assert row_html(render_queue([row]), incident_id).endswith('<td class="engine-test">done (test model)</td>')


def test_a_typed_call_s_place_is_counted_as_the_queue_orders(
    session: Session, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = classified(url, monkeypatch, ARREST_TEXT, arrest_result())
    minor = classified(url, monkeypatch, "Twisted ankle", plain_result(5))
    second = classified(url, monkeypatch, ARREST_TEXT, arrest_result())
    with session_scope(url) as db:
        unclassified, _ = store_message(db, "cad", "w-pending", IntakeMessage(text="Pending call"))
    places = [service.queue_place(session, incident_id) for incident_id in (first, minor, second, unclassified)]
    assert places == [(1, 1), (5, 3), (1, 2), None]
    assert [service.queue_place(session, row.incident_id) for row in service.open_queue(session)][:3] == [
        (1, 1),
        (1, 2),
        (5, 3),
    ]
    assert [service.ordinal(number) for number in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111)] == [
        "1st",
        "2nd",
        "3rd",
        "4th",
        "11th",
        "12th",
        "13th",
        "21st",
        "22nd",
        "23rd",
        "101st",
        "111th",
    ]


def test_the_actions_offered_follow_the_incident_s_state_and_the_user_s_role() -> None:
    from app.console.ui import action_visibility

    def shown(
        status: str, claimer: str = "", card: ProtocolCardView | None = None, who: Principal = DISPATCHER
    ) -> list[object]:
        incident = detail(status=status, claimed_by=claimer or None, protocol_card=card)
        return [update.get("visible") for update in action_visibility(incident, who)]

    # (dispatch group, Claim, Take over, its reason, Dispatch, units, close confirmation, Merge, its reason)
    assert shown("new") == [True, True, False, False, True, True, False, False, False]
    assert shown("claimed", "dana", card=cpr_card()) == [True, False, False, False, True, True, False, False, False]
    # Someone else's: Take over (with a reason) and nothing else until then.
    assert shown("claimed", "sue") == [True, False, True, True, False, False, False, False, False]
    assert shown("dispatched", "dana") == [True, False, False, False, True, True, False, False, False]  # more units
    assert shown("closed", "dana") == [False] * 9  # notes only
    assert shown("new", who=Principal("carl", Role.CALL_TAKER))[0] is False
    urgent = detail(status="claimed", claimed_by="dana", esi_level=1, possible_duplicate_of=link())
    assert [update.get("visible") for update in action_visibility(urgent, DISPATCHER)][6:] == [True, True, True]


def test_the_dispatch_list_keeps_the_units_chosen_and_marks_one_no_longer_available() -> None:
    from app.console.incident_tab import unit_choices

    units = [("A7 · ambulance · Station 3", "A7"), ("E4 · engine", "E4")]
    # An incident just opened: nothing chosen.
    assert unit_choices(units, None, True) == {"__type__": "update", "choices": units, "value": [], "visible": True}
    # A reload: the choice is left as the browser holds it; a chosen unit sent elsewhere meanwhile says so.
    assert unit_choices(units[:1], ["A7", "E4"], True) == {
        "__type__": "update",
        "choices": [units[0], ("E4 · no longer available", "E4")],
        "visible": True,
    }
    assert unit_choices(units, ["E4"], False) == {"__type__": "update", "choices": units, "visible": False}
