"""Reading an incident into its read model (`app.incidents.read_model`): its rows once, each part built from them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.db.models import Guidance, Incident, IncidentEvent, LiveCall, Outcome, Unit, UnitAssignment, User
from app.guidance.cards import CardLibrary
from app.guidance.checker import GuidanceCheck
from app.guidance.incident_card import card_brief, card_view
from app.incidents.ownership import state_token
from app.incidents.queries import classification_view, latest_classification, review_pending
from app.incidents.read_model import (
    AssignedUnit,
    CallFact,
    ClassificationView,
    EventView,
    FloorIntervals,
    GuidanceView,
    HistoryPage,
    IncidentDetail,
    IncidentLink,
    IncidentSummary,
    LiveCallView,
    OutcomeView,
    ProtocolCardBrief,
    ProtocolCardView,
    Timings,
    TranscriptFacts,
    model_label,
)
from app.live.answers import posted_turns, read_address, read_callback_number
from app.live.views import live_view
from app.units.dispatching import assignments_of
from app.units.intervals import answered_at, floor_times
from app.units.statuses import BACK_IN_SERVICE

DEFAULT_HISTORY_LIMIT = 100
"""Events in one page of an incident's history (the newest)."""
MAX_HISTORY_LIMIT = 1000
USER_ID_FIELDS = ("claimed_by",)
"""Audit event fields that hold a user id: histories write the user's name."""


@dataclass(frozen=True, slots=True)
class HistoryWindow:
    """Which events a read carries: the newest `limit` (None: all) of those older than the event `before`."""

    limit: int | None = DEFAULT_HISTORY_LIMIT
    before: int | None = None


ALL_HISTORY = HistoryWindow(limit=None)
"""Every event (the EIDO export: a document is the whole record; the free-text limits bound its size)."""

PartLoader = Callable[[Session, Incident], object]
"""Reads one optional part of an incident (the field of `IncidentDetail` it fills is its key in `PART_LOADERS`)."""


def _classification(session: Session, incident: Incident) -> ClassificationView | None:
    view = classification_view(latest_classification(session, incident.id))
    return None if view is None else ClassificationView(**view)


def _guidance(session: Session, incident: Incident) -> GuidanceView | None:
    guidance = session.get(Guidance, incident.id)
    if guidance is None:
        return None
    check = None if guidance.check_failures is None else GuidanceCheck.from_stored(guidance.check_failures)
    return GuidanceView(
        text=guidance.text,
        tokens=guidance.tokens,
        model=guidance.model,
        prompt_version=guidance.prompt_version,
        check_passed=guidance.check_passed,
        check=None if check is None else check.summary(),
        label=model_label(guidance.model),
        updated_at=guidance.updated_at,
    )


def _outcome(session: Session, incident: Incident) -> OutcomeView | None:
    outcome = session.get(Outcome, incident.id)
    if outcome is None:
        return None
    return OutcomeView(
        tokens=outcome.tokens,
        evictions=outcome.evictions,
        deliveries=outcome.deliveries,
        engine=outcome.engine,
        model=outcome.model,
        error=outcome.error,
        label=model_label(outcome.model),
    )


def _timings(session: Session, incident: Incident) -> Timings:
    outcome = session.get(Outcome, incident.id)
    return Timings(
        received_at=incident.received_at,
        accepted_at=incident.accepted_at,
        classified_at=incident.classified_at,
        queued_at=incident.queued_at,
        queue_wait_s=outcome.queue_wait_s if outcome else None,
        ttft_s=outcome.ttft_s if outcome else None,
        total_s=outcome.total_s if outcome else None,
        finished_at=outcome.finished_at if outcome else None,
    )


def _protocol_card(_session: Session, incident: Incident) -> ProtocolCardView | None:
    card = card_view(incident)
    return None if card is None else ProtocolCardView(**card)


def _units(session: Session, incident: Incident) -> list[AssignedUnit]:
    assignments = assignments_of(session, [incident.id])[incident.id]
    units = {
        unit.name: unit
        for unit in session.scalars(select(Unit).where(Unit.name.in_({a.unit_name for a in assignments})))
    }
    return [assigned_unit(assignment, units[assignment.unit_name]) for assignment in assignments]


