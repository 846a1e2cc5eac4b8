"""Calls taken over from a dispatcher: read from the audit for the queue's stream, and the notice the dispatcher who
lost the call sees (the one who took it sees it on the incident)."""

from __future__ import annotations

import datetime as dt
import html
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import Incident, IncidentEvent, User

TAKE_OVER_NOTICE_S = 600.0
"""How long the dispatcher who lost a call is told about it (above every tab)."""


@dataclass(frozen=True, slots=True)
class TakeOver:
    incident_id: str
    from_user: str
    """The name of the user who held the call."""
    by: str
    reason: str
    at: dt.datetime
    esi_level: int | None
    complaint: str


def recent_take_overs(session: Session, since: dt.datetime) -> list[TakeOver]:
    """The take-overs since `since`, oldest first, with the names of who lost and who took each call."""
    rows = session.execute(
        select(IncidentEvent, Incident.esi_level, Incident.chief_complaint)
        .join(Incident, Incident.id == IncidentEvent.incident_id)
        .where(IncidentEvent.action == "take_over", IncidentEvent.created_at >= since)
        .order_by(IncidentEvent.id)
    ).all()
    ids = {str((event.before or {}).get("claimed_by")) for event, _, _ in rows}
    names = dict(session.execute(select(User.id, User.name).where(User.id.in_(ids))).all()) if ids else {}
    return [
        TakeOver(
            incident_id=event.incident_id or "",
            from_user=names.get(str((event.before or {}).get("claimed_by")), ""),
            by=event.actor,
            reason=event.reason or "",
            at=event.created_at,
            esi_level=level,
            complaint=complaint or "",
        )
        for event, level, complaint in rows
    ]


def render_take_over(item: TakeOver) -> str:
    """The notice to the dispatcher who lost the call: who took it, when, why; a click opens it."""
    when = item.at.astimezone().strftime("%H:%M")
    return (
        f'<div class="engine-banner take-over" role="alert" data-open="{html.escape(item.incident_id)}">'
        f"<b>{html.escape(item.by)} took over</b> ESI {item.esi_level or '?'} · {html.escape(item.complaint)} from "
        f"you at {when}: {html.escape(item.reason)}</div>"
    )
