"""What the console reads and does, on the database: the queue, one incident, actions with role checks, audit.

Every action is `app.incidents.actions` (the rules and the audit events, shared with the API), called with the
signed-in session's principal; the console only words an unknown incident its own way.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from sqlalchemy import and_, case, func, or_, select
from sqlalchemy.orm import Session

from app.auth.accounts import Principal
from app.db.models import (
    Guidance,
    Incident,
    IncidentEvent,
    IncidentStatus,
    LiveCall,
    Role,
    Unit,
    UnitAssignment,
    UnitStatus,
    User,
    utcnow,
)
from app.engine_worker.builtin_models import is_test_model
from app.guidance.incident_card import card_label
from app.incidents import actions as actions
from app.incidents import corrections
from app.incidents.actions import DISPATCH_ROLES as DISPATCH_ROLES
from app.incidents.actions import DISPOSITIONS as DISPOSITIONS
from app.incidents.actions import ActionError as ActionError
from app.incidents.actions import ForbiddenError as ForbiddenError
from app.incidents.actions import IncidentNotFoundError
from app.incidents.actions import require as require
from app.incidents.corrections import Corrected, Correction
from app.incidents.duplicates import callback_key
from app.incidents.pipeline import CallContact, store_message
from app.incidents.queries import URGENCY_ORDER
from app.incidents.read_model import IncidentDetail
from app.incidents.read_model import template_kind as template_kind
from app.incidents.reading import HistoryWindow, read_incident
from app.incidents.reading import user_names as user_names
from app.incidents.text_limits import DEFAULT_LIMITS, FreeTextLimits
from app.intake.schemas import IntakeMessage, refusals
from app.settings import Settings
from app.units.dispatching import change_unit_status

CONSOLE_HISTORY = HistoryWindow(limit=50)
"""The incident's history as the console first shows it: the newest 50 events ("Show older" pages back)."""


@dataclass(frozen=True, slots=True)
class UnitOnCall:
    """A unit on a queue row's call: its name, its status there and since when (epoch seconds)."""

    name: str
    status: str
    since_s: float


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
    """From arrival to now, or to its first dispatch once dispatched (the clock stops there)."""
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
    dispatched_s: float | None = None
    """When its first unit was dispatched (epoch seconds): its wait clock stopped there."""
    units: tuple[UnitOnCall, ...] = ()
    """Its units still on the call (not back in service), in dispatch order."""
    possible_duplicate_of: str = ""
    """An open incident this call may repeat (same address or call-back number within 30 minutes)."""
    live_utterances: int | None = None
    """A live call's final utterances so far (the row changes with each, so the open incident reloads); None for a
    call that is not live."""
    live_ended: bool = False


FLOOR_ORDER = (
    case(
        (Incident.status == IncidentStatus.NEW.value, 0), (Incident.status == IncidentStatus.CLAIMED.value, 1), else_=2
    ),
    *URGENCY_ORDER,
)
"""The queue's order: unclaimed calls first, then claimed ones, then dispatched ones; in each, most urgent level
first (unclassified last), then the longest wait."""


QUEUE_COLUMNS = (
    Incident.id,
    Incident.esi_level,
    Incident.override_level,
    Incident.chief_complaint,
    Incident.status,
    Incident.guidance_state,
    Incident.accepted_at,
    Incident.needs_review,
    Incident.review_reason,
    Incident.language,
    Incident.card_id,
    Incident.location,
    Incident.source,
    Incident.dispatched_at,
    Incident.possible_duplicate_of,
    User.name,
    Guidance.model,
    LiveCall.finals,
    LiveCall.ended_at.is_not(None).label("live_ended"),
)
"""What a queue row shows, read as plain columns (loading 1,000 whole incidents cost more than the query)."""


def open_queue(session: Session, now: dt.datetime | None = None, limit: int = 1000) -> list[QueueRow]:
    """Open incidents in `FLOOR_ORDER`, each with its units on the call."""
    now = now or utcnow()
    rows = session.execute(
        select(*QUEUE_COLUMNS)
        .outerjoin(User, User.id == Incident.claimed_by)
        .outerjoin(Guidance, Guidance.incident_id == Incident.id)
        .outerjoin(LiveCall, LiveCall.incident_id == Incident.id)
        .where(Incident.status != IncidentStatus.CLOSED.value)
        .order_by(*FLOOR_ORDER)
        .limit(limit)
    ).all()
    units = units_on_calls(session, [row.id for row in rows if row.dispatched_at is not None])
    return [queue_row(row, now, units.get(row.id, ())) for row in rows]