def assigned_unit(assignment: UnitAssignment, unit: Unit) -> AssignedUnit:
    """A unit on the incident: its status there (back in service once its assignment ended) and its times."""
    on_it = assignment.cleared_at is None and unit.incident_id == assignment.incident_id
    return AssignedUnit(
        name=unit.name,
        kind=unit.kind,
        station=unit.station,
        status=unit.status if on_it else BACK_IN_SERVICE,
        status_at=unit.status_at if on_it else assignment.cleared_at or unit.status_at,
        dispatched_at=assignment.dispatched_at,
        en_route_at=assignment.en_route_at,
        on_scene_at=assignment.on_scene_at,
        transporting_at=assignment.transporting_at,
        at_hospital_at=assignment.at_hospital_at,
        cleared_at=assignment.cleared_at,
    )


def _floor(session: Session, incident: Incident) -> FloorIntervals:
    times = floor_times(
        answered_at(incident.received_at, incident.accepted_at), assignments_of(session, [incident.id])[incident.id]
    )
    to_dispatch, to_en_route, to_scene = times.intervals()
    return FloorIntervals(
        answered_at=times.answered_at,
        dispatched_at=times.dispatched_at,
        en_route_at=times.en_route_at,
        on_scene_at=times.on_scene_at,
        answer_to_dispatch_s=to_dispatch,
        dispatch_to_en_route_s=to_en_route,
        en_route_to_on_scene_s=to_scene,
    )


def incident_link(session: Session, incident_id: str | None) -> IncidentLink | None:
    """Another incident as a link (None for none, or for an id no incident has)."""
    other = session.get(Incident, incident_id) if incident_id else None
    if other is None:
        return None
    return IncidentLink(
        id=other.id,
        status=other.status,
        esi_level=other.esi_level,
        chief_complaint=other.chief_complaint,
        location=other.location,
        accepted_at=other.accepted_at,
    )


def _possible_duplicate_of(session: Session, incident: Incident) -> IncidentLink | None:
    return incident_link(session, incident.possible_duplicate_of)


def _merged_into(session: Session, incident: Incident) -> IncidentLink | None:
    return incident_link(session, incident.merged_into)


def _disposition(session: Session, incident: Incident) -> str | None:
    if incident.status != "closed":
        return None
    after = session.scalar(
        select(IncidentEvent.after)
        .where(IncidentEvent.incident_id == incident.id, IncidentEvent.action.in_(("close", "merge")))
        .order_by(IncidentEvent.id.desc())
        .limit(1)
    )
    disposition = (after or {}).get("disposition")
    return None if disposition is None else str(disposition)


def _live(session: Session, incident: Incident) -> LiveCallView | None:
    view = live_view(session, incident.id)
    return None if view is None else LiveCallView.model_validate(view)


def _transcript_facts(session: Session, incident: Incident) -> TranscriptFacts | None:
    """A posted transcript's answers to the call-taker's address and number questions (a live call reads its own)."""
    if session.get(LiveCall, incident.id) is not None:
        return None
    spoken = posted_turns(incident.text)
    address, number = read_address(spoken), read_callback_number(spoken)
    if address is None and number is None:
        return None
    return TranscriptFacts(
        address=None if address is None else CallFact(value=address.value),
        callback_number=None if number is None else CallFact(value=number.value),
    )


PART_LOADERS: dict[str, PartLoader] = {
    "classification": _classification,
    "guidance": _guidance,
    "timings": _timings,
    "outcome": _outcome,
    "protocol_card": _protocol_card,
    "disposition": _disposition,
    "units": _units,
    "floor": _floor,
    "possible_duplicate_of": _possible_duplicate_of,
    "merged_into": _merged_into,
    "live": _live,
    "transcript_facts": _transcript_facts,
}
"""The detail's parts beyond the incident row, each read by its loader. A new part (a live call's transcript, say)
is a field of `IncidentDetail` and one entry here."""


