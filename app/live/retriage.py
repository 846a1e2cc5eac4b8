"""A live call read again as its words arrive: the whole transcript so far (both tracks) is classified; the level
rises at once and never falls by itself (a lower reading is offered to the dispatcher); every level change is an
audit event quoting the words that caused it; the card follows a raised level; the address, the call-back number
and the T-CPR times are read into the call."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import (
    CallSegment,
    Classification,
    GuidanceState,
    Incident,
    IncidentEvent,
    IncidentStatus,
    LiveCall,
    Outbox,
    utcnow,
)
from app.db.session import session_scope
from app.guidance.cards import default_library
from app.guidance.cards.model import CardError
from app.guidance.incident_card import assign_from_triage, switch_on_reading
from app.incidents.complaint import complaint_from_evidence
from app.incidents.protocol_reading import store_reading
from app.live.answers import read_address, read_callback_number
from app.live.tcpr import CPR_CARD_PREFIX, arrest_rule_of, arrest_rules, first_compression
from app.live.transcript import final_segments, transcript_text
from triage_models.result import TriageResult

log = logging.getLogger(__name__)
ACTOR = "system:classifier"


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The call as the classification reads it."""

    text: str
    finals: int


@dataclass(slots=True)
class Change:
    """What a reading did, for the heap and the engines (after the commit)."""

    esi_level: int | None = None
    first: bool = False
    raised: bool = False
    requeue: bool = False
    """Its guidance was done for a lower level: it is written again."""
    events: list[str] = field(default_factory=list)


def snapshot(session: Session, incident_id: str) -> Snapshot | None:
    """The transcript to classify, None when there is nothing new (or the call is not live, or closed)."""
    call = session.get(LiveCall, incident_id)
    incident = session.get(Incident, incident_id)
    if call is None or incident is None or incident.status == IncidentStatus.CLOSED:
        return None
    segments = final_segments(session, incident_id)
    if not segments or (len(segments) == call.triaged_finals and incident.classified_at is not None):
        return None
    return Snapshot(transcript_text(segments), len(segments))


def quoted_words(result: TriageResult, level: int, segments: list[CallSegment]) -> list[str]:
    """The words that set this level: the red-flag rules' quotes at it; without any, the caller's last words."""
    words = [item.text for item in result.evidence if item.floor and not item.resolved and item.esi_level == level]
    if words:
        return list(dict.fromkeys(words))
    callers = [segment.text for segment in segments if segment.track == "caller"]
    return callers[-1:]


def _store_classification(session: Session, incident: Incident, result: TriageResult) -> None:
    """The call's one classification per model version, kept as the latest reading (the readings' history is in
    the audit events)."""
    row = session.scalar(
        select(Classification).where(
            Classification.incident_id == incident.id, Classification.model_version == result.model_version
        )
    )
    if row is None:
        row = Classification(incident_id=incident.id, model_version=result.model_version)
        session.add(row)
    row.esi_level = result.esi_level
    row.classifier_level = result.classifier_level
    row.decision_point = result.decision_point.value
    row.probabilities = {str(level): p for level, p in result.probabilities.items()}
    row.evidence = [item.to_json() for item in result.evidence]
    row.predicted_output_tokens = result.predicted_output_tokens
    row.backend = result.backend
    row.needs_review = result.needs_review
    row.review_reason = result.review_reason[:255]
    row.resources = [item.to_json() for item in result.resources]
    row.resource_count = result.resource_count
    row.language = result.language.code
    store_reading(row, result)
    row.created_at = utcnow()


def _event(session: Session, incident: Incident, action: str, before: dict[str, Any], after: dict[str, Any]) -> None:
    session.add(IncidentEvent(incident_id=incident.id, actor=ACTOR, action=action, before=before, after=after))


def _level(session: Session, incident: Incident, call: LiveCall, result: TriageResult, words: list[str]) -> Change:
    """The held level against the new reading: set the first time, raised at once, never lowered (offered)."""
    held, reading = incident.esi_level, result.esi_level
    incident.model_level = reading
    if held is None:
        incident.esi_level = incident.override_level or reading
        return Change(incident.esi_level, first=True)
    if reading < held:
        before = {"esi_level": held, "override_level": incident.override_level}
        incident.esi_level, incident.override_level = reading, None
        call.lower_level, call.lower_words = None, None
        _event(session, incident, "level_raised", before, {"esi_level": reading, "words": words})
        return Change(reading, raised=True, events=["level_raised"])
    if reading > held and (call.lower_level != reading or call.lower_words != words):
        call.lower_level, call.lower_words = reading, words
        _event(session, incident, "lower_reading_offered", {"esi_level": held}, {"esi_level": reading, "words": words})
        return Change(held, events=["lower_reading_offered"])
    if reading == held:
        call.lower_level, call.lower_words = None, None
    return Change(held)


