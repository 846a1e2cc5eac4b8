"""The protocol card on an incident: picked from the triage result at classification, stored, and shown."""

from __future__ import annotations

import logging
import re
from typing import Any

from app.db.models import Incident
from app.guidance.cards import Card
from app.guidance.cards.library import CardLibrary, default_library
from app.guidance.cards.model import CardError
from triage_models.result import Evidence, TriageResult
from triage_models.transcript import fold_accents

log = logging.getLogger(__name__)

ACRONYMS = {"cpr": "CPR", "aed": "AED"}
CYANOSIS = re.compile(r"\b(?:blue|purple|cyanotic|cyanosis|morad\w*|azul\w*|negrit[oa]|cianotic[oa]|cianosis)\b", re.I)
"""A colour change in the words A-CHOKING fired on ("turning blue", "labios morados")."""
CYANOSIS_CARD_RULE = "A-SEVERE-RESPIRATORY-DISTRESS"


def card_label(card_id: str) -> str:
    """A card's short name for a queue row, from its id: "cpr-adult" is "CPR adult", "severe-bleeding" "Severe
    bleeding"."""
    words = [ACRONYMS.get(word, word) for word in card_id.split("-")]
    label = " ".join(words)
    return label[:1].upper() + label[1:]


def card_rule(evidence: Evidence) -> str:
    """The rule a card is picked by for this evidence. A-CHOKING also fires on a colour change alone: an ESI 1 sign
    that breathing fails, whatever the cause (a seizure, asthma, an arrest), not that something blocks the airway.
    Read as severe breathing distress, it leaves the card to the cause (the seizure card, the CPR card, the breathing
    card) instead of back blows. The rules quote an obstruction before a colour, so a choking call keeps its card."""
    if evidence.rule_id == "A-CHOKING" and CYANOSIS.search(fold_accents(evidence.text)):
        return CYANOSIS_CARD_RULE
    return evidence.rule_id


def card_for(result: TriageResult, library: CardLibrary) -> Card | None:
    """The card for a triage result: from the rules that set a floor on the level (`card_rule`), the patient's age
    and the call's language (the card in that language when translated, else English); None for a call no card
    fits."""
    floor_rules = [card_rule(item) for item in result.evidence if item.floor]
    return library.select(floor_rules, result.age_years, result.language.code)


def set_card(incident: Incident, card: Card | None) -> None:
    """Put the card (or none) on the incident, with no step done yet; the caller audits and commits."""
    incident.card_id = None if card is None else card.id
    incident.card_version = None if card is None else card.version
    incident.card_language = None if card is None else card.language
    incident.card_steps_done = []


def assign_from_triage(incident: Incident, result: TriageResult) -> Card | None:
    """At classification: the first card triage finds stays (a dispatcher may be reading it, or switched it); an
    unusable library (a centre's copy that does not load) leaves the incident without a card and is logged, because
    the ESI level must reach the screen regardless."""
    if incident.card_id is not None:
        return None
    try:
        library = default_library()
    except CardError as error:
        log.error("card_library_unusable incident_id=%s problems=%r", incident.id, str(error))
        return None
    card = card_for(result, library)
    if card is not None:
        set_card(incident, card)
        log.info("card_assigned incident_id=%s card_id=%s language=%s", incident.id, card.id, card.language)
    return card


def switch_on_reading(incident: Incident, result: TriageResult, *, raised: bool, by_hand: bool) -> Card | None:
    """A live call read again (`app.live.retriage`): the card its words now pick goes on screen at once when the
    level rose or the new card outranks the one there (an arrest after a fall: the CPR card), unless a dispatcher
    switched the card by hand (their choice stands). The card put on, None when it stays."""
    try:
        library = default_library()
    except CardError as error:
        log.error("card_library_unusable incident_id=%s problems=%r", incident.id, str(error))
        return None
    picked = card_for(result, library)
    if picked is None or picked.id == incident.card_id:
        return None
    current = incident_card(incident, library) if incident.card_id is not None else None
    if current is not None and (by_hand or not (raised or picked.priority > current.priority)):
        return None
    set_card(incident, picked)
    log.info("card_switched incident_id=%s card_id=%s raised=%s", incident.id, picked.id, raised)
    return picked


def incident_card(incident: Incident, library: CardLibrary | None = None) -> Card | None:
    """The incident's card as the library holds it, read for this call (a combined card only asks what fits its
    words: `Card.for_call`); None without one, or when the library no longer has it."""
    if incident.card_id is None:
        return None
    library = library or default_library()
    card = library.get(incident.card_id, incident.card_language or "en")
    return None if card is None else card.for_call(incident.text)


def grounding(incident: Incident) -> tuple[Card | None, str]:
    """What the guidance prompt is grounded in: the incident's card (None without one, or when the library cannot be
    read: logged, the guidance is then written without it) and the language to write in (the call's when the prompt
    knows it, else English, for an interpreter's call)."""
    from app.guidance.prompt import LANGUAGE_NAMES

    language = incident.language if incident.language in LANGUAGE_NAMES else "en"
    try:
        return incident_card(incident), language or "en"
    except CardError as error:
        log.error("card_library_unusable incident_id=%s problems=%r", incident.id, str(error))
        return None, language or "en"


def _brief(incident: Incident, card: Card) -> dict[str, Any]:
    return {
        "id": card.id,
        "version": incident.card_version or card.version,
        "title": card.title,
        "language": card.language,
        "label": card_label(card.id),
    }


def card_brief(incident: Incident, library: CardLibrary | None = None) -> dict[str, Any] | None:
    """The card in a list of incidents: its id, version, title, language and the queue row's short name."""
    card = incident_card(incident, library)
    return None if card is None else _brief(incident, card)


def card_view(incident: Incident, library: CardLibrary | None = None) -> dict[str, Any] | None:
    """The card as the API and the console show it: what to read, and which steps the dispatcher marked done."""
    card = incident_card(incident, library)
    if card is None:
        return None
    return {
        **_brief(incident, card),
        "steps": list(card.steps),
        "reviewed": card.reviewed,
        "review_state": card.review_state,
        "key_questions": list(card.key_questions),
        "do_not": list(card.do_not),
        "steps_done": list(incident.card_steps_done or []),
    }
