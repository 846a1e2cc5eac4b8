"""The protocol card library: every card file of a directory, checked together, and the card a call gets."""

from __future__ import annotations

import functools
import logging
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

from app.guidance.cards.model import AgeBand, Card, CardError, read_card

logger = logging.getLogger(__name__)

SHIPPED_DIR = Path(__file__).parent
"""The library shipped in the package (not reviewed by any centre's medical director)."""
FALLBACK_LANGUAGE = "en"
INFANT_RULES = frozenset({"B-NEONATE-ILL", "B-INFANT-FEVER", "B-NEONATAL-FEVER"})
CHILD_RULES = frozenset({"B-ILL-CHILD", "B-PEDIATRIC-FALL", "B-PEDIATRIC-INGESTION"})
CHILD_MAX_AGE_YEARS = 13.0
"""Child techniques until puberty (AHA); taken as under 13, the triage rules' oldest "child" (12 years old)."""
_SELECTION_FIELDS = ("version", "rule_ids", "with_rule_ids", "age_band", "priority")


def age_band(age_years: float | None, rule_ids: Collection[str]) -> AgeBand:
    """The patient's age band: from the age when known, else from a child or infant rule, else adult."""
    if age_years is None:
        if INFANT_RULES.intersection(rule_ids):
            return "infant"
        return "child" if CHILD_RULES.intersection(rule_ids) else "adult"
    if age_years < 1.0:
        return "infant"
    return "child" if age_years < CHILD_MAX_AGE_YEARS else "adult"


def _fits(card: Card, fired: frozenset[str], band: AgeBand) -> bool:
    if fired.isdisjoint(card.rule_ids) or (card.with_rule_ids and fired.isdisjoint(card.with_rule_ids)):
        return False
    return card.age_band in ("any", band)


@dataclass(frozen=True)
class CardLibrary:
    """Cards by (id, language); every translation carries its English card's version and selection fields."""

    directory: Path
    cards: dict[tuple[str, str], Card]

    def get(self, card_id: str, language: str) -> Card | None:
        """The card in `language`, else in English (its language says which), else None."""
        return self.cards.get((card_id, language)) or self.cards.get((card_id, FALLBACK_LANGUAGE))

    def ids(self) -> list[str]:
        return sorted({card_id for card_id, _ in self.cards})

    def templates(self) -> list[Card]:
        """The English overload template cards, by id."""
        return [card for (_, language), card in sorted(self.cards.items()) if card.template and language == "en"]

    def matching(self, rule_ids: Iterable[str], age_years: float | None, language: str) -> list[Card]:
        """Every card that fits the call, highest priority first (ties by id), each in the call's language when
        translated, else in English."""
        fired = frozenset(rule_ids)
        band = age_band(age_years, fired)
        english = [card for (_, lang), card in self.cards.items() if lang == FALLBACK_LANGUAGE]
        fitting = sorted((card for card in english if _fits(card, fired, band)), key=lambda c: (-c.priority, c.id))
        return [self.cards.get((card.id, language), card) for card in fitting]

    def select(self, rule_ids: Iterable[str], age_years: float | None, language: str) -> Card | None:
        """The card the dispatcher reads for this call: the highest-priority fitting one; None when no card fits
        (a minor call). A card without a translation comes in English and is logged as such."""
        found = self.matching(rule_ids, age_years, language)
        if not found:
            return None
        card = found[0]
        if card.language != language:
            logger.warning("card_language_fallback card_id=%s wanted=%s served=%s", card.id, language, card.language)
        return card


def _translation_problems(cards: dict[tuple[str, str], Card], unreadable: set[str]) -> list[str]:
    """Each translation against its English card (one that could not be read is already reported)."""
    problems = []
    for (card_id, language), card in sorted(cards.items()):
        if language == FALLBACK_LANGUAGE:
            continue
        english = cards.get((card_id, FALLBACK_LANGUAGE))
        if english is None:
            if f"{card_id}.{FALLBACK_LANGUAGE}.toml" in unreadable:
                continue
            problems.append(f"{card_id}.{language}.toml: id: no English card {card_id}.en.toml to translate")
            continue
        for name in _SELECTION_FIELDS:
            if getattr(card, name) != getattr(english, name):
                problems.append(f"{card_id}.{language}.toml: {name}: differs from {card_id}.en.toml")
        if set(card.only_when) != set(english.only_when):
            problems.append(f"{card_id}.{language}.toml: only_when: not the situations of {card_id}.en.toml")
    return problems


def load_library(directory: Path) -> CardLibrary:
    """Every `*.toml` card in `directory`; CardError lists every problem found (file and field), not the first."""
    if not directory.is_dir():
        raise CardError([f"{directory}: not a directory of card files"])
    cards: dict[tuple[str, str], Card] = {}
    problems: list[str] = []
    unreadable: set[str] = set()
    for path in sorted(directory.glob("*.toml")):
        try:
            card = read_card(path)
        except CardError as error:
            problems.extend(error.problems)
            unreadable.add(path.name)
            continue
        cards[(card.id, card.language)] = card
    if not cards and not problems:
        problems.append(f"{directory}: holds no card files (*.toml)")
    problems.extend(_translation_problems(cards, unreadable))
    if problems:
        raise CardError(problems)
    return CardLibrary(directory, cards)


@functools.cache
def default_library() -> CardLibrary:
    """The library this process uses, read once: TRIAGE_CARDS_DIR (a centre's reviewed copy), else the shipped one."""
    from app.settings import get_settings

    directory = get_settings().cards_dir or SHIPPED_DIR
    library = load_library(directory)
    reviewed = sum(card.reviewed for card in library.cards.values())
    logger.info("cards_loaded directory=%s cards=%d reviewed=%d", directory, len(library.cards), reviewed)
    return library