def incident_summary(incident: Incident, library: CardLibrary | None = None) -> IncidentSummary:
    """The incident's head, as a list shows it."""
    card = card_brief(incident, library)
    return IncidentSummary(
        id=incident.id,
        source=incident.source,
        status=incident.status,
        esi_level=incident.esi_level,
        model_level=incident.model_level,
        override_level=incident.override_level,
        chief_complaint=incident.chief_complaint,
        guidance_state=incident.guidance_state,
        accepted_at=incident.accepted_at,
        language=incident.language,
        protocol_card=None if card is None else ProtocolCardBrief(**card),
        state=state_token(incident),
        dispatched_at=incident.dispatched_at,
    )


def read_incident(
    session: Session, incident_id: str, history: HistoryWindow = HistoryWindow()
) -> IncidentDetail | None:
    """The incident's read model, its history cut to `history`; None for an unknown incident."""
    incident = session.get(Incident, incident_id) if incident_id else None
    if incident is None:
        return None
    events, page = history_page(session, incident_id, history)
    user_ids = {incident.claimed_by} if incident.claimed_by else set()
    user_ids |= event_user_ids(events)
    names = user_names(session, user_ids)
    parts: dict[str, Any] = {name: load(session, incident) for name, load in PART_LOADERS.items()}
    head: dict[str, Any] = incident_summary(incident).model_dump(exclude={"protocol_card"})
    return IncidentDetail(
        **head,
        **parts,
        text=incident.text,
        caller=incident.caller,
        location=incident.location,
        call_id=incident.call_id,
        callback_number=incident.callback_number,
        patient_age_years=incident.patient_age_years,
        text_revision=incident.text_revision,
        events=events,
        history=page,
        claimed_by=names.get(incident.claimed_by) if incident.claimed_by else None,
        needs_review=incident.needs_review,
        review_reason=incident.review_reason,
        review_pending=review_pending(incident),
        user_names=names,
        actor_roles=actor_roles(session, {event.actor for event in events}),
    )


def history_page(session: Session, incident_id: str, window: HistoryWindow) -> tuple[list[EventView], HistoryPage]:
    """The newest events of the window, oldest first, and where the page sits in the whole history."""
    total = session.scalar(select(func.count()).where(IncidentEvent.incident_id == incident_id)) or 0
    query = select(IncidentEvent).where(IncidentEvent.incident_id == incident_id)
    if window.before is not None:
        query = query.where(IncidentEvent.id < window.before)
    if window.limit is None:
        rows: Sequence[IncidentEvent] = session.scalars(query.order_by(IncidentEvent.id)).all()
        older = False
    else:
        limit = max(1, min(window.limit, MAX_HISTORY_LIMIT))
        newest = session.scalars(query.order_by(IncidentEvent.id.desc()).limit(limit + 1)).all()
        older = len(newest) > limit
        rows = list(reversed(newest[:limit]))
    events = [event_of(row) for row in rows]
    return events, HistoryPage(total=total, older_than=events[0].id if older and events else None)


def event_of(event: IncidentEvent) -> EventView:
    return EventView(
        id=event.id,
        at=event.created_at,
        actor=event.actor,
        action=event.action,
        before=event.before,
        after=event.after,
        reason=event.reason,
    )


def event_user_ids(events: Sequence[EventView]) -> set[str]:
    """The user ids the events name (to look their names up in one query)."""
    return {
        str(change[key])
        for event in events
        for change in (event.before or {}, event.after or {})
        for key in USER_ID_FIELDS
        if change.get(key)
    }


def user_names(session: Session, user_ids: set[str]) -> dict[str, str]:
    """User id -> name, for the ids given (one query)."""
    if not user_ids:
        return {}
    return dict(session.execute(select(User.id, User.name).where(User.id.in_(user_ids))).all())


def actor_roles(session: Session, actors: set[str]) -> dict[str, str]:
    """Actor name -> role, for the actors that are users (one query)."""
    if not actors:
        return {}
    return dict(session.execute(select(User.name, User.role).where(User.name.in_(actors))).all())