def queue_row(row: Any, now: dt.datetime, units: Sequence[UnitOnCall]) -> QueueRow:
    """One row of `QUEUE_COLUMNS` as the queue shows it."""
    stopped = row.dispatched_at or now
    return QueueRow(
        incident_id=row.id,
        esi_level=row.esi_level,
        overridden=row.override_level is not None,
        chief_complaint=row.chief_complaint or "",
        status=row.status,
        claimed_by=row.name,
        guidance_state=row.guidance_state,
        waited_s=max(0.0, (stopped - row.accepted_at).total_seconds()),
        review_pending=row.needs_review and row.override_level is None,
        review_reason=row.review_reason,
        template=template_kind(row.model),
        accepted_s=row.accepted_at.timestamp(),
        language=row.language or "",
        card=card_label(row.card_id) if row.card_id else "",
        location=row.location or "",
        source=row.source,
        test_model=is_test_model(row.model),
        dispatched_s=row.dispatched_at.timestamp() if row.dispatched_at is not None else None,
        units=tuple(units),
        possible_duplicate_of=row.possible_duplicate_of or "",
        live_utterances=row.finals,
        live_ended=bool(row.live_ended),
    )


def units_on_calls(session: Session, incident_ids: Sequence[str]) -> dict[str, list[UnitOnCall]]:
    """The units still on each of the incidents (one query), in dispatch order."""
    if not incident_ids:
        return {}
    found: dict[str, list[UnitOnCall]] = {}
    rows = session.execute(
        select(UnitAssignment.incident_id, Unit.name, Unit.status, Unit.status_at)
        .join(Unit, Unit.name == UnitAssignment.unit_name)
        .where(
            UnitAssignment.incident_id.in_(incident_ids),
            UnitAssignment.cleared_at.is_(None),
            Unit.incident_id == UnitAssignment.incident_id,
        )
        .order_by(UnitAssignment.id)
    )
    for incident_id, name, status, status_at in rows:
        found.setdefault(incident_id, []).append(UnitOnCall(name, status, status_at.timestamp()))
    return found


