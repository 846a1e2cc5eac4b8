"""Console actions on the database: role checks on the server, audit events with before/after, queue order."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.auth.accounts import Principal
from app.console.render import highlight, render_queue, wait_class, wait_target_s
from app.console.service import (
    ActionError,
    ForbiddenError,
    add_note,
    audit_events,
    claim,
    close,
    dispatch,
    new_message,
    open_queue,
    override_checked,
)
from app.db.migrate import upgrade
from app.db.models import Incident, IncidentEvent, Outbox, Role, Unit, User
from app.db.session import session_factory
from app.incidents.overrides import record_override
from app.intake.cleaning import EMPTY_TEXT_REASON
from tests.app.console.details import detail, guidance

DISPATCHER = Principal("dana", Role.DISPATCHER)
CALL_TAKER = Principal("carl", Role.CALL_TAKER)
SUPERVISOR = Principal("sue", Role.SUPERVISOR)
NOW = dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.UTC)


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    url = f"sqlite:///{tmp_path / 'service.db'}"
    upgrade(url)
    with session_factory(url)() as db:
        for principal in (DISPATCHER, CALL_TAKER, SUPERVISOR):
            db.add(User(name=principal.name, role=principal.role.value))
        db.add(Unit(name="M12", kind="ambulance", station="Station 3", status_at=NOW))
        for index, (level, seconds_ago) in enumerate([(3, 100), (1, 20), (None, 5), (1, 70), (5, 200)]):
            db.add(
                Incident(
                    id=f"i{index}",
                    source="cad",
                    webhook_id=f"w{index}",
                    text=f"call {index}",
                    chief_complaint=f"call {index}",
                    esi_level=level,
                    accepted_at=NOW - dt.timedelta(seconds=seconds_ago),
                )
            )
        db.commit()
        yield db


def test_the_queue_is_most_urgent_first_then_arrival_with_unclassified_last(session: Session) -> None:
    rows = open_queue(session, NOW)
    assert [row.incident_id for row in rows] == ["i3", "i1", "i0", "i4", "i2"]
    assert [row.waited_s for row in rows] == [70.0, 20.0, 100.0, 200.0, 5.0]
    # Each clock against its level's target: ESI 1 (no policy deadline) and unclassified 60 s, ESI 3 180 s, ESI 5
    # 1200 s.
    targets = [wait_target_s(row.esi_level) for row in rows]
    assert targets == [60.0, 60.0, 180.0, 1200.0, 60.0]
    assert [wait_class(row.waited_s, target) for row, target in zip(rows, targets, strict=True)] == [
        "wait-late",
        "wait-ok",
        "wait-ok",
        "wait-ok",
        "wait-ok",
    ]
    page = render_queue(rows, selected="i1")
    assert 'data-urgent="i3,i1"' in page and 'class="incident selected" data-id="i1"' in page


def test_a_wait_clock_is_green_then_amber_from_75_percent_of_its_level_s_deadline_then_red_past_it() -> None:
    deadlines = (None, 60.0, 180.0, 600.0, 1200.0)
    assert [wait_target_s(level, deadlines) for level in (None, 1, 2, 3, 4, 5)] == [60, 60, 60, 180, 600, 1200]
    assert [wait_class(seconds, 180.0) for seconds in (0, 134.9, 135, 179.9, 180, 900)] == [
        "wait-ok",
        "wait-ok",
        "wait-warn",
        "wait-warn",
        "wait-late",
        "wait-late",
    ]
    # The deadlines are the settings' (`TRIAGE_POLICY_LEVEL_DEADLINES_S`), not fixed in the console.
    assert wait_target_s(3, (None, 30.0, 90.0, None, None)) == 90.0 and wait_target_s(4, (None,) * 5) == 60.0


def test_a_call_taker_may_add_notes_but_not_claim_override_dispatch_or_close(session: Session) -> None:
    add_note(session, CALL_TAKER, "i0", "caller called back")
    for action in (
        lambda: claim(session, CALL_TAKER, "i0"),
        lambda: override_checked(session, CALL_TAKER, "i0", 1, "worse"),
        lambda: dispatch(session, CALL_TAKER, "i0", ["M12"]),
        lambda: close(session, CALL_TAKER, "i0", "transported"),
        lambda: audit_events(session, CALL_TAKER),
        lambda: audit_events(session, DISPATCHER),
    ):
        with pytest.raises(ForbiddenError, match="may not"):
            action()
    with pytest.raises(ForbiddenError, match="not signed in"):
        claim(session, None, "i0")


def test_dispatcher_actions_are_audited_with_before_and_after(session: Session) -> None:
    claim(session, DISPATCHER, "i0")
    incident = override_checked(session, DISPATCHER, "i0", 1, "now unresponsive")
    record_override(session, incident, 1, "now unresponsive", DISPATCHER.name)
    dispatch(session, DISPATCHER, "i0", ["M12"])
    with pytest.raises(ActionError, match="ESI 1 and no unit reached the scene: confirm closing it without one"):
        close(session, DISPATCHER, "i0", "transported")
    close(session, DISPATCHER, "i0", "transported", no_unit_reason="crew took the patient in before reporting")
    session.commit()
    events = session.scalars(
        select(IncidentEvent).where(IncidentEvent.incident_id == "i0").order_by(IncidentEvent.id)
    ).all()
    assert [(event.actor, event.action) for event in events] == [
        ("dana", "claim"),
        ("dana", "override"),
        ("dana", "dispatch"),
        ("dana", "close"),
    ]
    assert events[1].before == {"esi_level": 3, "override_level": None}
    assert events[1].after == {"esi_level": 1, "override_level": 1} and events[1].reason == "now unresponsive"
    assert events[2].after == {"status": "dispatched", "units": ["M12"]}
    assert events[3].after == {
        "status": "closed",
        "disposition": "transported",
        "no_unit_on_scene": True,
        "guidance_state": "cancelled",
    }
    assert events[3].reason == "crew took the patient in before reporting"
    assert "i0" not in [row.incident_id for row in open_queue(session, NOW)]
    with pytest.raises(ActionError, match="already closed"):
        close(session, DISPATCHER, "i0", "transported")
    with pytest.raises(ActionError, match="needs a reason"):
        override_checked(session, DISPATCHER, "i1", 2, "  ")
    with pytest.raises(ActionError, match="choose a disposition"):
        close(session, DISPATCHER, "i1", "gone fishing")
    audit = audit_events(session, SUPERVISOR, actor="dana", action="override")
    assert len(audit) == 1 and audit[0]["incident"] == "i0"


@pytest.mark.parametrize("text", ["\u0000", "\u200b", " \u00ad\x07\u2060 "])
def test_a_typed_message_empty_once_cleaned_is_refused_as_intake_refuses_it(session: Session, text: str) -> None:
    with pytest.raises(ActionError) as refused:
        new_message(session, CALL_TAKER, text, "Ann", "")
    assert str(refused.value) == f"text: {EMPTY_TEXT_REASON}"
    session.commit()
    assert session.scalar(select(func.count()).select_from(Incident)) == 5  # the fixture's five, nothing new
    assert session.scalar(select(func.count()).select_from(Outbox)) == 0


def test_a_typed_message_is_stored_without_nul_with_its_outbox_entry(session: Session) -> None:
    incident_id = new_message(session, CALL_TAKER, "Fell\u0000 down the stairs", "Ann\u0000", "")
    session.commit()
    incident = session.get(Incident, incident_id)
    assert incident is not None
    assert (incident.source, incident.text, incident.caller, incident.location) == (
        "console",
        "Fell down the stairs",
        "Ann",
        None,
    )
    assert session.scalar(select(func.count()).select_from(Outbox)) == 1
    received = session.scalars(select(IncidentEvent).where(IncidentEvent.incident_id == incident_id)).all()
    # Received from the console source, as every call from its source (docs/threat-model.md), and typed by carl.
    assert [(event.action, event.actor, (event.after or {}).get("entered_by")) for event in received] == [
        ("received", "system:intake:console", "carl")
    ]
    with pytest.raises(ForbiddenError, match="not signed in"):
        new_message(session, None, "Fell down the stairs", "", "")


def test_evidence_is_marked_in_the_escaped_message() -> None:
    text = "He is <not> breathing and has chest pain"
    evidence: list[dict[str, Any]] = [  # as classify_incident stores them (Evidence.to_json)
        {"rule_id": "apnea", "span": [6, 21], "description": "not breathing", "text": "<not> breathing"},
        {"rule_id": "chest_pain", "span": [30, 40], "description": "chest pain", "text": "chest pain"},
        {"rule_id": "bad", "span": [40, 30], "description": "an empty span is left alone"},
    ]
    marked = highlight(text, evidence)
    assert marked == (
        '<div class="message">He is <mark title="not breathing">&lt;not&gt; breathing</mark> and has '
        '<mark title="chest pain">chest pain</mark></div>'
    )


def test_a_template_guidance_is_marked_in_the_queue_and_the_incident_head() -> None:
    from app.console.render import guidance_cell, guidance_label
    from app.console.service import template_kind

    assert template_kind("template:minor-injury") == "minor-injury"
    assert template_kind("qwen2.5-0.5b") == "" and template_kind(None) == ""
    cell = guidance_cell("done", "minor-injury")
    assert (
        cell.startswith('<td class="engine-template" title="template guidance (minor-injury)') and ">template<" in cell
    )
    assert guidance_cell("done", "") == '<td class="engine-done">done</td>'
    template = guidance("template:pain", "templates-2026.11.1")
    head = guidance_label(detail(guidance=template, guidance_state="done"))
    assert head == '<span class="template-mark">template (pain, templates-2026.11.1): queue overloaded</span>'
    assert guidance_label(detail(guidance_state="generating")) == ('<span class="guidance-state">generating</span>')


def test_while_guidance_is_down_the_queue_says_why_and_waiting_calls_say_unavailable(session: Session) -> None:
    from app.console.render import render_engine_banner
    from app.status.engine import EngineStatus

    session.get(Incident, "i3").guidance_state = "queued"  # type: ignore[union-attr]
    session.get(Incident, "i0").guidance_state = "generating"  # type: ignore[union-attr]
    session.commit()
    rows = open_queue(session, NOW)
    down = EngineStatus(False, "unavailable", "model m is not on this machine & cannot be downloaded", 1)
    page = render_queue(rows, engine=down)
    # The floor reads what to do; the cause is the supervisors' (`render_engine_banner(..., supervisor=True)`).
    assert page.startswith(
        '<div class="engine-banner down" role="alert"><b>Guidance is down:</b> read the protocol card to the caller. '
        "Triage, the queue and the cards keep working; calls get guidance once an engine serves. A supervisor sees "
        "the cause.</div>"
    )
    assert "model m" not in page
    assert render_engine_banner(down, supervisor=True).endswith(
        " Cause: model m is not on this machine &amp; cannot be downloaded.</div>"
    )
    down_cell = (
        '<td class="engine-unavailable" title="guidance unavailable: read the protocol card">guidance unavailable</td>'
    )
    assert page.count(down_cell) == 1  # i3 (queued); i0 is generating, i2 pending
    loading = render_queue(rows, engine=EngineStatus(False, "loading", "loading model m", 1))
    assert loading.startswith(
        '<div class="engine-banner loading" role="status"><b>Guidance is starting</b>: read the protocol card'
    )
    assert (
        '<td class="engine-loading" title="guidance starting: read the protocol card">guidance starting</td>'
    ) in loading
    for serving in (EngineStatus(True, "serving", engines=2), None):
        assert render_queue(rows, engine=serving) == render_queue(rows)
        assert "engine-banner" not in render_queue(rows, engine=serving)


def test_the_queue_puts_unclaimed_calls_first_and_stops_a_dispatched_call_s_clock(session: Session) -> None:
    claim(session, DISPATCHER, "i3")  # ESI 1, the longest waiting: claimed
    dispatch(session, DISPATCHER, "i1", ["M12"])  # ESI 1: dispatched (and claimed)
    incident = session.get(Incident, "i1")
    assert incident is not None
    incident.dispatched_at = NOW - dt.timedelta(seconds=5)  # 15 s after its arrival
    session.commit()
    rows = open_queue(session, NOW)
    assert [(row.incident_id, row.status) for row in rows] == [
        ("i0", "new"),  # ESI 3
        ("i4", "new"),  # ESI 5
        ("i2", "new"),  # unclassified
        ("i3", "claimed"),  # ESI 1, but someone holds it
        ("i1", "dispatched"),
    ]
    dispatched = rows[-1]
    assert (dispatched.waited_s, [(unit.name, unit.status) for unit in dispatched.units]) == (
        15.0,
        [("M12", "dispatched")],
    )
    page = render_queue(rows)
    assert '<td class="wait-stopped" title="dispatched 0:15 after arrival (target 1:00)">0:15</td>' in page
    assert '<span class="unit-chip unit-dispatched">M12 dispatched <span class="unit-clock" data-since="' in page
    assert 'data-urgent=""' in page  # the ESI 1 calls are held: no alert for them
