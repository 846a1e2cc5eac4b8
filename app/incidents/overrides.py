"""Acuity overrides and closed incidents: recorded in the database with their audit event, then applied to the heap and
the engines."""

from __future__ import annotations

import logging

import redis.exceptions
from sqlalchemy.orm import Session

from app.db.models import Incident, IncidentEvent
from app.redis.queueing import publish_closed, publish_override, redis_client, settings_heap
from app.settings import Settings

log = logging.getLogger(__name__)


def record_override(session: Session, incident: Incident, esi_level: int, reason: str, actor: str) -> None:
    """Record an override on the incident, with its audit event (before and after); the caller commits."""
    before = {"esi_level": incident.esi_level, "override_level": incident.override_level}
    incident.override_level = esi_level
    incident.esi_level = esi_level
    session.add(
        IncidentEvent(
            incident_id=incident.id,
            actor=actor,
            action="override",
            before=before,
            after={"esi_level": esi_level, "override_level": esi_level},
            reason=reason,
        )
    )


def propagate_override(settings: Settings, incident_id: str, esi_level: int) -> str:
    """After the commit: re-key the incident in the heap and tell the engine workers; where it was, or "unknown"
    while Redis does not answer (the reconciler re-keys a level that drifted from the database within a pass, and
    tells the engines then)."""
    if settings.redis_url is None:
        return "not queued"
    try:
        where = settings_heap(settings).override(incident_id, esi_level)
        publish_override(redis_client(settings.redis_url), settings.queue_prefix, incident_id, esi_level)
    except redis.exceptions.RedisError as error:
        log.warning("override incident_id=%s esi_level=%d not propagated: %s", incident_id, esi_level, error)
        return "unknown"
    return where


def propagate_close(settings: Settings, incident_id: str) -> str:
    """After the commit of a close: take the incident out of the heap (waiting or leased) and tell the engine workers
    (the one serving it aborts its request); "removed", "absent" (not in the heap) or "unknown" (Redis away)."""
    if settings.redis_url is None:
        return "absent"
    try:
        removed = settings_heap(settings).remove(incident_id)
        publish_closed(redis_client(settings.redis_url), settings.queue_prefix, incident_id)
    except redis.exceptions.RedisError as error:  # the reconciler's `drop_closed` takes it out once Redis is back
        log.warning("incident_closed incident_id=%s not propagated: %s", incident_id, error)
        return "unknown"
    return "removed" if removed else "absent"
