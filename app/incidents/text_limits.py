"""Limits on free text and on notes: every reason and note bounded, notes counted per incident and per user, so
that nobody can make an incident unusable (600 notes of 60,000 characters made it a 36 MB read)."""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.db.models import IncidentEvent, utcnow
from app.incidents.errors import InvalidActionError, TooManyError


@dataclass(frozen=True, slots=True)
class FreeTextLimits:
    """The limits (`TRIAGE_NOTE_MAX_CHARS`, `TRIAGE_REASON_MAX_CHARS`, `TRIAGE_INCIDENT_NOTE_LIMIT`,
    `TRIAGE_USER_NOTE_LIMIT` per `TRIAGE_USER_NOTE_WINDOW_S`)."""

    note_chars: int = 2000
    """A note, at most (a long radio report fits)."""
    reason_chars: int = 500
    """An override, card-switch, take-over, correction, merge or close reason, at most."""
    notes_per_incident: int = 200
    notes_per_user: int = 30
    """Notes one user may add in `user_window_s`, on all incidents together."""
    user_window_s: float = 60.0


DEFAULT_LIMITS = FreeTextLimits()


class TextTooLongError(InvalidActionError):
    """A free-text field over its limit (422)."""


class NoteLimitError(InvalidActionError):
    """The incident holds as many notes as it may (422)."""


class NoteRateError(TooManyError):
    """The user added as many notes as they may for now (429, retry after `retry_after_s`)."""


def bounded(text: str, limit: int, what: str) -> str:
    """The text trimmed, if within `limit` characters; else `TextTooLongError` saying by how much."""
    text = text.strip()
    if len(text) > limit:
        raise TextTooLongError(f"{what} is {len(text)} characters; {limit} at most")
    return text


def check_note_room(
    session: Session, incident_id: str, actor: str, limits: FreeTextLimits, now: dt.datetime | None = None
) -> None:
    """Refuse a note the incident has no room for (`NoteLimitError`) or the user is adding too fast for
    (`NoteRateError`, with when to retry)."""
    held = session.scalar(
        select(func.count()).where(IncidentEvent.incident_id == incident_id, IncidentEvent.action == "note")
    )
    if (held or 0) >= limits.notes_per_incident:
        raise NoteLimitError(
            f"this incident holds {limits.notes_per_incident} notes, the most it may: ask a supervisor, or write one"
            " longer note on a new incident"
        )
    now = now or utcnow()
    since = now - dt.timedelta(seconds=limits.user_window_s)
    recent = session.scalars(
        select(IncidentEvent.created_at)
        .where(IncidentEvent.actor == actor, IncidentEvent.action == "note", IncidentEvent.created_at >= since)
        .order_by(IncidentEvent.created_at)
    ).all()
    if len(recent) >= limits.notes_per_user:
        oldest = recent[len(recent) - limits.notes_per_user]
        wait = max(1, math.ceil((oldest - since).total_seconds()))
        raise NoteRateError(
            f"{limits.notes_per_user} notes in {limits.user_window_s:g} s is the most one user may add: try again in"
            f" {wait} s",
            wait,
        )
