"""Every ESI 1 call of the test sets (devsets A and B, the generator's default set) on which a CPR, choking, bleeding
or airway rule fires gets its card: the shipped triage model and the card library, as the classify task runs them."""

from __future__ import annotations

from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from app.guidance.cards.library import SHIPPED_DIR, CardLibrary, load_library
from app.guidance.incident_card import card_for
from triage_models.callsets import Call, read_call_set
from triage_models.generator import generate
from triage_models.pipeline import TriageModel, Triager
from triage_models.result import TriageResult
from triage_models.store import SHIPPED_MODEL_DIR

DEVSETS = Path(__file__).resolve().parents[3] / "triage_models" / "devsets"
CARD_RULES = frozenset(
    {
        # CPR
        "A-NOT-BREATHING",
        "A-NOT-BREATHING-NORMALLY",
        "A-NO-PULSE",
        "A-RESUSCITATION",
        # choking
        "A-CHOKING",
        # bleeding
        "A-SEVERE-BLEEDING",
        "B-PENETRATING-TRAUMA",
        # airway
        "A-SEVERE-RESPIRATORY-DISTRESS",
        "A-HANGING-DROWNING",
    }
)
TRIAGE_MISSES = {
    "A-107": "triage reads no age in 'My son is two': the adult card",
    "A-132": "A-NOT-BREATHING fires on 'woke up gasping' (awake, pulmonary oedema): the CPR card",
    "B-084": "triage reads no age in 'fourteen months' but 'baby' (under 1): the infant card",
}
"""Calls whose card is wrong because of how triage reads them (not of the card library): strict xfails, so a fix in
triage shows here."""
DEVSET_CARDS = {
    "A-001": "cpr-adult",  # Spanish, agonal snoring
    "A-002": "choking-adult",  # "mi hijo", no age: the adult card, whose first question is the age
    "A-006": "seizure",  # blue lips in a seizure: not back blows
    "A-017": "severe-bleeding",
    "A-023": "cpr-infant",  # a baby found blue and not breathing in the cot
    "A-024": "breathing-difficulty",  # blue lips, cannot finish a sentence: not choking
    "A-026": "severe-bleeding",
    "A-034": "cpr-adult",
    "A-041": "cpr-adult",
    "A-043": "cpr-adult",  # an overdose not breathing: CPR before naloxone
    "A-049": "choking-adult",  # grabbing her throat, and blue
    "A-052": "severe-bleeding",
    "A-065": "cpr-adult",
    "A-071": "cpr-adult",
    "A-073": "drowning",  # pulled out of the deep end: rescue breaths first
    "A-074": "cpr-adult",
    "A-079": "cpr-adult",
    "A-107": "cpr-child",
    "A-117": "choking-child",
    "A-132": "breathing-difficulty",
    "A-139": "choking-adult",
    "A-152": "cpr-infant",  # a newborn not breathing
    "A-153": "drowning",  # a hanging
    "A-203": "cpr-adult",
    "B-003": "breathing-difficulty",  # Spanish, asthma, mouth blue
    "B-012": "severe-bleeding",
    "B-027": "breathing-difficulty",
    "B-031": "cpr-adult",
    "B-032": "cpr-adult",
    "B-040": "cpr-adult",
    "B-044": "severe-bleeding",  # stabbed, bleeding a lot, dizzy
    "B-056": "cpr-adult",
    "B-057": "choking-adult",
    "B-058": "drowning",
    "B-065": "cpr-adult",
    "B-084": "choking-child",
}
GENERATED_CARDS = {
    "cardiac-arrest": {"cpr-adult": 32},
    "child-breathing-distress": {"breathing-difficulty": 35},
    "child-struck-unresponsive": {"cpr-child": 6, "cpr-adult": 2},  # no age read: "he's 5", "looks about 7"
    "choking": {"choking-adult": 28, "choking-child": 3, "breathing-difficulty": 2},  # fillers inside "stuck in"
    "cpr-in-progress": {"cpr-adult": 31, "cpr-child": 2},
    "drowning-hanging": {"drowning": 34},
    "hemorrhagic-shock": {"cpr-adult": 2, "severe-bleeding": 5},
    "not-breathing": {"cpr-adult": 25, "choking-unconscious": 8, "cpr-child": 2},
    "seizure-cyanotic": {"breathing-difficulty": 12, "seizure": 6},  # no seizure rule on "generalized seizure"
    "severe-bleeding": {"severe-bleeding": 26},
    "shock-trauma": {"cpr-adult": 17, "severe-bleeding": 1},
    "silent-choking": {"choking-adult": 25, "choking-child": 6, "breathing-difficulty": 1},  # fillers
    "unresponsive": {"cpr-adult": 8, "cpr-child": 1},
    "unresponsive-abnormal-breathing": {"cpr-adult": 41},
}
"""Per scenario of `generate(6000, seed=0)` (the default `triage generate` set), the cards of its ESI 1 calls on
which a card rule fired; a scenario's calls without one are not counted."""


@cache
def triager() -> Triager:
    return Triager(TriageModel.load(SHIPPED_MODEL_DIR))


@cache
def library() -> CardLibrary:
    return load_library(SHIPPED_DIR)


def fired(result: TriageResult) -> set[str]:
    return {item.rule_id for item in result.evidence if item.floor} & CARD_RULES


def urgent_devset_calls() -> dict[str, Call]:
    calls = [*read_call_set(DEVSETS / "calls_a.csv"), *read_call_set(DEVSETS / "calls_b.csv")]
    return {call.call_id: call for call in calls if call.esi_level == 1}


def test_the_devset_calls_with_a_card_rule_are_exactly_those_listed() -> None:
    with_rule = {call_id for call_id, call in urgent_devset_calls().items() if fired(triager().classify(call.text))}
    assert sorted(with_rule) == sorted(DEVSET_CARDS)


@pytest.mark.parametrize(
    ("call_id", "card_id"),
    [
        pytest.param(call_id, card_id, marks=pytest.mark.xfail(strict=True, reason=TRIAGE_MISSES[call_id]))
        if call_id in TRIAGE_MISSES
        else (call_id, card_id)
        for call_id, card_id in DEVSET_CARDS.items()
    ],
)
def test_an_urgent_devset_call_gets_its_card_in_its_language(call_id: str, card_id: str) -> None:
    call = urgent_devset_calls()[call_id]
    result = triager().classify(call.text)
    card = card_for(result, library())
    assert card is not None
    language = "es" if call.language == "es" else "en"
    assert (card.id, card.language) == (card_id, language)


def test_every_urgent_generated_call_with_a_card_rule_gets_a_card_and_the_counts_per_scenario() -> None:
    found: dict[str, Counter[str]] = {}
    for message in generate(6000, seed=0):
        if message.esi_level != 1:
            continue
        result = triager().classify(message.text)
        if not fired(result):
            continue
        card = card_for(result, library())
        assert card is not None, message.text
        found.setdefault(message.scenario, Counter())[card.id] += 1
    assert found == {scenario: Counter(cards) for scenario, cards in GENERATED_CARDS.items()}
