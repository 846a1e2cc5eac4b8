"""Possible duplicates: a call at the same address or from the same call-back number as an open incident that
arrived within the last 30 minutes is flagged with a link to it (the dispatcher opens it, or merges the call)."""

from __future__ import annotations

import datetime as dt
import logging
import re

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from app.db.models import Incident, IncidentEvent, IncidentStatus
from triage_models.transcript import fold_accents

log = logging.getLogger(__name__)

DUPLICATE_WINDOW = dt.timedelta(minutes=30)
PHONE_DIGITS = 7
"""A caller field with at least this many digits is taken as a call-back number."""
STREET_WORDS = {
    "street": "st",
    "avenue": "ave",
    "av": "ave",
    "road": "rd",
    "drive": "dr",
    "lane": "ln",
    "boulevard": "blvd",
    "court": "ct",
    "place": "pl",
    "apartment": "apt",
    "north": "n",
    "south": "s",
    "east": "e",
    "west": "w",
    "calle": "c",
    "avenida": "ave",
}
"""Street words folded to one spelling, so that "12 Main Street" and "12 main st." are one address."""
_NOT_WORD = re.compile(r"[^0-9a-z]+")


def callback_key(number: str | None) -> str | None:
    """The number's last ten digits (a country code or punctuation does not make two numbers differ); None for
    text with fewer than `PHONE_DIGITS` digits (a name)."""
    digits = re.sub(r"\D", "", number or "")
    return digits[-10:] if len(digits) >= PHONE_DIGITS else None


def address_key(location: str | None) -> str | None:
    """The address folded for comparison: lower case, no accents or punctuation, street words abbreviated."""
    words = _NOT_WORD.sub(" ", fold_accents(location or "").lower()).split()
    folded = " ".join(STREET_WORDS.get(word, word) for word in words)
    return folded[:255] or None


def callback_of(caller: str | None) -> str | None:
    """The call-back number a caller field holds, when it is a phone number (else None)."""
    return caller.strip()[:32] if caller and callback_key(caller) else None


def flag_possible_duplicate(session: Session, incident: Incident, actor: str) -> str | None:
    """Fold the incident's address and number, and flag it (audited) when an open incident at the same address or
    from the same number arrived within `DUPLICATE_WINDOW` before it; the other's id (the latest), or None."""
    incident.address_key = address_key(incident.location)
    incident.callback_key = callback_key(incident.callback_number)
    keys = []
    if incident.address_key:
        keys.append(Incident.address_key == incident.address_key)
    if incident.callback_key:
        keys.append(Incident.callback_key == incident.callback_key)
    if not keys:
        return None
    original = session.scalar(
        select(Incident.id)
        .where(
            or_(*keys),
            Incident.id != incident.id,
            Incident.status != IncidentStatus.CLOSED.value,
            Incident.accepted_at >= incident.accepted_at - DUPLICATE_WINDOW,
            Incident.accepted_at <= incident.accepted_at,
        )
        .order_by(Incident.accepted_at.desc())
        .limit(1)
    )
    if original is None or original == incident.possible_duplicate_of:
        return original
    before = {"possible_duplicate_of": incident.possible_duplicate_of}
    incident.possible_duplicate_of = original
    session.add(
        IncidentEvent(
            incident_id=incident.id,
            actor=actor,
            action="possible_duplicate",
            before=before,
            after={"possible_duplicate_of": original},
        )
    )
    log.info("possible_duplicate incident_id=%s of=%s", incident.id, original)
    return original
