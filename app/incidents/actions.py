"""What a person may do to an incident (claim or take over, override, dispatch units, close, note, switch its protocol
card and mark its steps done): the rules and the audit, in one place.

Each action takes a session, the incident id, the acting user and its arguments; it checks the role, the arguments,
who holds the call (one owner per call: `app.incidents.ownership`), the state the action was offered in (when the
caller says it) and the incident's state, changes the incident and adds its audit event. The caller commits (and,
after an override's commit, calls `app.incidents.overrides.propagate_override`). The API and the console both call
these functions and only translate the exceptions (`app.incidents.errors`): `ForbiddenError` 403,
`IncidentNotFoundError` 404, `IncidentClosedError` and `ConflictError` 409, `InvalidActionError` 422,
`TooManyError` 429.
"""

from __future__ import annotations

from collections.abc import Sequence
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
    UnitAssignment,
    User,
    utcnow,
)
from app.engine_worker.outcomes import close_outbox
from app.guidance.cards import CardLibrary, default_library
from app.guidance.incident_card import incident_card, set_card
from app.incidents.errors import ActionError as ActionError
from app.incidents.errors import ConflictError as ConflictError
from app.incidents.errors import ForbiddenError as ForbiddenError
from app.incidents.errors import IncidentClosedError as IncidentClosedError
from app.incidents.errors import IncidentHeldError as IncidentHeldError
from app.incidents.errors import IncidentNotFoundError as IncidentNotFoundError
from app.incidents.errors import InvalidActionError as InvalidActionError
from app.incidents.errors import NotFoundError as NotFoundError
from app.incidents.errors import StaleActionError as StaleActionError
from app.incidents.errors import TooManyError as TooManyError
from app.incidents.overrides import record_override
from app.incidents.ownership import check_holder, check_offered, holder_name
from app.incidents.text_limits import DEFAULT_LIMITS, FreeTextLimits, bounded, check_note_room
from app.units.dispatching import assign_units
from scheduler.policy import ESI_LEVELS

DISPATCH_ROLES = (Role.DISPATCHER, Role.SUPERVISOR)
ALL_ROLES = (Role.CALL_TAKER, *DISPATCH_ROLES)
DISPOSITIONS = ("transported", "treated on scene", "no patient found", "refused care", "duplicate call", "other")
URGENT_LEVELS = (1, 2)
"""Closing a call at these levels with no unit on scene asks for a confirmation and a reason."""

ALLOWED: dict[str, tuple[tuple[Role, ...], str]] = {
    "claim": (DISPATCH_ROLES, "claim incidents"),
    "override": (DISPATCH_ROLES, "override the acuity"),
    "dispatch": (DISPATCH_ROLES, "dispatch units"),
    "close": (DISPATCH_ROLES, "close incidents"),
    "note": (ALL_ROLES, "add notes"),
    "card_switch": (DISPATCH_ROLES, "switch the protocol card"),
    "card_step": (DISPATCH_ROLES, "mark protocol card steps"),
    "unit_status": (DISPATCH_ROLES, "change a unit's status"),
    "correct": (DISPATCH_ROLES, "correct a call"),
    "merge": (DISPATCH_ROLES, "merge duplicate calls"),
}
"""Action: the roles that may do it, and what it is called in a refusal."""


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


def claim(
    session: Session,
    incident_id: str,
    actor: Principal | None,
    take_over_reason: str | None = None,
    expected_state: str | None = None,
    limits: FreeTextLimits = DEFAULT_LIMITS,
) -> Incident:
    """The actor takes the incident (a new one becomes claimed); claiming one the actor holds already changes nothing
    and records nothing. One another user holds is refused (`IncidentHeldError`, naming them) unless it is a take-over
    with a reason (audited as "take_over", shown to both)."""
    who = authorize(actor, "claim")
    incident = open_incident(session, incident_id)
    check_offered(session, incident, expected_state)
    user = acting_user(session, who, "claim incidents")
    if incident.claimed_by == user.id and incident.status != IncidentStatus.NEW:
        return incident
    if incident.claimed_by is not None and incident.claimed_by != user.id:
        if take_over_reason is None:
            holder = holder_name(session, incident)
            raise IncidentHeldError(f"{holder} holds this call: take it over with a reason, or leave it to them")
        reason = bounded(take_over_reason, limits.reason_chars, "the take-over reason")
        if not reason:
            raise InvalidActionError("a take-over needs a reason (the other dispatcher is shown it)")
        taken: dict[str, Any] = {"claimed_by": incident.claimed_by}
        incident.claimed_by = user.id
        audit_event(session, incident, who, "take_over", taken, {"claimed_by": user.id}, reason)
        return incident
    before = {"status": incident.status, "claimed_by": incident.claimed_by}
    incident.claimed_by = user.id
    if incident.status == IncidentStatus.NEW:
        incident.status = IncidentStatus.CLAIMED.value
    audit_event(session, incident, who, "claim", before, {"status": incident.status, "claimed_by": user.id})
    return incident


