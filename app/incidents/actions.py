"""What a person may do to an incident (claim, override, dispatch, close, note, switch its protocol card, mark its
steps done): the rules and the audit, in one place.

Each action takes a session, the incident id, the acting user and its arguments; it checks the role, the arguments
and the incident's state, changes the incident and adds its audit event. The caller commits (and, after an
override's commit, calls `app.incidents.overrides.propagate_override`). The API and the console both call these
functions and only translate the exceptions: `ForbiddenError` 403, `IncidentNotFoundError` 404, `IncidentClosedError`
409, `InvalidActionError` 422.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.auth.accounts import Principal
from app.db.models import (
    FINAL_GUIDANCE_STATES,
    GuidanceState,
    Incident,
    IncidentEvent,
    IncidentStatus,
    Role,
    User,
    utcnow,
)
from app.engine_worker.outcomes import close_outbox
from app.guidance.cards import CardLibrary, default_library
from app.guidance.incident_card import incident_card, set_card
from app.incidents.overrides import record_override
from scheduler.policy import ESI_LEVELS

DISPATCH_ROLES = (Role.DISPATCHER, Role.SUPERVISOR)
ALL_ROLES = (Role.CALL_TAKER, *DISPATCH_ROLES)
DISPOSITIONS = ("transported", "treated on scene", "no patient found", "refused care", "duplicate call", "other")

ALLOWED: dict[str, tuple[tuple[Role, ...], str]] = {
    "claim": (DISPATCH_ROLES, "claim incidents"),
    "override": (DISPATCH_ROLES, "override the acuity"),
    "dispatch": (DISPATCH_ROLES, "mark incidents dispatched"),
    "close": (DISPATCH_ROLES, "close incidents"),
    "note": (ALL_ROLES, "add notes"),
    "card_switch": (DISPATCH_ROLES, "switch the protocol card"),
    "card_step": (DISPATCH_ROLES, "mark protocol card steps"),
}
"""Action: the roles that may do it, and what it is called in a refusal."""


class ForbiddenError(PermissionError):
    """The acting user's role may not do this (or nobody is signed in)."""


class ActionError(ValueError):
    """The action cannot be done as asked (with the reason)."""


class IncidentNotFoundError(ActionError):
    """No incident has this id."""


class IncidentClosedError(ActionError):
    """The incident is closed: it can no longer be claimed, overridden, dispatched or closed."""


class InvalidActionError(ActionError):
    """An argument is not acceptable (an ESI level, a reason, a disposition, a note)."""


def require(actor: Principal | None, roles: tuple[Role, ...], what: str) -> Principal:
    """The actor, if signed in with one of the roles; else `ForbiddenError` ("a call-taker may not ...")."""
    if actor is None:
        raise ForbiddenError("not signed in")
    if actor.role not in roles:
        raise ForbiddenError(f"a {actor.role.value} may not {what}")
    return actor


def authorize(actor: Principal | None, action: str) -> Principal:
    """The actor, if their role may do the action (a key of `ALLOWED`)."""
    roles, what = ALLOWED[action]
    return require(actor, roles, what)


def valid_esi_level(esi_level: object) -> int:
    """The level if it is a strict integer 1..5 (not 2.0, not true, not "2")."""
    if type(esi_level) is not int or esi_level not in ESI_LEVELS:
        raise InvalidActionError("choose an ESI level 1-5")
    return esi_level


def claim(session: Session, incident_id: str, actor: Principal | None) -> Incident:
    """The actor takes the incident (a new one becomes claimed); claiming one the actor holds already changes nothing
    and records nothing."""
    who = authorize(actor, "claim")
    incident = _open_incident(session, incident_id)
    user = session.scalar(select(User).where(User.name == who.name, User.active.is_(True)))
    if user is None:
        raise ForbiddenError(f"{who.name} has no user account and may not claim incidents")
    if incident.claimed_by == user.id and incident.status != IncidentStatus.NEW:
        return incident
    before = {"status": incident.status, "claimed_by": incident.claimed_by}
    incident.claimed_by = user.id
    if incident.status == IncidentStatus.NEW:
        incident.status = IncidentStatus.CLAIMED.value
    _event(session, incident, who, "claim", before, {"status": incident.status, "claimed_by": user.id})
    return incident


def check_override(
    session: Session, incident_id: str, actor: Principal | None, esi_level: object, reason: str
) -> Incident:
    """The incident, if the actor may override it to this level for this reason (nothing is changed)."""
    authorize(actor, "override")
    valid_esi_level(esi_level)
    if not reason.strip():
        raise InvalidActionError("an override needs a reason")
    return _open_incident(session, incident_id)


def override(session: Session, incident_id: str, actor: Principal | None, esi_level: object, reason: str) -> Incident:
    """Set the incident's ESI level (with a reason) and audit it; after the commit, `propagate_override`."""
    incident = check_override(session, incident_id, actor, esi_level, reason)
    assert actor is not None and isinstance(esi_level, int)  # check_override refused anything else
    record_override(session, incident, esi_level, reason.strip(), actor.name)
    return incident


