"""What a dispatcher does about a live call: decide on a lower reading the product offered, say whether the call is
a cardiac arrest, confirm the address or call-back number read from the caller's words. Audited like every action
(`app.incidents.actions`); the caller commits (and, after accepting a lower reading, propagates it like an
override)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app.auth.accounts import Principal
from app.db.models import Incident, IncidentEvent, LiveCall, utcnow
from app.incidents.actions import IncidentNotFoundError, InvalidActionError, authorize, check_override
from app.incidents.overrides import record_override

CONFIRMABLE = ("address", "callback_number")


def _live(session: Session, incident_id: str) -> tuple[Incident, LiveCall]:
    incident = session.get(Incident, incident_id) if incident_id else None
    call = session.get(LiveCall, incident_id) if incident is not None else None
    if incident is None or call is None:
        raise IncidentNotFoundError("no such live call")
    return incident, call


def decide_lower_reading(
    session: Session, incident_id: str, actor: Principal | None, accept: object, reason: str
) -> int | None:
    """Accept the lower reading (the level falls to it, as an override with the reason) or dismiss it; the level the
    incident has after, None when it did not change."""
    if type(accept) is not bool:
        raise InvalidActionError("accept must be true or false")
    incident, call = _live(session, incident_id)
    if call.lower_level is None:
        raise InvalidActionError("no lower reading is offered on this call")
    offered, words = call.lower_level, call.lower_words or []
    if accept:
        check_override(session, incident_id, actor, offered, reason)
        assert actor is not None
        record_override(session, incident, offered, reason.strip(), actor.name)
    else:
        who = authorize(actor, "override")
        _audit(session, incident, who, "lower_reading_dismissed", {"esi_level": offered, "words": words}, reason)
    call.lower_level, call.lower_words = None, None
    return offered if accept else None


def confirm_arrest(
    session: Session, incident_id: str, actor: Principal | None, arrest: object, recognised_on_call: object
) -> LiveCall:
    """The dispatcher says the call is a cardiac arrest (or not); `recognised_on_call` False when confirmed only
    after the call (it then counts as an arrest not recognised)."""
    who = authorize(actor, "override")
    if type(arrest) is not bool or type(recognised_on_call) is not bool:
        raise InvalidActionError("arrest and recognised_on_call must be true or false")
    incident, call = _live(session, incident_id)
    before = {"arrest": call.dispatcher_arrest}
    call.dispatcher_arrest, call.dispatcher_recognised_on_call = arrest, recognised_on_call
    if call.dispatcher_arrest_at is None or not arrest:
        call.dispatcher_arrest_at = utcnow() if arrest else None
    after = {"arrest": arrest, "recognised_on_call": recognised_on_call}
    _audit(session, incident, who, "arrest_confirmed" if arrest else "not_arrest", after, None, before)
    return call


def confirm_answer(
    session: Session, incident_id: str, actor: Principal | None, what: str, value: str | None
) -> LiveCall:
    """Confirm the address or call-back number read from the caller (or correct it): it becomes the incident's
    location or caller."""
    who = authorize(actor, "override")
    if what not in CONFIRMABLE:
        raise InvalidActionError(f"confirm one of: {', '.join(CONFIRMABLE)}")
    incident, call = _live(session, incident_id)
    read = call.address if what == "address" else call.callback_number
    confirmed = (value or "").strip() or read
    if not confirmed:
        raise InvalidActionError(f"no {what.replace('_', ' ')} was read from the call; give the value")
    if what == "address":
        call.address, call.address_confirmed_by, incident.location = confirmed[:1024], who.name, confirmed[:1024]
    else:
        call.callback_number, call.callback_confirmed_by, incident.caller = confirmed[:32], who.name, confirmed[:255]
    _audit(session, incident, who, f"{what}_confirmed", {what: confirmed, "read": read}, None)
    return call


def _audit(
    session: Session,
    incident: Incident,
    actor: Principal,
    action: str,
    after: dict[str, Any],
    reason: str | None,
    before: dict[str, Any] | None = None,
) -> None:
    session.add(
        IncidentEvent(
            incident_id=incident.id,
            actor=actor.name,
            action=action,
            before=before or {},
            after=after,
            reason=(reason or "").strip() or None,
        )
    )