def _card(session: Session, incident: Incident, result: TriageResult, change: Change) -> None:
    """The first card, or the one a raised level (or a more urgent rule) now picks, unless switched by hand."""
    before = incident.card_id
    if before is None:
        card = assign_from_triage(incident, result)
        if card is not None and not change.first:  # the first card, put on by words after the first reading
            _event(session, incident, "card_switched", {"card": None}, {"card": card.id, "language": card.language})
            change.events.append("card_switched")
    else:
        by_hand = session.scalar(
            select(IncidentEvent.id).where(
                IncidentEvent.incident_id == incident.id, IncidentEvent.action == "card_switch"
            )
        )
        card = switch_on_reading(incident, result, raised=change.raised, by_hand=by_hand is not None)
        if card is not None:
            _event(session, incident, "card_switched", {"card": before}, {"card": card.id, "language": card.language})
            change.events.append("card_switched")


def _answers(session: Session, incident: Incident, call: LiveCall, segments: list[CallSegment]) -> None:
    """The address and call-back number the caller gave, while the dispatcher has not confirmed them."""
    address = read_address(segments)
    if address is not None and call.address_confirmed_by is None and address.value != call.address:
        call.address, call.address_at = address.value[:1024], segments[address.index].spoken_at
        _event(session, incident, "address_read", {}, {"address": call.address, "said": address.said})
    number = read_callback_number(segments)
    if number is not None and call.callback_confirmed_by is None and number.value != call.callback_number:
        call.callback_number, call.callback_at = number.value, segments[number.index].spoken_at
        _event(session, incident, "callback_read", {}, {"callback_number": number.value, "said": number.said})


def _tcpr(session: Session, incident: Incident, call: LiveCall, result: TriageResult, last: CallSegment) -> None:
    """The product's recognition of an arrest (on the call's clock), the CPR card on screen, the first compression
    instruction in the call-taker's words."""
    try:
        rules = arrest_rules(default_library().cards.values())
    except CardError:
        rules = frozenset()
    rule = arrest_rule_of(result, incident.card_id, rules)
    if rule is not None and call.arrest_recognised_at is None:
        call.arrest_recognised_at, call.arrest_rule = last.spoken_at, rule
        _event(session, incident, "arrest_recognised", {}, {"rule": rule, "at": last.spoken_at.isoformat()})
    if incident.card_id is not None and incident.card_id.startswith(CPR_CARD_PREFIX) and call.card_on_screen_at is None:
        call.card_on_screen_at = utcnow()


def _guidance(session: Session, incident: Incident, change: Change) -> None:
    """A first reading queues the guidance; a raised one whose guidance was done has it written again."""
    if incident.guidance_state == GuidanceState.PENDING:
        incident.guidance_state, incident.queued_at = GuidanceState.QUEUED.value, utcnow()
    elif change.raised and incident.guidance_state == GuidanceState.DONE:
        incident.guidance_state, incident.queued_at = GuidanceState.QUEUED.value, utcnow()
        outbox = session.get(Outbox, incident.id)
        if outbox is not None:
            outbox.done_at = None
        change.requeue = True


def apply_reading(session: Session, incident_id: str, result: TriageResult, seen: Snapshot) -> Change | None:
    """Record a reading of the transcript `seen` (the caller commits); None when the call was closed meanwhile, or when
    a reading of more of it was recorded first (an urgent task and the one it jumped may read one call at once)."""
    incident = session.get(Incident, incident_id)
    call = session.get(LiveCall, incident_id)
    if incident is None or call is None or incident.status == IncidentStatus.CLOSED:
        return None
    if call.triaged_finals > seen.finals:
        return None
    segments = list(final_segments(session, incident_id))
    incident.text = seen.text
    call.triaged_finals = seen.finals
    _store_classification(session, incident, result)
    words = quoted_words(result, result.esi_level, segments)
    change = _level(session, incident, call, result, words)
    incident.predicted_output_tokens = result.predicted_output_tokens
    incident.needs_review, incident.review_reason = result.needs_review, result.review_reason[:255]
    incident.language = result.language.code
    evidence = [item.to_json() for item in result.evidence]
    incident.chief_complaint = complaint_from_evidence(seen.text, evidence)
    incident.classified_at = utcnow()
    _card(session, incident, result, change)
    if change.first:
        after: dict[str, Any] = {"esi_level": incident.esi_level, "model_version": result.model_version, "words": words}
        if incident.card_id is not None:
            after["card"] = {"id": incident.card_id, "language": incident.card_language}
        _event(session, incident, "classified", {"esi_level": None}, after)
    _answers(session, incident, call, segments)
    _tcpr(session, incident, call, result, segments[-1])
    first = first_compression(segments)
    if first is not None and call.first_compression_at is None:
        call.first_compression_at = first.spoken_at
    _guidance(session, incident, change)
    return change


def read_again(database_url: str, incident_id: str, classify: object) -> tuple[Change | None, Snapshot | None]:
    """Classify the call's transcript so far with `classify` (text -> TriageResult) and record it: the read and the
    write are two transactions, the classification between them holds none."""
    with session_scope(database_url) as session:
        seen = snapshot(session, incident_id)
    if seen is None:
        return None, None
    assert callable(classify)
    result: TriageResult = classify(seen.text)
    with session_scope(database_url) as session:
        change = apply_reading(session, incident_id, result, seen)
    if change is not None:
        log.info(
            "live_retriaged incident_id=%s finals=%d esi_level=%s reading=%d events=%s",
            incident_id,
            seen.finals,
            change.esi_level,
            result.esi_level,
            ",".join(change.events) or "-",
        )
    return change, seen