def acting_user(session: Session, who: Principal, what: str) -> User:
    """The actor's active user account (the open development API has none: it may not hold calls)."""
    user = session.scalar(select(User).where(User.name == who.name, User.active.is_(True)))
    if user is None:
        raise ForbiddenError(f"{who.name} has no user account and may not {what}")
    return user


def held_open_incident(
    session: Session, incident_id: str, who: Principal, expected_state: str | None, what: str
) -> tuple[Incident, User | None]:
    """The open incident, if offered in its present state and not held by another user; and the acting user's
    account (None for an actor without one, such as the open development API: it may act only on an incident
    nobody holds)."""
    incident = open_incident(session, incident_id)
    check_offered(session, incident, expected_state)
    user = session.scalar(select(User).where(User.name == who.name, User.active.is_(True)))
    if user is not None:
        check_holder(session, incident, user)
    elif incident.claimed_by is not None:
        holder = holder_name(session, incident)
        raise IncidentHeldError(f"{holder} holds this call: {who.name} has no user account to take it over with")
    return incident, user


def check_override(
    session: Session,
    incident_id: str,
    actor: Principal | None,
    esi_level: object,
    reason: str,
    expected_state: str | None = None,
    limits: FreeTextLimits = DEFAULT_LIMITS,
) -> Incident:
    """The incident, if the actor may override it to this level for this reason (nothing is changed)."""
    who = authorize(actor, "override")
    valid_esi_level(esi_level)
    if not bounded(reason, limits.reason_chars, "the override reason"):
        raise InvalidActionError("an override needs a reason")
    incident, _ = held_open_incident(session, incident_id, who, expected_state, "override the acuity")
    return incident


def override(
    session: Session,
    incident_id: str,
    actor: Principal | None,
    esi_level: object,
    reason: str,
    expected_state: str | None = None,
    limits: FreeTextLimits = DEFAULT_LIMITS,
) -> Incident:
    """Set the incident's ESI level (with a reason) and audit it; after the commit, `propagate_override`."""
    incident = check_override(session, incident_id, actor, esi_level, reason, expected_state, limits)
    assert actor is not None and isinstance(esi_level, int)  # check_override refused anything else
    record_override(session, incident, esi_level, reason.strip(), actor.name)
    return incident


def dispatch(
    session: Session,
    incident_id: str,
    actor: Principal | None,
    units: Sequence[str],
    expected_state: str | None = None,
) -> Incident:
    """Dispatch available units to the incident (one or more; a dispatched incident may get more): their status
    becomes dispatched and each assignment is timed; the incident becomes dispatched, its wait clock stops at its
    first dispatch, and an unclaimed incident is claimed by the dispatcher. Audited with the units."""
    who = authorize(actor, "dispatch")
    incident, user = held_open_incident(session, incident_id, who, expected_state, "dispatch units")
    now = utcnow()
    assignments = assign_units(session, incident, units, who.name, now)
    before: dict[str, Any] = {"status": incident.status}
    after: dict[str, Any] = {"status": IncidentStatus.DISPATCHED.value, "units": [a.unit_name for a in assignments]}
    if incident.claimed_by is None and user is not None:
        before["claimed_by"], after["claimed_by"] = None, user.id
        incident.claimed_by = user.id
    incident.status = IncidentStatus.DISPATCHED.value
    if incident.dispatched_at is None:
        incident.dispatched_at = now
    audit_event(session, incident, who, "dispatch", before, after)
    return incident


def close(
    session: Session,
    incident_id: str,
    actor: Principal | None,
    disposition: str,
    expected_state: str | None = None,
    no_unit_reason: str | None = None,
    limits: FreeTextLimits = DEFAULT_LIMITS,
) -> Incident:
    """Close the incident with one of `DISPOSITIONS` (a duplicate call included). An ESI 1-2 call no unit reached
    asks for a confirmation: a reason for closing it so (`no_unit_reason`). Guidance not yet done is cancelled and
    the outbox entry closed: no engine serves the call from then on. After the commit, `propagate_close` takes it
    out of the heap and aborts it in the engine at once (the reconciler does so within a pass otherwise)."""
    who = authorize(actor, "close")
    if disposition not in DISPOSITIONS:
        raise InvalidActionError(f"choose a disposition: {', '.join(DISPOSITIONS)}")
    incident = incident_or_404(session, incident_id)
    if incident.status == IncidentStatus.CLOSED:
        raise IncidentClosedError("the incident is already closed")
    incident, _ = held_open_incident(session, incident_id, who, expected_state, "close incidents")
    reason = _no_unit_reason(session, incident, no_unit_reason, limits)
    before: dict[str, Any] = {"status": incident.status}
    after: dict[str, Any] = {"status": IncidentStatus.CLOSED.value, "disposition": disposition}
    if reason is not None:
        after["no_unit_on_scene"] = True
    incident.status = IncidentStatus.CLOSED.value
    if incident.guidance_state not in FINAL_GUIDANCE_STATES:
        before["guidance_state"] = incident.guidance_state
        incident.guidance_state = after["guidance_state"] = GuidanceState.CANCELLED.value
        close_outbox(session, incident.id, utcnow())
    audit_event(session, incident, who, "close", before, after, reason)
    return incident