def queue_place(session: Session, incident_id: str) -> tuple[int, int] | None:
    """A classified unclaimed incident's (ESI level, place in the queue from 1) in `open_queue`'s order (among the
    unclaimed calls, which come first); None while it is not classified, or once claimed."""
    incident = session.get(Incident, incident_id)
    if incident is None or incident.esi_level is None or incident.status != IncidentStatus.NEW:
        return None
    ahead = session.scalar(
        select(func.count())
        .select_from(Incident)
        .where(
            Incident.status == IncidentStatus.NEW.value,
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


def new_message(
    session: Session,
    principal: Principal | None,
    text: str,
    caller: str,
    location: str,
    callback: str = "",
    age: object = None,
) -> str:
    """Store a message typed in the console, checked as intake checks one (the same refusals), with its call-back
    number and the patient's age when given; its incident id."""
    require(principal, (Role.CALL_TAKER, *DISPATCH_ROLES), "enter calls")
    try:
        message = IntakeMessage(text=text, caller=caller or None, location=location or None)
    except ValidationError as error:
        raise ActionError("; ".join(f"{field}: {reason}" for field, reason in refusals(error))) from None
    contact = CallContact(callback_number=checked_callback(callback), patient_age_years=checked_age(age))
    assert principal is not None  # `require` refused anyone else
    incident_id, _ = store_message(
        session, "console", f"console-{uuid.uuid4()}", message, entered_by=principal.name, contact=contact
    )
    return incident_id


def checked_callback(number: str) -> str | None:
    """A typed call-back number (None when left empty), if it has at least 7 digits."""
    number = (number or "").strip()
    if not number:
        return None
    if callback_key(number) is None or len(number) > 32:
        raise ActionError("call-back number: at least 7 digits, 32 characters at most")
    return number


def checked_age(age: object) -> int | None:
    """A typed age in years (None when left empty), if a whole number 0-130."""
    if age is None or age == "":
        return None
    if not isinstance(age, int | float) or isinstance(age, bool) or age != int(age) or not 0 <= age <= 130:
        raise ActionError("patient's age: a whole number of years, 0-130")
    return int(age)


def claim(
    session: Session,
    principal: Principal | None,
    incident_id: str,
    expected_state: str | None = None,
    take_over_reason: str | None = None,
    limits: FreeTextLimits = DEFAULT_LIMITS,
) -> None:
    with _console_messages():
        actions.claim(session, incident_id, principal, take_over_reason, expected_state, limits)


def override_checked(
    session: Session,
    principal: Principal | None,
    incident_id: str,
    esi_level: int,
    reason: str,
    expected_state: str | None = None,
) -> Incident:
    """Check an override (role, level, reason, state); the caller records it, commits and propagates it."""
    with _console_messages():
        return actions.check_override(session, incident_id, principal, esi_level, reason, expected_state)


def override(
    session: Session,
    principal: Principal | None,
    incident_id: str,
    esi_level: object,
    reason: str,
    expected_state: str | None = None,
    limits: FreeTextLimits = DEFAULT_LIMITS,
) -> None:
    """Record an override; the caller commits, then calls `propagate_override`."""
    with _console_messages():
        actions.override(session, incident_id, principal, esi_level, reason, expected_state, limits)


def switch_card(
    session: Session,
    principal: Principal | None,
    incident_id: str,
    card_id: str,
    reason: str,
    expected_state: str | None = None,
    limits: FreeTextLimits = DEFAULT_LIMITS,
) -> None:
    with _console_messages():
        actions.switch_card(
            session, incident_id, principal, card_id, reason, expected_state=expected_state, limits=limits
        )


def mark_card_step(
    session: Session,
    principal: Principal | None,
    incident_id: str,
    step: int,
    done: bool,
    expected_state: str | None = None,
) -> None:
    with _console_messages():
        actions.mark_card_step(session, incident_id, principal, step, done, expected_state=expected_state)


def dispatch(
    session: Session,
    principal: Principal | None,
    incident_id: str,
    units: Sequence[str],
    expected_state: str | None = None,
) -> None:
    with _console_messages():
        actions.dispatch(session, incident_id, principal, units, expected_state)


def close(
    session: Session,
    principal: Principal | None,
    incident_id: str,
    disposition: str,
    expected_state: str | None = None,
    no_unit_reason: str | None = None,
    limits: FreeTextLimits = DEFAULT_LIMITS,
) -> None:
    with _console_messages():
        actions.close(session, incident_id, principal, disposition, expected_state, no_unit_reason, limits)


def add_note(
    session: Session,
    principal: Principal | None,
    incident_id: str,
    note: str,
    limits: FreeTextLimits = DEFAULT_LIMITS,
) -> None:
    with _console_messages():
        actions.add_note(session, incident_id, principal, note, limits)


def correct(
    settings: Settings,
    session: Session,
    principal: Principal | None,
    incident_id: str,
    correction: Correction,
    reason: str,
    expected_state: str | None = None,
) -> Corrected:
    """Correct a call's text, address or call-back number (a new text is triaged again); after the commit,
    `propagate_level`."""
    with _console_messages():
        return corrections.correct(
            settings, session, incident_id, principal, correction, reason, expected_state, settings.free_text_limits
        )


def merge(
    session: Session,
    principal: Principal | None,
    incident_id: str,
    reason: str,
    expected_state: str | None = None,
    limits: FreeTextLimits = DEFAULT_LIMITS,
) -> None:
    """Merge a possible duplicate into the call it repeats; after the commit, `propagate_close`."""
    with _console_messages():
        corrections.merge(session, incident_id, principal, reason, expected_state, limits)


def set_unit_status(
    session: Session, principal: Principal | None, unit: str, status: str, expected: str | None = None
) -> None:
    """Move a unit on (dispatchers and supervisors), from the status the console showed."""
    who = actions.authorize(principal, "unit_status")
    change_unit_status(session, unit, status, who.name, expected)


def available_units(session: Session) -> list[tuple[str, str]]:
    """The units a dispatcher may send now, as (label, name): "M12 · ambulance · Station 3"."""
    available = session.execute(
        select(Unit.name, Unit.kind, Unit.station).where(Unit.status == UnitStatus.AVAILABLE.value).order_by(Unit.name)
    ).all()
    return [(" · ".join(part for part in (name, kind, station) if part), name) for name, kind, station in available]


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
    if actor:  # what the user did, and the calls they typed (received from the console source, `entered_by` them)
        query = query.where(or_(IncidentEvent.actor == actor, IncidentEvent.after["entered_by"].as_string() == actor))
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
