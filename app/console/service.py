"""What the console reads and does, on the database: the queue, one incident, actions with role checks, audit.

Every action is `app.incidents.actions` (the rules and the audit events, shared with the API), called with the
signed-in session's principal; the console only words an unknown incident its own way.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from app.auth.accounts import Principal
from app.db.models import Guidance, Incident, IncidentEvent, IncidentStatus, Role, User, utcnow
from app.engine_worker.builtin_models import is_test_model
from app.guidance.incident_card import card_label
from app.incidents import actions as actions
from app.incidents.actions import DISPATCH_ROLES as DISPATCH_ROLES
from app.incidents.actions import DISPOSITIONS as DISPOSITIONS
from app.incidents.actions import ActionError as ActionError
from app.incidents.actions import ForbiddenError as ForbiddenError
from app.incidents.actions import IncidentNotFoundError
from app.incidents.actions import require as require
from app.incidents.pipeline import store_message
from app.incidents.queries import URGENCY_ORDER, review_pending
from app.incidents.read_model import IncidentDetail
from app.incidents.read_model import template_kind as template_kind
from app.incidents.reading import HistoryWindow, read_incident
from app.incidents.reading import user_names as user_names
from app.intake.schemas import IntakeMessage, refusals

CONSOLE_HISTORY = HistoryWindow(limit=50)
"""The incident's history as the console first shows it: the newest 50 events ("Show older" pages back)."""


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
    template: str = ""
    """The template kind when its guidance is a template (overload shedding), else empty."""
    accepted_s: float = 0.0
    """When intake accepted it (epoch seconds): the page's wait clock counts from it."""
    language: str = ""
    """The call's language as triage read it (empty until classified)."""
    card: str = ""
    """The protocol card's short name ("CPR adult"), empty when no card applies."""
    location: str = ""
    source: str = ""
    """The intake source that sent it ("cad", "console", ...)."""
    test_model: bool = False
    """Its guidance is a test model's (never real)."""


def open_queue(session: Session, now: dt.datetime | None = None, limit: int = 1000) -> list[QueueRow]:
    """Open incidents, most urgent effective ESI first (unclassified last), then by arrival."""
    now = now or utcnow()
    rows = session.execute(
        select(Incident, User.name, Guidance.model)
        .outerjoin(User, User.id == Incident.claimed_by)
        .outerjoin(Guidance, Guidance.incident_id == Incident.id)
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
            template=template_kind(guidance_model),
            accepted_s=incident.accepted_at.timestamp(),
            language=incident.language or "",
            card=card_label(incident.card_id) if incident.card_id else "",
            location=incident.location or "",
            source=incident.source,
            test_model=is_test_model(guidance_model),
        )
        for incident, claimer, guidance_model in rows
    ]


def queue_place(session: Session, incident_id: str) -> tuple[int, int] | None:
    """A classified open incident's (ESI level, place in the queue from 1) in `open_queue`'s order; None while it
    is not classified (or closed)."""
    incident = session.get(Incident, incident_id)
    if incident is None or incident.esi_level is None or incident.status == IncidentStatus.CLOSED:
        return None
    ahead = session.scalar(
        select(func.count())
        .select_from(Incident)
        .where(
            Incident.status != IncidentStatus.CLOSED.value,
            Incident.esi_level.is_not(None),
            or_(
                Incident.esi_level < incident.esi_level,
                and_(Incident.esi_level == incident.esi_level, Incident.accepted_at < incident.accepted_at),
            ),
        )
    )
    return incident.esi_level, int(ahead or 0) + 1


def ordinal(number: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def incident_detail(
    session: Session, incident_id: str, history: HistoryWindow = CONSOLE_HISTORY
) -> IncidentDetail | None:
    """The incident's read model as the console shows it (the newest page of its history)."""
    return read_incident(session, incident_id, history)


@contextmanager
def _console_messages() -> Iterator[None]:
    """The console's wording for an unknown incident (the other refusals read as the actions word them)."""
    try:
        yield
    except IncidentNotFoundError:
        raise ActionError("choose an incident first") from None


def new_message(session: Session, principal: Principal | None, text: str, caller: str, location: str) -> str:
    """Store a message typed in the console, checked as intake checks one (the same refusals); its incident id."""
    require(principal, (Role.CALL_TAKER, *DISPATCH_ROLES), "enter calls")
    try:
        message = IntakeMessage(text=text, caller=caller or None, location=location or None)
    except ValidationError as error:
        raise ActionError("; ".join(f"{field}: {reason}" for field, reason in refusals(error))) from None
    assert principal is not None  # `require` refused anyone else
    incident_id, _ = store_message(session, "console", f"console-{uuid.uuid4()}", message, actor=principal.name)
    return incident_id


def claim(session: Session, principal: Principal | None, incident_id: str) -> None:
    with _console_messages():
        actions.claim(session, incident_id, principal)


def override_checked(
    session: Session, principal: Principal | None, incident_id: str, esi_level: int, reason: str
) -> Incident:
    """Check an override (role, level, reason, state); the caller records it, commits and propagates it."""
    with _console_messages():
        return actions.check_override(session, incident_id, principal, esi_level, reason)


def override(session: Session, principal: Principal | None, incident_id: str, esi_level: object, reason: str) -> None:
    """Record an override; the caller commits, then calls `propagate_override`."""
    with _console_messages():
        actions.override(session, incident_id, principal, esi_level, reason)


def switch_card(session: Session, principal: Principal | None, incident_id: str, card_id: str, reason: str) -> None:
    with _console_messages():
        actions.switch_card(session, incident_id, principal, card_id, reason)


def mark_card_step(session: Session, principal: Principal | None, incident_id: str, step: int, done: bool) -> None:
    with _console_messages():
        actions.mark_card_step(session, incident_id, principal, step, done)


def mark_dispatched(session: Session, principal: Principal | None, incident_id: str) -> None:
    with _console_messages():
        actions.dispatch(session, incident_id, principal)


def close(session: Session, principal: Principal | None, incident_id: str, disposition: str) -> None:
    with _console_messages():
        actions.close(session, incident_id, principal, disposition)


def add_note(session: Session, principal: Principal | None, incident_id: str, note: str) -> None:
    with _console_messages():
        actions.add_note(session, incident_id, principal, note)


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
    """Every event matching the filters, newest first (supervisors only); `incident_id` may be a short id (the
    first characters of the UUID, as the audit table shows it)."""
    require(principal, (Role.SUPERVISOR,), "read the audit log")
    query = select(IncidentEvent).order_by(IncidentEvent.id.desc())
    if incident_id:
        query = query.where(IncidentEvent.incident_id.startswith(incident_id, autoescape=True))
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
