"""The rows an engine worker writes for an incident it served: its guidance as it streams, then its outcome."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy.orm import Session

from app.db.models import (
    FINAL_GUIDANCE_STATES,
    Guidance,
    GuidanceState,
    Incident,
    IncidentEvent,
    Outbox,
    Outcome,
    utcnow,
)
from app.db.session import session_scope
from app.guidance.checker import GuidanceCheck
from app.guidance.prompt import GUIDANCE_PROMPT_VERSION
from scheduler.redis_heap import HeapItem


@dataclass(frozen=True, slots=True)
class Served:
    """How one serving of an incident went, as its outcome row records it."""

    engine: str
    model: str
    queue_wait_s: float
    ttft_s: float | None = None
    tokens: int = 0
    evictions: int = 0
    error: str | None = None


def current_level(incident: Incident, fallback: int) -> int:
    """The incident's ESI level as the database has it now (an override included), else `fallback`."""
    return incident.esi_level or fallback


def write_guidance(
    database_url: str,
    incident_id: str,
    text: str,
    tokens: int,
    model: str,
    prompt_version: str = GUIDANCE_PROMPT_VERSION,
) -> bool:
    """The guidance so far (the whole text, replacing what was written before), with the prompt that asked for it.
    False, and nothing written, when the incident's guidance is final (cancelled by closing it, or done or failed by
    another delivery: the first to finish stands) or it is gone. The incident's row is locked while it is written, so
    that a delivery finishing at the same moment is either before (and this writes nothing) or after."""
    with session_scope(database_url) as session:
        incident = open_incident(session, incident_id)
        if incident is None:
            return False
        put_guidance(session, incident_id, WrittenGuidance(text, tokens, model, prompt_version))
    return True


@dataclass(frozen=True, slots=True)
class WrittenGuidance:
    """The guidance text as one delivery wrote it, and (once finished) the checker's verdict on it."""

    text: str
    tokens: int
    model: str
    prompt_version: str = GUIDANCE_PROMPT_VERSION
    check: GuidanceCheck | None = None


def open_incident(session: Session, incident_id: str) -> Incident | None:
    """The incident, its row locked to the end of the transaction (PostgreSQL; SQLite has one writer anyway), or None
    when it is gone or its guidance is final."""
    incident = session.get(Incident, incident_id, with_for_update=True)
    if incident is None or incident.guidance_state in FINAL_GUIDANCE_STATES:
        return None
    return incident


def put_guidance(session: Session, incident_id: str, written: WrittenGuidance) -> Guidance:
    """The incident's one guidance row, added or overwritten with `written` (and its check, when it has one)."""
    guidance = session.get(Guidance, incident_id)
    if guidance is None:
        guidance = Guidance(incident_id=incident_id, model=written.model, prompt_version=written.prompt_version)
        session.add(guidance)
    guidance.text = written.text
    guidance.tokens = written.tokens
    guidance.model = written.model
    guidance.prompt_version = written.prompt_version
    guidance.updated_at = utcnow()
    if written.check is not None:
        put_check(session, guidance, written.check)
    return guidance


def put_check(session: Session, guidance: Guidance, check: GuidanceCheck) -> None:
    """The checker's verdict on the guidance; a refusal is also an audit event with its reasons (the dispatcher reads
    the protocol card alone)."""
    failures = [{"kind": failure.kind, "detail": failure.detail} for failure in check.failures]
    guidance.check_passed = check.passed
    guidance.check_failures = failures
    if not check.passed:
        session.add(
            IncidentEvent(
                incident_id=guidance.incident_id,
                actor="system:checker",
                action="guidance_check",
                before=None,
                after={"check": "refused", "failures": [failure["kind"] for failure in failures]},
                reason=check.summary(),
            )
        )