def dispatch(session: Session, incident_id: str, actor: Principal | None) -> Incident:
    """Mark the incident dispatched; marking a dispatched one again changes nothing and records nothing."""
    who = authorize(actor, "dispatch")
    incident = _open_incident(session, incident_id)
    if incident.status == IncidentStatus.DISPATCHED:
        return incident
    before = {"status": incident.status}
    incident.status = IncidentStatus.DISPATCHED.value
    _event(session, incident, who, "dispatch", before, {"status": incident.status})
    return incident


def close(session: Session, incident_id: str, actor: Principal | None, disposition: str) -> Incident:
    """Close the incident with one of `DISPOSITIONS` (a duplicate call included). Guidance not yet done is cancelled
    and the outbox entry closed: no engine serves the call from then on. After the commit, `propagate_close` takes
    it out of the heap and aborts it in the engine at once (the reconciler does so within a pass otherwise)."""
    who = authorize(actor, "close")
    if disposition not in DISPOSITIONS:
        raise InvalidActionError(f"choose a disposition: {', '.join(DISPOSITIONS)}")
    incident = _incident(session, incident_id)
    if incident.status == IncidentStatus.CLOSED:
        raise IncidentClosedError("the incident is already closed")
    before: dict[str, Any] = {"status": incident.status}
    after: dict[str, Any] = {"status": IncidentStatus.CLOSED.value, "disposition": disposition}
    incident.status = IncidentStatus.CLOSED.value
    if incident.guidance_state not in FINAL_GUIDANCE_STATES:
        before["guidance_state"] = incident.guidance_state
        incident.guidance_state = after["guidance_state"] = GuidanceState.CANCELLED.value
        close_outbox(session, incident.id, utcnow())
    _event(session, incident, who, "close", before, after)
    return incident


def add_note(session: Session, incident_id: str, actor: Principal | None, note: str) -> IncidentEvent:
    """Add a note to the incident's history (closed incidents too); the note event."""
    who = authorize(actor, "note")
    if not note.strip():
        raise InvalidActionError("the note is empty")
    incident = _incident(session, incident_id)
    return _event(session, incident, who, "note", {}, {}, note.strip())


def switch_card(
    session: Session,
    incident_id: str,
    actor: Principal | None,
    card_id: str,
    reason: str,
    library: CardLibrary | None = None,
) -> Incident:
    """Put another protocol card on the incident (a reason is required), in the call's language when translated; the
    steps start again undone. Audited with the card before and after, like an override."""
    who = authorize(actor, "card_switch")
    library = library or default_library()
    if card_id not in library.ids():
        raise InvalidActionError(f"no protocol card {card_id!r}; choose one of: {', '.join(library.ids())}")
    if not reason.strip():
        raise InvalidActionError("switching the card needs a reason")
    incident = _open_incident(session, incident_id)
    if incident.card_id == card_id:
        raise InvalidActionError(f"the incident already has the card {card_id}")
    card = library.get(card_id, incident.language or "en")
    assert card is not None  # the id is in the library, in English at least
    before = {"card": incident.card_id, "card_version": incident.card_version, "steps_done": incident.card_steps_done}
    set_card(incident, card)
    after = {"card": card.id, "card_version": card.version, "card_language": card.language, "steps_done": []}
    _event(session, incident, who, "card_switch", before, after, reason.strip())
    return incident


def mark_card_step(
    session: Session,
    incident_id: str,
    actor: Principal | None,
    step: object,
    done: object,
    library: CardLibrary | None = None,
) -> Incident:
    """Mark one of the card's steps (numbered from 1) done or not done, audited with the steps done before and after;
    marking it as it already is changes nothing and records nothing."""
    who = authorize(actor, "card_step")
    if type(done) is not bool:
        raise InvalidActionError("done must be true or false")
    incident = _open_incident(session, incident_id)
    card = incident_card(incident, library)
    if card is None:
        raise InvalidActionError("the incident has no protocol card")
    if type(step) is not int or not 1 <= step <= len(card.steps):
        raise InvalidActionError(f"choose a step 1-{len(card.steps)} of the card {card.id}")
    before = sorted(incident.card_steps_done or [])
    after = sorted({*before, step}) if done else [number for number in before if number != step]
    if after != before:
        incident.card_steps_done = after  # a new list: the JSON column sees the change
        _event(session, incident, who, "card_step", {"steps_done": before}, {"steps_done": after, "step": step})
    return incident


def _incident(session: Session, incident_id: str) -> Incident:
    incident = session.get(Incident, incident_id) if incident_id else None
    if incident is None:
        raise IncidentNotFoundError("no such incident")
    return incident


def _open_incident(session: Session, incident_id: str) -> Incident:
    incident = _incident(session, incident_id)
    if incident.status == IncidentStatus.CLOSED:
        raise IncidentClosedError("the incident is closed")
    return incident


def _event(
    session: Session,
    incident: Incident,
    actor: Principal,
    action: str,
    before: dict[str, Any],
    after: dict[str, Any],
    reason: str | None = None,
) -> IncidentEvent:
    event = IncidentEvent(
        incident_id=incident.id, actor=actor.name, action=action, before=before, after=after, reason=reason
    )
    session.add(event)
    return event
