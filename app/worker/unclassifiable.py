"""Messages the classifier can never classify: closed for good and flagged for a person, never retried."""

from __future__ import annotations

import logging

from app.db.models import GuidanceState, Incident, IncidentEvent, utcnow
from app.db.session import session_scope
from app.engine_worker.outcomes import close_outbox

log = logging.getLogger(__name__)

UNCLASSIFIABLE_ACTION = "unclassifiable"
"""The audit event's action when `classify` gives an incident up."""


def close_unclassifiable(database_url: str, incident_id: str, reason: str) -> bool:
    """Give up on an incident whose message the classifier refuses (the same refusal every time): its guidance
    failed, a person asked to look, its outbox entry done (the reconciler stops handing it over), the reason
    audited, in one transaction. False when the incident is gone."""
    now = utcnow()
    with session_scope(database_url) as session:
        incident = session.get(Incident, incident_id)
        if incident is None:
            return False
        before: dict[str, object] = {"guidance_state": incident.guidance_state}
        incident.guidance_state = GuidanceState.FAILED.value
        incident.needs_review = True
        incident.review_reason = f"cannot classify: {reason}"[:255]
        close_outbox(session, incident_id, now)
        session.add(
            IncidentEvent(
                incident_id=incident_id,
                actor="system:classifier",
                action=UNCLASSIFIABLE_ACTION,
                before=before,
                after={"guidance_state": incident.guidance_state, "needs_review": True},
                reason=reason,
                created_at=now,
            )
        )
    log.warning("classify: incident_id=%s unclassifiable, closed for review: %s", incident_id, reason)
    return True