def _no_unit_reason(session: Session, incident: Incident, given: str | None, limits: FreeTextLimits) -> str | None:
    """The reason for closing an ESI 1-2 call that no unit reached (required then; None for any other call)."""
    if incident.esi_level not in URGENT_LEVELS or unit_reached_scene(session, incident.id):
        return None
    reason = bounded(given or "", limits.reason_chars, "the reason")
    if not reason:
        raise InvalidActionError(
            f"ESI {incident.esi_level} and no unit reached the scene: confirm closing it without one and say why"
        )
    return reason


def unit_reached_scene(session: Session, incident_id: str) -> bool:
    return (
        session.scalar(
            select(UnitAssignment.id)
            .where(UnitAssignment.incident_id == incident_id, UnitAssignment.on_scene_at.is_not(None))
            .limit(1)
        )
        is not None
    )


def add_note(
    session: Session,
    incident_id: str,
    actor: Principal | None,
    note: str,
    limits: FreeTextLimits = DEFAULT_LIMITS,
) -> IncidentEvent:
    """Add a note to the incident's history (closed incidents too), within the note limits; the note event."""
    who = authorize(actor, "note")
    incident = incident_or_404(session, incident_id)
    text = bounded(note, limits.note_chars, "the note")
    if not text:
        raise InvalidActionError("the note is empty")
    check_note_room(session, incident.id, who.name, limits)
    return audit_event(session, incident, who, "note", {}, {}, text)


def switch_card(
    session: Session,
    incident_id: str,
    actor: Principal | None,
    card_id: str,
    reason: str,
    library: CardLibrary | None = None,
    expected_state: str | None = None,
    limits: FreeTextLimits = DEFAULT_LIMITS,
) -> Incident:
    """Put another protocol card on the incident (a reason is required), in the call's language when translated; the
    steps start again undone. Audited with the card before and after, like an override."""
    who = authorize(actor, "card_switch")
    library = library or default_library()
    if card_id not in library.ids():
        raise InvalidActionError(f"no protocol card {card_id!r}; choose one of: {', '.join(library.ids())}")
    if not bounded(reason, limits.reason_chars, "the card-switch reason"):
        raise InvalidActionError("switching the card needs a reason")
    incident, _ = held_open_incident(session, incident_id, who, expected_state, "switch the protocol card")
    if incident.card_id == card_id:
        raise InvalidActionError(f"the incident already has the card {card_id}")
    card = library.get(card_id, incident.language or "en")
    assert card is not None  # the id is in the library, in English at least
    before = {"card": incident.card_id, "card_version": incident.card_version, "steps_done": incident.card_steps_done}
    set_card(incident, card)
    after = {"card": card.id, "card_version": card.version, "card_language": card.language, "steps_done": []}
    audit_event(session, incident, who, "card_switch", before, after, reason.strip())
    return incident


def mark_card_step(
    session: Session,
    incident_id: str,
    actor: Principal | None,
    step: object,
    done: object,
    library: CardLibrary | None = None,
    expected_state: str | None = None,
) -> Incident:
    """Mark one of the card's steps (numbered from 1) done or not done, audited with the steps done before and after;
    marking it as it already is changes nothing and records nothing."""
    who = authorize(actor, "card_step")
    if type(done) is not bool:
        raise InvalidActionError("done must be true or false")
    incident, _ = held_open_incident(session, incident_id, who, expected_state, "mark protocol card steps")
    card = incident_card(incident, library)
    if card is None:
        raise InvalidActionError("the incident has no protocol card")
    if type(step) is not int or not 1 <= step <= len(card.steps):
        raise InvalidActionError(f"choose a step 1-{len(card.steps)} of the card {card.id}")
    before = sorted(incident.card_steps_done or [])
    after = sorted({*before, step}) if done else [number for number in before if number != step]
    if after != before:
        incident.card_steps_done = after  # a new list: the JSON column sees the change
        audit_event(session, incident, who, "card_step", {"steps_done": before}, {"steps_done": after, "step": step})
    return incident


def incident_or_404(session: Session, incident_id: str) -> Incident:
    incident = session.get(Incident, incident_id) if incident_id else None
    if incident is None:
        raise IncidentNotFoundError("no such incident")
    return incident


def open_incident(session: Session, incident_id: str) -> Incident:
    incident = incident_or_404(session, incident_id)
    if incident.status == IncidentStatus.CLOSED:
        raise IncidentClosedError("the incident is closed")
    return incident


def audit_event(
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
