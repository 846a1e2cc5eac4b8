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
    another delivery: the first to finish stands) or it is gone."""
    with session_scope(database_url) as session:
        incident = session.get(Incident, incident_id)
        if incident is None or incident.guidance_state in FINAL_GUIDANCE_STATES:
            return False
        guidance = session.get(Guidance, incident_id)
        if guidance is None:
            guidance = Guidance(incident_id=incident_id, model=model, prompt_version=prompt_version)
            session.add(guidance)
        guidance.text = text
        guidance.tokens = tokens
        guidance.model = model
        guidance.prompt_version = prompt_version
        guidance.updated_at = utcnow()
    return True


def record_check(database_url: str, incident_id: str, check: GuidanceCheck) -> None:
    """The checker's verdict on the finished guidance; a refusal is also an audit event with its reasons (the
    dispatcher reads the protocol card alone)."""
    failures = [{"kind": failure.kind, "detail": failure.detail} for failure in check.failures]
    with session_scope(database_url) as session:
        guidance = session.get(Guidance, incident_id)
        if guidance is None:
            return
        guidance.check_passed = check.passed
        guidance.check_failures = failures
        if not check.passed:
            session.add(
                IncidentEvent(
                    incident_id=incident_id,
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


def record_finished(
    database_url: str, incident_id: str, item: HeapItem, served: Served, accepted_at: dt.datetime
) -> int | None:
    """The outcome of a finished incident, the incident done and its outbox entry closed, in one transaction.
    Returns the ESI level recorded, or None when the incident is gone or was closed (a closed call never gets an
    outcome with tokens)."""
    now = utcnow()
    with session_scope(database_url) as session:
        incident = session.get(Incident, incident_id)
        if incident is None or incident.guidance_state == GuidanceState.CANCELLED:
            return None
        total_s = (now - accepted_at).total_seconds()
        level = put_outcome(session, incident, item, served, total_s, now, replace=True)
        incident.guidance_state = GuidanceState.DONE.value
        close_outbox(session, incident_id, now)
    return level


def record_failed(
    database_url: str, incident_id: str, item: HeapItem, served: Served, accepted_at: dt.datetime
) -> bool:
    """The incident failed for good: its state, its outcome (unless one is recorded already) and its outbox entry
    closed, in one transaction. False when the incident is gone or was closed."""
    now = utcnow()
    with session_scope(database_url) as session:
        incident = session.get(Incident, incident_id)
        if incident is None or incident.guidance_state == GuidanceState.CANCELLED:
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
