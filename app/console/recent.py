"""Recent calls, closed ones included, found by their words, address or call-back number: a dispatcher's look back
(the audit log stays the supervisors')."""

from __future__ import annotations

import html
from collections.abc import Sequence

from app.db.models import Incident
from app.incidents.search import RECENT_HOURS as RECENT_HOURS
from app.incidents.search import recent_calls as recent_calls


def render_recent(incidents: Sequence[Incident]) -> str:
    """The calls found, each a row a click opens: when, level, complaint, address, call-back number, status."""
    if not incidents:
        return '<p class="empty">No call matches in that window.</p>'
    rows = "".join(
        f'<tr class="incident" data-id="{incident.id}"><td>{incident.accepted_at.astimezone():%m-%d %H:%M}</td>'
        f"<td>ESI {incident.esi_level or '?'}</td><td>{html.escape(incident.chief_complaint or '')}</td>"
        f"<td>{html.escape(incident.location or '')}</td><td>{html.escape(incident.callback_number or '')}</td>"
        f"<td>{html.escape(incident.status)}</td></tr>"
        for incident in incidents
    )
    return (
        '<table class="queue recent"><thead><tr><th>arrived</th><th>ESI</th><th>chief complaint</th><th>address</th>'
        f"<th>call-back</th><th>status</th></tr></thead><tbody>{rows}</tbody></table>"
    )
