"""The audit tab's rows and its CSV in people's words: users by name, incidents by short id and complaint."""

from __future__ import annotations

import csv
import datetime as dt
import inspect
import io
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.console.history import (
    action_label,
    actor_label,
    claimed_by_ids,
    describe_change,
    event_reason,
    value_label,
)
from app.console.service import audit_events, user_names
from app.db.models import Incident

AUDIT_HOURS = 24
"""What the audit tab shows when it opens: the last day."""
AUDIT_LIMIT: int = inspect.signature(audit_events).parameters["limit"].default
"""The most events a search returns (`audit_events`' limit): the newest."""
SHORT_ID = 8
"""An incident's short id: the first characters of its UUID (as a commit's short hash)."""
COMPLAINT_CHARACTERS = 60
COLUMNS = ["when", "incident", "who", "what", "change", "reason"]
CSV_COLUMNS = [*COLUMNS, "incident id", "recorded before", "recorded after"]
"""The table's columns, then the record behind them (the full incident id, every stored field, users by name)."""


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One audit event as a supervisor reads it, with the record it was written from."""

    at: dt.datetime
    incident: str
    """`1a2b3c4d · chest pain since an hour…`; empty for an event about no incident."""
    who: str
    what: str
    change: str
    reason: str
    incident_id: str
    recorded_before: str
    recorded_after: str
    reason_in_full: str = ""
    """The stored reason when the table shows it shortened (`event_reason`: the checker's refusals); the CSV has it."""

    def table_row(self) -> list[str]:
        """The table's row (`COLUMNS`), the time in the server's local time."""
        when = self.at.astimezone().strftime("%Y-%m-%d %H:%M:%S")
        return [when, self.incident, self.who, self.what, self.change, self.reason]


def short_id(incident_id: str) -> str:
    return incident_id[:SHORT_ID]


def complaint_label(complaint: str | None) -> str:
    """The stored chief complaint on one line, cut at a word to fit a table cell."""
    return textwrap.shorten(complaint or "", COMPLAINT_CHARACTERS, placeholder="…") or "no complaint recorded"


def incident_labels(session: Session, incident_ids: set[str]) -> dict[str, str]:
    """Incident id -> `short id · complaint`, for the ids given (one query); an id no longer stored keeps its short
    id alone."""
    if not incident_ids:
        return {}
    query = select(Incident.id, Incident.chief_complaint).where(Incident.id.in_(incident_ids))
    stored: dict[str, str | None] = {incident_id: complaint for incident_id, complaint in session.execute(query)}
    return {
        incident_id: f"{short_id(incident_id)} · {complaint_label(stored[incident_id])}"
        if incident_id in stored
        else short_id(incident_id)
        for incident_id in incident_ids
    }


def recorded(change: Mapping[str, Any], user_names: Mapping[str, str]) -> str:
    """Every stored field of a before or after, `key=value; ...`, a claiming user by name."""
    return "; ".join(
        f"{key}={value_label(key, value, user_names) if key == 'claimed_by' else value}"
        for key, value in change.items()
    )


def audit_entries(session: Session, events: Sequence[dict[str, Any]]) -> list[AuditEntry]:
    """`audit_events`' events (newest first) in people's words, in the same order."""
    users = user_names(session, claimed_by_ids(list(events)))
    incidents = incident_labels(session, {event["incident"] for event in events if event["incident"]})
    return [
        AuditEntry(
            at=dt.datetime.fromisoformat(event["at"]),
            incident=incidents.get(event["incident"], ""),
            who=actor_label(event["actor"]),
            what=action_label(event["action"]),
            change=describe_change(event["before"], event["after"], users),
            reason=event_reason(event["action"], event["after"], event["reason"]),
            reason_in_full=event["reason"] or "",
            incident_id=event["incident"],
            recorded_before=recorded(event["before"], users),
            recorded_after=recorded(event["after"], users),
        )
        for event in events
    ]


def audit_csv(entries: Sequence[AuditEntry]) -> str:
    """The entries as CSV: the table's columns (the time with its UTC offset), then the record behind them."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_COLUMNS)
    for entry in entries:
        cells = [
            entry.at.astimezone().isoformat(timespec="seconds"),
            *entry.table_row()[1:-1],
            entry.reason_in_full or entry.reason,
            entry.incident_id,
            entry.recorded_before,
            entry.recorded_after,
        ]
        writer.writerow([_cell(cell) for cell in cells])
    return buffer.getvalue()


def export_link(token: str, count: int, minutes_left: int, limit: int = AUDIT_LIMIT) -> str:
    """The CSV's download link, how many events it holds, and when a search reached `audit_events`' limit, that
    older events were left out."""
    held = f"the newest {count} events: narrow the search for older ones" if count >= limit else f"{count} events"
    return (
        f'<a href="/console/exports/{token}" download="audit.csv" id="audit-csv-link" class="download-button">'
        f"Download these events (CSV)</a> ({held}; one download, within {minutes_left} minutes)"
    )


def _cell(text: str) -> str:
    """A CSV cell a spreadsheet will not run as a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
