"""What the console reads and does, on the database: the queue, one incident, actions with role checks, audit.

Every action checks the caller's role here, on the server, from the signed-in session's principal, and writes an
audit event with the state before and after.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.auth import Principal
from app.db.models import (
    Incident,
    IncidentEvent,
    IncidentStatus,
    Role,
    User,
    utcnow,
)
from app.incidents import (
    URGENCY_ORDER,
    classification_view,
    event_view,
    incident_events,
    latest_classification,
    review_pending,
)

DISPATCH_ROLES = (Role.DISPATCHER, Role.SUPERVISOR)
DISPOSITIONS = ("transported", "treated on scene", "no patient found", "refused care", "duplicate call", "other")


class ForbiddenError(PermissionError):
    """The signed-in user's role may not do this."""


class ActionError(ValueError):
    """The action cannot be done as asked (with the reason)."""


def require(principal: Principal | None, roles: tuple[Role, ...], what: str) -> Principal:
    if principal is None:
        raise ForbiddenError("not signed in")
    if principal.role not in roles:
        raise ForbiddenError(f"a {principal.role.value} may not {what}")
    return principal


@dataclass(frozen=True, slots=True)
class QueueRow:
    incident_id: str
    esi_level: int | None
    overridden: bool
    chief_complaint: str
    status: str
    claimed_by: str | None
    guidance_state: str
    waited_s: float
    review_pending: bool = False
    """The classification asked for a person's look and no dispatcher has set the level yet."""
    review_reason: str = ""


def open_queue(session: Session, now: dt.datetime | None = None, limit: int = 1000) -> list[QueueRow]:
    """Open incidents, most urgent effective ESI first (unclassified last), then by arrival."""
    now = now or utcnow()
    rows = session.execute(
        select(Incident, User.name)
        .outerjoin(User, User.id == Incident.claimed_by)
        .where(Incident.status != IncidentStatus.CLOSED.value)
        .order_by(*URGENCY_ORDER)
        .limit(limit)
    ).all()
    return [
        QueueRow(
            incident_id=incident.id,
            esi_level=incident.esi_level,
            overridden=incident.override_level is not None,
            chief_complaint=incident.chief_complaint or "",
            status=incident.status,
            claimed_by=claimer,
            guidance_state=incident.guidance_state,
            waited_s=max(0.0, (now - incident.accepted_at).total_seconds()),
            review_pending=review_pending(incident),
            review_reason=incident.review_reason,
        )
        for incident, claimer in rows
    ]


def incident_detail(session: Session, incident_id: str) -> dict[str, Any] | None:
    incident = session.get(Incident, incident_id)
    if incident is None:
        return None
    return {
        "id": incident.id,
        "text": incident.text,
        "caller": incident.caller,
        "location": incident.location,
        "esi_level": incident.esi_level,
        "model_level": incident.model_level,
        "override_level": incident.override_level,
        "status": incident.status,
        "guidance_state": incident.guidance_state,
        "accepted_at": incident.accepted_at,
        "review_pending": review_pending(incident),
        "classification": classification_view(latest_classification(session, incident_id)),
        "guidance": incident.guidance.text if incident.guidance is not None else "",
        "events": [event_view(event) for event in incident_events(session, incident_id)],
    }


def _event(
    session: Session,
    incident: Incident,
    principal: Principal,
    action: str,
    before: dict[str, Any],
    after: dict[str, Any],
    reason: str | None = None,
) -> None:
    session.add(
        IncidentEvent(
            incident_id=incident.id, actor=principal.name, action=action, before=before, after=after, reason=reason
        )
    )


def _incident(session: Session, incident_id: str) -> Incident:
    incident = session.get(Incident, incident_id) if incident_id else None
    if incident is None:
        raise ActionError("choose an incident first")
    return incident


