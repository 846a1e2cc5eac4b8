"""The engine worker's reads and writes of an incident while it serves it (its outcome is `outcomes.py`'s): loaded to
be served, its guidance state, and the mark that an engine is serving it."""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass

from sqlalchemy import update

from app.db.models import FINAL_GUIDANCE_STATES, GuidanceState, Incident, utcnow
from app.db.session import session_scope
from app.engine_worker.prompt import GuidancePrompt
from app.guidance.cards import Card, default_library
from app.guidance.cards.model import CardError
from app.guidance.incident_card import grounding
from app.guidance.prompt import GROUNDED_PROMPT_VERSION, GUIDANCE_PROMPT_VERSION, LANGUAGE_NAMES
from scheduler.redis_heap import CallFacts

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class LoadedIncident:
    """An incident as the engine serves it: its prompt (grounded in its protocol card) and what its outcome needs."""

    prompt: list[int]
    predicted_tokens: int
    queued_at: dt.datetime | None
    accepted_at: dt.datetime
    card: Card | None
    language: str
    text: str
    """The transcript the prompt was built from (a live call's words may have moved on by the time it finishes)."""

    @property
    def prompt_version(self) -> str:
        return GUIDANCE_PROMPT_VERSION if self.card is None else GROUNDED_PROMPT_VERSION


def load_incident(
    database_url: str, incident_id: str, esi_level: int, prompt: GuidancePrompt, facts: CallFacts | None = None
) -> LoadedIncident | None:
    """The incident to serve at `esi_level` (the level the heap item carries), marked prefilling and seen; None when
    its guidance is final (done, failed, or cancelled by closing the incident) or it is gone. With the `facts` its
    lease carries (flags, card, language, estimate) only its words and state are read; without, its classification
    and card as well."""
    with session_scope(database_url) as session:
        incident = session.get(Incident, incident_id)
        if incident is None or incident.guidance_state in FINAL_GUIDANCE_STATES:
            return None
        if facts is not None:
            flags, card, language = list(facts.flags), carried_card(incident_id, facts), facts.language
            predicted = facts.predicted_output_tokens
        else:
            classification = incident.classifications[-1] if incident.classifications else None
            flags = [str(item.get("rule_id")) for item in classification.evidence] if classification else []
            card, language = grounding(incident)
            predicted = incident.predicted_output_tokens or 0
        language = language if language in LANGUAGE_NAMES else "en"
        incident.guidance_state = GuidanceState.PREFILLING.value
        incident.engine_seen_at = utcnow()
        ids = prompt.build(incident.text, esi_level, flags, card, language)
        return LoadedIncident(ids, predicted, incident.queued_at, incident.accepted_at, card, language, incident.text)


def warm_card_library() -> None:
    """Read the card library now, as the engine starts: reading it checks the rules its cards name against the
    compiled triage knowledge (seconds on 2 cores), which must not be the first arrest's wait. A library that cannot
    be read is logged (and each card-grounded incident logs it again)."""
    try:
        default_library()
    except CardError as error:
        log.error("card_library_unusable problems=%r", str(error))


def carried_card(incident_id: str, facts: CallFacts) -> Card | None:
    """The card the lease names, from the library (None without one, or when the library cannot be read: logged)."""
    if facts.card_id is None:
        return None
    try:
        return default_library().get(facts.card_id, facts.card_language or "en")
    except CardError as error:
        log.error("card_library_unusable incident_id=%s problems=%r", incident_id, str(error))
        return None


def set_state(database_url: str, incident_id: str, state: GuidanceState) -> bool:
    """Set the guidance state of an incident being served; False (and nothing written) when its guidance is final
    (closed meanwhile, say) or it is gone."""
    with session_scope(database_url) as session:
        incident = session.get(Incident, incident_id)
        if incident is None or incident.guidance_state in FINAL_GUIDANCE_STATES:
            return False
        incident.guidance_state = state.value
        return True


def mark_seen(database_url: str, incident_ids: list[str]) -> None:
    """Tell the database these incidents are being served (the reconciler leaves them alone)."""
    with session_scope(database_url) as session:
        session.execute(update(Incident).where(Incident.id.in_(incident_ids)).values(engine_seen_at=utcnow()))