def put_outcome(
    session: Session,
    incident: Incident,
    item: HeapItem,
    served: Served,
    total_s: float,
    now: dt.datetime,
    *,
    replace: bool,
) -> int:
    """The incident's one outcome row: added, or (when `replace`) an earlier serving's row overwritten; an earlier
    row is otherwise kept. Returns the ESI level the outcome is recorded under."""
    level = current_level(incident, item.esi_level)
    outcome = session.get(Outcome, incident.id)
    if outcome is not None and not replace:
        return level
    if outcome is None:
        outcome = Outcome(incident_id=incident.id, deliveries=item.deliveries)
        session.add(outcome)
    outcome.esi_level = level
    outcome.queue_wait_s = served.queue_wait_s
    outcome.ttft_s = served.ttft_s
    outcome.total_s = total_s
    outcome.tokens = served.tokens
    outcome.evictions = served.evictions
    outcome.deliveries = max(outcome.deliveries or 1, item.deliveries)
    outcome.engine = served.engine
    outcome.model = served.model
    outcome.error = served.error
    outcome.finished_at = now
    return level


@dataclass(frozen=True, slots=True)
class RaisedMeanwhile:
    """A live call's words were read again while its guidance was written, and its level rose: the guidance it
    finished answers the words before them, so it is planned again at `esi_level` (queued, nothing recorded)."""

    esi_level: int


def raised_by_new_words(incident: Incident, served_level: int, served_text: str | None) -> bool:
    """Whether a reading of words the served prompt did not have raised the incident above the level it was served at
    (an override alone changes no words, and a lower or equal reading leaves the guidance standing)."""
    level = incident.esi_level
    return served_text is not None and incident.text != served_text and level is not None and level < served_level


def record_finished(
    database_url: str,
    incident_id: str,
    item: HeapItem,
    served: Served,
    accepted_at: dt.datetime,
    guidance: WrittenGuidance | None = None,
    served_text: str | None = None,
) -> int | RaisedMeanwhile | None:
    """The finished incident in one transaction, its row locked: its whole guidance and the checker's verdict (when
    given), its outcome, "done", and its outbox entry closed. Returns the ESI level recorded, or None when the incident
    is gone or its guidance already final: closed (a closed call never gets an outcome with tokens), or finished or
    failed by another delivery (the first to finish stands, so its guidance and its outcome always agree). Given the
    `served_text` its prompt was built from, a call raised by newer words (`raised_by_new_words`) is queued again
    instead, and `RaisedMeanwhile` says at which level: the replan notice may reach the worker only after the finish."""
    now = utcnow()
    with session_scope(database_url) as session:
        incident = open_incident(session, incident_id)
        if incident is None:
            return None
        if raised_by_new_words(incident, item.esi_level, served_text):
            assert incident.esi_level is not None
            incident.guidance_state = GuidanceState.QUEUED.value
            return RaisedMeanwhile(incident.esi_level)
        if guidance is not None:
            put_guidance(session, incident_id, guidance)
        total_s = (now - accepted_at).total_seconds()
        level = put_outcome(session, incident, item, served, total_s, now, replace=True)
        incident.guidance_state = GuidanceState.DONE.value
        close_outbox(session, incident_id, now)
    return level


def record_failed(
    database_url: str, incident_id: str, item: HeapItem, served: Served, accepted_at: dt.datetime
) -> bool:
    """The incident failed for good: its state, its outcome (unless one is recorded already) and its outbox entry
    closed, in one transaction, its row locked. False when the incident is gone or its guidance already final (closed,
    or finished by another delivery, whose guidance stands)."""
    now = utcnow()
    with session_scope(database_url) as session:
        incident = open_incident(session, incident_id)
        if incident is None:
            return False
        incident.guidance_state = GuidanceState.FAILED.value
        put_outcome(session, incident, item, served, (now - accepted_at).total_seconds(), now, replace=False)
        close_outbox(session, incident_id, now)
    return True


def when_accepted(database_url: str, incident_id: str) -> dt.datetime:
    """When intake accepted the incident (now, when it is gone)."""
    with session_scope(database_url) as session:
        incident = session.get(Incident, incident_id)
        return incident.accepted_at if incident is not None else utcnow()


def close_outbox(session: Session, incident_id: str, now: dt.datetime) -> None:
    """The incident's outbox entry done: the reconciler stops handing it over."""
    outbox = session.get(Outbox, incident_id)
    if outbox is not None:
        outbox.done_at = now
