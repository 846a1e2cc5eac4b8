"""Finding recent calls, closed ones included, by their words, address or call-back number (the API's `q` and the
console's Recent calls tab)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from sqlalchemy import ColumnElement, or_, select
from sqlalchemy.orm import Session

from app.db.models import Incident
from app.incidents.duplicates import address_key, callback_key

RECENT_HOURS = 24.0
RECENT_LIMIT = 100


def recent_calls(session: Session, text: str, since: dt.datetime, limit: int = RECENT_LIMIT) -> Sequence[Incident]:
    """Calls accepted since `since`, newest first, matching `text` in their words, complaint or address (case
    folded), or as a call-back number (its digits); every call of the window for an empty `text`."""
    query = select(Incident).where(Incident.accepted_at >= since)
    words = text.strip()
    if words:
        literal = words.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        pattern = f"%{literal}%"
        conditions: list[ColumnElement[bool]] = [
            Incident.text.ilike(pattern, escape="\\"),
            Incident.chief_complaint.ilike(pattern, escape="\\"),
            Incident.location.ilike(pattern, escape="\\"),
        ]
        folded = address_key(words)
        if folded:
            conditions.append(Incident.address_key.contains(folded, autoescape=True))
        number = callback_key(words)
        if number:
            conditions.append(Incident.callback_key == number)
        query = query.where(or_(*conditions))
    return session.scalars(query.order_by(Incident.accepted_at.desc()).limit(limit)).all()
