"""Reading incidents, shared by the API and the console: urgency order, latest classification, history."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import Classification, Incident, IncidentEvent

URGENCY_ORDER = (Incident.esi_level.is_(None), Incident.esi_level, Incident.accepted_at)
"""Most urgent effective ESI first, unclassified last, then by arrival."""


def latest_classification(session: Session, incident_id: str) -> Classification | None:
    return session.scalars(
        select(Classification).where(Classification.incident_id == incident_id).order_by(Classification.id.desc())
    ).first()


def incident_events(session: Session, incident_id: str) -> Sequence[IncidentEvent]:
    return session.scalars(
        select(IncidentEvent).where(IncidentEvent.incident_id == incident_id).order_by(IncidentEvent.id)
    ).all()


def classification_view(classification: Classification | None) -> dict[str, Any] | None:
    if classification is None:
        return None
    return {
        "esi_level": classification.esi_level,
        "classifier_level": classification.classifier_level,
        "decision_point": classification.decision_point,
        "probabilities": classification.probabilities,
        "evidence": classification.evidence,
        "predicted_output_tokens": classification.predicted_output_tokens,
        "model_version": classification.model_version,
        "needs_review": classification.needs_review,
        "review_reason": classification.review_reason,
        "resources": classification.resources,
        "resource_count": classification.resource_count,
        "language": classification.language,
        "protocol": classification.protocol,
        "key_questions": classification.key_questions,
        "non_medical": classification.non_medical,
    }


def review_pending(incident: Incident) -> bool:
    """The classification asked for a person's look and no dispatcher has set the level yet (an override, even to
    the same level, resolves the review)."""
    return incident.needs_review and incident.override_level is None


def event_view(event: IncidentEvent) -> dict[str, Any]:
    """One audit event (`at` stays a datetime)."""
    return {
        "at": event.created_at,
        "actor": event.actor,
        "action": event.action,
        "before": event.before,
        "after": event.after,
        "reason": event.reason,
    }
