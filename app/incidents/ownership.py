"""One owner per call, and actions checked against the state they were offered in: who holds an incident, the state
token a screen shows, and the refusals when either has changed."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import Incident, User
from app.incidents.errors import IncidentHeldError, StaleActionError

STATE_FIELDS = ("status", "holder", "level", "card", "text")
"""What the state token holds, in order: what a dispatcher decides on (a change to any of them makes an action
offered before it stale). Guidance progress and unit movements are not in it: they do not change what an action on
the call means."""


def state_token(incident: Incident) -> str:
    """The state an action is offered in: status, holder (user id), ESI level, protocol card and text revision."""
    values = (
        incident.status,
        incident.claimed_by or "",
        "" if incident.esi_level is None else str(incident.esi_level),
        incident.card_id or "",
        str(incident.text_revision or 0),
    )
    return "|".join(values)


def check_offered(session: Session, incident: Incident, offered: str | None) -> None:
    """Refuse an action offered in another state than the incident's now (`StaleActionError`, saying what changed);
    `offered` None: the caller did not say (API clients that do not send `expected_state`)."""
    if offered is None:
        return
    current = state_token(incident)
    if offered == current:
        return
    raise StaleActionError(
        f"the call changed since you saw it: {what_changed(session, offered, current)}. Nothing was done; look again."
    )


def what_changed(session: Session, offered: str, current: str) -> str:
    """The fields that differ between two state tokens, in words ("now claimed by sam (you saw nobody)")."""
    before, after = offered.split("|"), current.split("|")
    if len(before) != len(STATE_FIELDS):
        return "its state is not the one your screen showed"
    names = _names(session, {before[1], after[1]} - {""})
    words = []
    for field, old, new in zip(STATE_FIELDS, before, after, strict=True):
        if old == new:
            continue
        if field == "status":
            words.append(f"now {new} (you saw {old})")
        elif field == "holder":
            words.append(f"held by {names.get(new, 'nobody')} (you saw {names.get(old, 'nobody')})")
        elif field == "level":
            words.append(f"now ESI {new or '?'} (you saw ESI {old or '?'})")
        elif field == "card":
            words.append(f"its protocol card is now {new or 'none'} (you saw {old or 'none'})")
        else:
            words.append("its text was corrected")
    return "; ".join(words) or "its state is not the one your screen showed"


def holder_name(session: Session, incident: Incident) -> str | None:
    """The name of the user who holds the incident (None while nobody does)."""
    if incident.claimed_by is None:
        return None
    return session.scalar(select(User.name).where(User.id == incident.claimed_by)) or "a removed user"


def check_holder(session: Session, incident: Incident, user: User) -> None:
    """Refuse to act on an incident another user holds (`IncidentHeldError`); an unclaimed one is anyone's."""
    if incident.claimed_by is None or incident.claimed_by == user.id:
        return
    holder = holder_name(session, incident)
    raise IncidentHeldError(f"{holder} holds this call: take it over (with a reason) to act on it")


def _names(session: Session, user_ids: set[str]) -> dict[str, str]:
    if not user_ids:
        return {}
    return dict(session.execute(select(User.id, User.name).where(User.id.in_(user_ids))).all())
