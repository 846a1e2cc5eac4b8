"""The reconciler's pass over live calls: a stream that never said it stopped is ended as "stream ended" once it
has been silent for `live_stream_timeout_s` (its partials kept as final), and a call with final words no reading has
read, and no re-triage task under way, is handed to triage again (its hand-over lost with Redis or the broker)."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from typing import Any

from sqlalchemy import select

from app.db.models import Incident, IncidentStatus, LiveCall, utcnow
from app.db.session import session_scope
from app.live.handover import request_retriage
from app.live.store import end_call
from app.redis import keys
from app.settings import Settings

log = logging.getLogger(__name__)

STREAM_ENDED = "stream ended"
UNREAD_GRACE_S = 10.0
"""Final words unread this long after the call's last event, with no task under way, are handed over again."""


def end_silent_streams(settings: Settings, now: dt.datetime | None = None) -> list[str]:
    """End every open call silent for the stream timeout; their incident ids."""
    now = now or utcnow()
    silent_since = now - dt.timedelta(seconds=settings.live_stream_timeout_s)
    ended = []
    with session_scope(settings.database_url) as session:
        calls = session.scalars(
            select(LiveCall).where(LiveCall.ended_at.is_(None), LiveCall.last_event_at < silent_since)
        ).all()
        for call in calls:
            if end_call(session, call, STREAM_ENDED, now):
                ended.append(call.incident_id)
                log.info("live_call_ended incident_id=%s reason=%r", call.incident_id, STREAM_ENDED)
    return ended


def unread_calls(settings: Settings, now: dt.datetime | None = None) -> list[str]:
    """Open incidents of live calls with final words their latest reading did not read."""
    now = now or utcnow()
    quiet_since = now - dt.timedelta(seconds=UNREAD_GRACE_S)
    with session_scope(settings.database_url) as session:
        return list(
            session.scalars(
                select(LiveCall.incident_id)
                .join(Incident, Incident.id == LiveCall.incident_id)
                .where(
                    LiveCall.finals > LiveCall.triaged_finals,
                    LiveCall.last_event_at < quiet_since,
                    Incident.status != IncidentStatus.CLOSED.value,
                )
            )
        )


def sweep_live_calls(settings: Settings, client: Any, publish: Callable[[str, bool], None]) -> dict[str, int]:
    """One pass: end silent streams, then hand over every call with unread words and no task under way."""
    ended = end_silent_streams(settings)
    unread = unread_calls(settings)
    idle = [
        incident_id
        for incident_id in unread
        if not client.exists(keys.live_scheduled(settings.queue_prefix, incident_id))
    ]
    sent = request_retriage(client, settings.queue_prefix, [*ended, *idle], publish)
    return {"ended": len(ended), "handed_over": sent}
