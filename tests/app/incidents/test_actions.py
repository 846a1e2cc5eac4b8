"""One set of incident actions for the API and the console: the same rules (roles, closed incidents, strict ESI
levels, reasons) and the same audit events, whichever way a dispatcher acts."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.api.main import create_app
from app.auth.accounts import Principal, add_user, issue_token
from app.console import service
from app.db.migrate import upgrade
from app.db.models import Incident, IncidentEvent, Role, User
from app.db.session import session_factory, session_scope
from app.incidents import actions as actions
from app.incidents.ownership import state_token
from app.incidents.pipeline import store_message
from app.intake.schemas import IntakeMessage
from app.settings import Settings
from app.units.roster import UnitSpec, add_units

DISPATCHER = Principal("dana", Role.DISPATCHER)
CALL_TAKER = Principal("carl", Role.CALL_TAKER)
SUPERVISOR = Principal("sue", Role.SUPERVISOR)


@pytest.fixture
def url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'actions.db'}"
    upgrade(url)
    with session_scope(url) as session:
        for principal in (DISPATCHER, CALL_TAKER, SUPERVISOR):
            add_user(session, principal.name, principal.role)
        add_units(session, [UnitSpec("M1", "ambulance", "Station 1"), UnitSpec("E2", "engine", "Station 2")], "test")
    return url


@pytest.fixture
def session(url: str) -> Iterator[Session]:
    with session_factory(url)() as db:
        yield db


def new_incident(url: str, webhook_id: str, esi_level: int = 3) -> str:
    with session_scope(url) as session:
        incident_id, _ = store_message(session, "cad", webhook_id, IntakeMessage(text="Chest pain, sweating"))
        session.get(Incident, incident_id).esi_level = esi_level  # type: ignore[union-attr]
    return incident_id


def history(url: str, incident_id: str) -> list[tuple[str, str, Any, Any, Any]]:
    with session_scope(url) as session:
        events = session.scalars(
            select(IncidentEvent).where(IncidentEvent.incident_id == incident_id).order_by(IncidentEvent.id)
        ).all()
        return [(event.actor, event.action, event.before, event.after, event.reason) for event in events]


def test_the_api_and_the_console_write_the_same_audit_events(url: str, session: Session) -> None:
    through_api, through_console = new_incident(url, "w-api"), new_incident(url, "w-console")
    with session_scope(url) as db:
        user = db.scalar(select(User).where(User.name == "dana"))
        assert user is not None
        auth = {"authorization": f"Bearer {issue_token(db, user)}"}
    with TestClient(create_app(Settings(database_url=url), reconciler=False, console=False)) as client:
        for path, body in (
            (f"incidents/{through_api}/claim", None),
            (f"incidents/{through_api}/override", {"esi_level": 1, "reason": " now unresponsive "}),
            (f"incidents/{through_api}/notes", {"note": " crew asked for the gate code "}),
            (f"incidents/{through_api}/dispatch", {"units": ["M1"]}),
            ("units/M1/status", {"status": "en route"}),
            ("units/M1/status", {"status": "on scene", "expected_status": "en route"}),
            (f"incidents/{through_api}/close", {"disposition": "transported"}),
            ("units/M1/status", {"status": "back in service"}),
        ):
            response = client.post(f"/v1/{path}", json=body, headers=auth)
            assert response.status_code == (201 if path.endswith("notes") else 200), (path, response.text)
    service.claim(session, DISPATCHER, through_console)
    service.override(session, DISPATCHER, through_console, 1, " now unresponsive ")
    service.add_note(session, DISPATCHER, through_console, " crew asked for the gate code ")
    service.dispatch(session, DISPATCHER, through_console, ["M1"])
    service.set_unit_status(session, DISPATCHER, "M1", "en route")
    service.set_unit_status(session, DISPATCHER, "M1", "on scene", "en route")
    service.close(session, DISPATCHER, through_console, "transported")
    service.set_unit_status(session, DISPATCHER, "M1", "back in service")
    session.commit()
    api_events, console_events = history(url, through_api), history(url, through_console)
    assert [event[1] for event in api_events] == [
        "received",
        "claim",
        "override",
        "note",
        "dispatch",
        "unit_status",
        "unit_status",
        "close",
        "unit_status",
    ]
    assert api_events[1:] == console_events[1:]  # after "received", which names each one's webhook id
    assert api_events[2][2:] == (
        {"esi_level": 3, "override_level": None},
        {"esi_level": 1, "override_level": 1},
        "now unresponsive",
    )
    assert api_events[3][4] == "crew asked for the gate code"


def test_the_console_refuses_a_closed_incident_as_before(url: str, session: Session) -> None:
    incident_id = new_incident(url, "w-closed")
    service.close(session, DISPATCHER, incident_id, "duplicate call")
    session.commit()
    refusals: dict[str, Callable[[], object]] = {
        "claim": lambda: service.claim(session, DISPATCHER, incident_id),
        "override check": lambda: service.override_checked(session, DISPATCHER, incident_id, 2, "worse"),
        "override": lambda: service.override(session, DISPATCHER, incident_id, 2, "worse"),
        "dispatch": lambda: service.dispatch(session, DISPATCHER, incident_id, ["M1"]),
    }
    for name, refused in refusals.items():
        with pytest.raises(service.ActionError, match=r"^the incident is closed$") as caught:
            refused()
        assert isinstance(caught.value, actions.IncidentClosedError), name
    with pytest.raises(actions.IncidentClosedError, match=r"^the incident is already closed$"):
        service.close(session, DISPATCHER, incident_id, "transported")
    service.add_note(session, CALL_TAKER, incident_id, "caller rang back")  # notes are still welcome
    session.commit()
    assert [event[1] for event in history(url, incident_id)] == ["received", "close", "note"]


def test_the_console_words_an_unknown_incident_as_before(session: Session) -> None:
    for incident_id in ("", "no-such-incident"):
        with pytest.raises(service.ActionError, match=r"^choose an incident first$"):
            service.claim(session, DISPATCHER, incident_id)
        with pytest.raises(service.ActionError, match=r"^choose an incident first$"):
            service.add_note(session, DISPATCHER, incident_id, "hello")
    with pytest.raises(actions.IncidentNotFoundError, match=r"^no such incident$"):
        actions.dispatch(session, "no-such-incident", DISPATCHER, ["M1"])


@pytest.mark.parametrize("esi_level", [2.0, True, False, 0, 6, "2", None])
def test_an_override_level_must_be_a_strict_integer_1_to_5(url: str, session: Session, esi_level: Any) -> None:
    incident_id = new_incident(url, "w-level")
    with pytest.raises(actions.InvalidActionError, match=r"^choose an ESI level 1-5$"):
        actions.override(session, incident_id, DISPATCHER, esi_level, "worse")
    with pytest.raises(service.ActionError, match=r"^choose an ESI level 1-5$"):
        service.override(session, DISPATCHER, incident_id, esi_level, "worse")
    session.commit()
    assert [event[1] for event in history(url, incident_id)] == ["received"]


def test_every_level_1_to_5_is_accepted(url: str, session: Session) -> None:
    incident_id = new_incident(url, "w-levels")
    for esi_level in (1, 2, 3, 4, 5):
        assert actions.override(session, incident_id, SUPERVISOR, esi_level, "checked").override_level == esi_level
    session.commit()
    assert [event[1] for event in history(url, incident_id)] == ["received"] + ["override"] * 5


def test_roles_are_checked_by_the_actions(url: str, session: Session) -> None:
    incident_id = new_incident(url, "w-roles")
    refusals: tuple[Callable[[], object], ...] = (
        lambda: actions.claim(session, incident_id, CALL_TAKER),
        lambda: actions.override(session, incident_id, CALL_TAKER, 1, "worse"),
        lambda: actions.dispatch(session, incident_id, CALL_TAKER, ["M1"]),
        lambda: actions.close(session, incident_id, CALL_TAKER, "transported"),
    )
    for refused in refusals:
        with pytest.raises(actions.ForbiddenError, match=r"^a call-taker may not "):
            refused()
    with pytest.raises(actions.ForbiddenError, match=r"^not signed in$"):
        actions.add_note(session, incident_id, None, "hello")
    with pytest.raises(actions.ForbiddenError, match="has no user account"):
        actions.claim(session, incident_id, Principal("dev-open-api", Role.SUPERVISOR))
    actions.add_note(session, incident_id, CALL_TAKER, "caller rang back")
    session.commit()
    assert [event[:2] for event in history(url, incident_id)] == [("system:intake:cad", "received"), ("carl", "note")]


def test_claiming_twice_writes_one_event_and_another_user_must_take_over(url: str, session: Session) -> None:
    incident_id = new_incident(url, "w-twice")
    for _ in range(2):
        service.claim(session, DISPATCHER, incident_id)
        session.commit()
    service.dispatch(session, DISPATCHER, incident_id, ["M1"])
    session.commit()
    with pytest.raises(actions.IncidentHeldError, match=r"^dana holds this call: take it over with a reason"):
        service.claim(session, SUPERVISOR, incident_id)
    with pytest.raises(actions.IncidentHeldError, match=r"^dana holds this call: take it over \(with a reason\)"):
        service.dispatch(session, SUPERVISOR, incident_id, ["E2"])
    with pytest.raises(actions.InvalidActionError, match="a take-over needs a reason"):
        service.claim(session, SUPERVISOR, incident_id, take_over_reason="  ")
    service.claim(session, SUPERVISOR, incident_id, take_over_reason="dana is on the cardiac arrest line")
    session.commit()
    events = history(url, incident_id)
    assert [(actor, action) for actor, action, *_ in events] == [
        ("system:intake:cad", "received"),
        ("dana", "claim"),
        ("dana", "dispatch"),
        ("sue", "take_over"),
    ]
    with session_scope(url) as db:
        ids = dict(db.execute(select(User.name, User.id)).all())
    assert events[3][2:] == (
        {"claimed_by": ids["dana"]},
        {"claimed_by": ids["sue"]},
        "dana is on the cardiac arrest line",
    )
    service.dispatch(session, SUPERVISOR, incident_id, ["E2"])  # now sue's to act on
    session.commit()


def test_an_action_offered_in_another_state_is_refused_and_changes_nothing(url: str, session: Session) -> None:
    incident_id = new_incident(url, "w-stale")
    with session_scope(url) as db:
        offered = state_token(db.get(Incident, incident_id))  # type: ignore[arg-type]
    service.claim(session, SUPERVISOR, incident_id, offered)  # sue claims it from the state both screens showed
    session.commit()
    stale = r"^the call changed since you saw it: now claimed \(you saw new\); held by sue \(you saw nobody\)\."
    for refused in (
        lambda: service.claim(session, DISPATCHER, incident_id, offered),
        lambda: service.override(session, DISPATCHER, incident_id, 1, "worse", offered),
        lambda: service.dispatch(session, DISPATCHER, incident_id, ["M1"], offered),
        lambda: service.close(session, DISPATCHER, incident_id, "other", offered),
    ):
        with pytest.raises(actions.StaleActionError, match=stale):
            refused()
    session.rollback()
    assert [event[:2] for event in history(url, incident_id)] == [
        ("system:intake:cad", "received"),
        ("sue", "claim"),
    ]