def claim(session: Session, principal: Principal | None, incident_id: str) -> None:
    who = require(principal, DISPATCH_ROLES, "claim incidents")
    incident = _incident(session, incident_id)
    if incident.status == IncidentStatus.CLOSED:
        raise ActionError("the incident is closed")
    user = session.scalar(select(User).where(User.name == who.name))
    assert user is not None
    before = {"status": incident.status, "claimed_by": incident.claimed_by}
    incident.claimed_by = user.id
    if incident.status == IncidentStatus.NEW:
        incident.status = IncidentStatus.CLAIMED.value
    _event(session, incident, who, "claim", before, {"status": incident.status, "claimed_by": user.id})


def override_checked(
    session: Session, principal: Principal | None, incident_id: str, esi_level: int, reason: str
) -> Incident:
    """Check an override (role, level, reason); the caller records it, commits and propagates it."""
    require(principal, DISPATCH_ROLES, "override the acuity")
    if esi_level not in (1, 2, 3, 4, 5):
        raise ActionError("choose an ESI level 1-5")
    if not reason.strip():
        raise ActionError("an override needs a reason")
    incident = _incident(session, incident_id)
    if incident.status == IncidentStatus.CLOSED:
        raise ActionError("the incident is closed")
    return incident


def mark_dispatched(session: Session, principal: Principal | None, incident_id: str) -> None:
    who = require(principal, DISPATCH_ROLES, "mark incidents dispatched")
    incident = _incident(session, incident_id)
    if incident.status == IncidentStatus.CLOSED:
        raise ActionError("the incident is closed")
    before = {"status": incident.status}
    incident.status = IncidentStatus.DISPATCHED.value
    _event(session, incident, who, "dispatch", before, {"status": incident.status})


def close(session: Session, principal: Principal | None, incident_id: str, disposition: str) -> None:
    who = require(principal, DISPATCH_ROLES, "close incidents")
    if disposition not in DISPOSITIONS:
        raise ActionError(f"choose a disposition: {', '.join(DISPOSITIONS)}")
    incident = _incident(session, incident_id)
    if incident.status == IncidentStatus.CLOSED:
        raise ActionError("the incident is already closed")
    before = {"status": incident.status}
    incident.status = IncidentStatus.CLOSED.value
    _event(session, incident, who, "close", before, {"status": incident.status, "disposition": disposition})


def add_note(session: Session, principal: Principal | None, incident_id: str, note: str) -> None:
    who = require(principal, (Role.CALL_TAKER, *DISPATCH_ROLES), "add notes")
    if not note.strip():
        raise ActionError("the note is empty")
    incident = _incident(session, incident_id)
    _event(session, incident, who, "note", {}, {}, note.strip())


def audit_events(
    session: Session,
    principal: Principal | None,
    incident_id: str = "",
    actor: str = "",
    action: str = "",
    since: dt.datetime | None = None,
    until: dt.datetime | None = None,
    limit: int = 5000,
) -> list[dict[str, Any]]:
    """Every event matching the filters, newest first (supervisors only)."""
    require(principal, (Role.SUPERVISOR,), "read the audit log")
    query = select(IncidentEvent).order_by(IncidentEvent.id.desc())
    if incident_id:
        query = query.where(IncidentEvent.incident_id == incident_id)
    if actor:
        query = query.where(IncidentEvent.actor == actor)
    if action:
        query = query.where(IncidentEvent.action == action)
    if since is not None:
        query = query.where(IncidentEvent.created_at >= since)
    if until is not None:
        query = query.where(IncidentEvent.created_at <= until)
    return [
        {
            "at": event.created_at.isoformat(timespec="seconds"),
            "incident": event.incident_id or "",
            "actor": event.actor,
            "action": event.action,
            "before": event.before or {},
            "after": event.after or {},
            "reason": event.reason or "",
        }
        for event in session.scalars(query.limit(limit))
    ]


def events_csv(events: list[dict[str, Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=["at", "incident", "actor", "action", "before", "after", "reason"])
    writer.writeheader()
    for event in events:
        row = {**event, "before": _compact(event["before"]), "after": _compact(event["after"])}
        writer.writerow({key: _cell(str(value)) for key, value in row.items()})
    return buffer.getvalue()


def _compact(value: dict[str, Any]) -> str:
    return "; ".join(f"{key}={item}" for key, item in value.items())


def _cell(text: str) -> str:
    """A CSV cell a spreadsheet will not run as a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
