"""Correcting a call (its text, address and call-back number, with a reason; a new text is triaged again through the
classify path) and merging a possible duplicate into the call it repeats."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.auth.accounts import Principal
from app.db.models import FINAL_GUIDANCE_STATES, GuidanceState, Incident, IncidentStatus, UnitAssignment, utcnow
from app.engine_worker.outcomes import close_outbox
from app.incidents.actions import audit_event, authorize, held_open_incident
from app.incidents.duplicates import callback_key, flag_possible_duplicate
from app.incidents.errors import ConflictError, InvalidActionError
from app.incidents.text_limits import DEFAULT_LIMITS, FreeTextLimits, bounded
from app.intake.schemas import IntakeMessage, refusals
from app.settings import Settings

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Correction:
    """What a correction gives: the corrected fields, as the dispatcher typed them (empty: unchanged)."""

    text: str = ""
    location: str = ""
    callback_number: str = ""


@dataclass(frozen=True, slots=True)
class Corrected:
    incident: Incident
    level_before: int | None
    retriaged: bool
    """The text changed and triage read it again."""


def correct(
    settings: Settings,
    session: Session,
    incident_id: str,
    actor: Principal | None,
    correction: Correction,
    reason: str,
    expected_state: str | None = None,
    limits: FreeTextLimits = DEFAULT_LIMITS,
) -> Corrected:
    """Correct the call's text, address and call-back number (those given), with a reason; audited with each field
    before and after. A new text is a new text revision, classified at once by the classify path's own functions
    (its level, complaint and review flag follow; a dispatcher's override still wins); a new address or number is
    checked for duplicates again. After the commit, `propagate_level` re-keys a changed level in the heap."""
    who = authorize(actor, "correct")
    why = bounded(reason, limits.reason_chars, "the correction reason")
    if not why:
        raise InvalidActionError("a correction needs a reason")
    incident, _ = held_open_incident(session, incident_id, who, expected_state, "correct a call")
    changes = _changes(incident, correction)
    if not changes:
        raise InvalidActionError("nothing to correct: type the corrected text, address or call-back number")
    before = {field: getattr(incident, field) for field in changes}
    for field, value in changes.items():
        setattr(incident, field, value)
    level_before = incident.esi_level
    if "text" in changes:
        incident.text_revision += 1
        _retriage(settings, session, incident)
    if "location" in changes or "callback_number" in changes:
        flag_possible_duplicate(session, incident, who.name)
    audit_event(session, incident, who, "correct", before, dict(changes), why)
    log.info("incident_corrected incident_id=%s fields=%s actor=%s", incident.id, ",".join(changes), who.name)
    return Corrected(incident, level_before, "text" in changes)


def _changes(incident: Incident, correction: Correction) -> dict[str, Any]:
    """The fields that differ from the incident's, checked as intake checks a call (the same refusals)."""
    text, location = correction.text.strip(), correction.location.strip()
    try:
        checked = IntakeMessage(text=text or incident.text, location=location or incident.location)
    except ValidationError as error:
        raise InvalidActionError("; ".join(f"{field}: {why}" for field, why in refusals(error))) from None
    changes: dict[str, Any] = {}
    if text and checked.text != incident.text:
        changes["text"] = checked.text
    if location and checked.location != incident.location:
        changes["location"] = checked.location
    number = correction.callback_number.strip()
    if number:
        if callback_key(number) is None or len(number) > 32:
            raise InvalidActionError("a call-back number has at least 7 digits (32 characters at most)")
        if number != incident.callback_number:
            changes["callback_number"] = number
    return changes


def _retriage(settings: Settings, session: Session, incident: Incident) -> None:
    """Classify the corrected text now, as `classify_incident` does (the same triager and record)."""
    from app.incidents.pipeline import _record_classification, triage_text, triager_for

    triager = triager_for(str(settings.model_dir) if settings.model_dir else None, settings)
    _record_classification(session, incident, triager.classify(triage_text(incident)))


def propagate_level(settings: Settings, corrected: Corrected) -> str:
    """After the commit: a level the correction changed re-keys the call in the heap and the engines (as an
    override does); "unchanged" otherwise."""
    from app.incidents.overrides import propagate_override

    incident = corrected.incident
    if incident.esi_level is None or incident.esi_level == corrected.level_before:
        return "unchanged"
    if incident.guidance_state in FINAL_GUIDANCE_STATES:
        return "unchanged"
    return propagate_override(settings, incident.id, incident.esi_level)


def merge(
    session: Session,
    incident_id: str,
    actor: Principal | None,
    reason: str,
    expected_state: str | None = None,
    limits: FreeTextLimits = DEFAULT_LIMITS,
) -> Incident:
    """Merge a possible duplicate into the open call it repeats: it is closed as a "duplicate call" linked to the
    other (its guidance cancelled), and both histories say so with the reason. After the commit,
    `propagate_close`."""
    who = authorize(actor, "merge")
    why = bounded(reason, limits.reason_chars, "the merge reason")
    if not why:
        raise InvalidActionError("a merge needs a reason")
    incident, _ = held_open_incident(session, incident_id, who, expected_state, "merge duplicate calls")
    target = session.get(Incident, incident.possible_duplicate_of) if incident.possible_duplicate_of else None
    if target is None:
        raise InvalidActionError("this call is not flagged as a possible duplicate")
    if target.status == IncidentStatus.CLOSED:
        raise ConflictError(f"the call it repeats ({target.id[:8]}) is closed: close this one instead")
    if _units_on_call(session, incident.id):
        raise ConflictError("units are on this call: put them back in service (or close it) instead of merging")
    before: dict[str, Any] = {"status": incident.status}
    after: dict[str, Any] = {"status": IncidentStatus.CLOSED.value, "disposition": "duplicate call"}
    after["merged_into"] = incident.merged_into = target.id
    incident.status = IncidentStatus.CLOSED.value
    if incident.guidance_state not in FINAL_GUIDANCE_STATES:
        before["guidance_state"] = incident.guidance_state
        incident.guidance_state = after["guidance_state"] = GuidanceState.CANCELLED.value
        close_outbox(session, incident.id, utcnow())
    audit_event(session, incident, who, "merge", before, after, why)
    audit_event(session, target, who, "merged", {}, {"merged": incident.id}, f"{why} (call: {incident.text})"[:4000])
    log.info("incident_merged incident_id=%s into=%s actor=%s", incident.id, target.id, who.name)
    return incident


def _units_on_call(session: Session, incident_id: str) -> bool:
    return (
        session.scalar(
            select(UnitAssignment.id)
            .where(UnitAssignment.incident_id == incident_id, UnitAssignment.cleared_at.is_(None))
            .limit(1)
        )
        is not None
    )
