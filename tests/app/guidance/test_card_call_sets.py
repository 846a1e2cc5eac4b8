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
        "A-ARTERIAL-BLEEDING",
        "A-TRAUMA-HEMORRHAGE",
        "A-PENETRATING-BLEEDING",
        "B-PENETRATING-TRAUMA",
        # airway, and the danger to the rescuer first
        "A-SEVERE-RESPIRATORY-DISTRESS",
        "A-DROWNING",
        "A-HANGING",
        "A-ELECTROCUTION",
        "A-TOXIC-EXPOSURE-UNRESPONSIVE",
    }
)
DEVSET_CARDS = {
    "A-001": "cpr-adult",  # Spanish, agonal snoring
    "A-002": "choking-adult",  # "mi hijo", no age: the adult card, whose first question is the age
    "A-006": "seizure",  # blue lips in a seizure: not back blows
    "A-023": "cpr-infant",  # a baby found blue and not breathing in the cot
    "A-024": "breathing-difficulty",  # blue lips, cannot finish a sentence: not choking
    "A-026": "severe-bleeding",
    "A-029": "cpr-adult",  # Spanish: collapsed, does not answer, snoring, breathing unknown
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
    "A-096": "cpr-adult",  # "can't really wake him", breathing slow and loud, pain pills
    "A-107": "cpr-child",  # "my son is two"
    "A-126": "cpr-adult",  # won't wake up, noisy breathing with long gaps
    "A-117": "choking-child",
    "A-132": "breathing-difficulty",  # awake, woke up gasping, pink froth: not the CPR card
    "A-139": "choking-adult",
    "A-152": "cpr-infant",  # a newborn not breathing
    "A-160": "severe-bleeding",  # cut wrists, a lot of blood, pale and slurring
    "A-153": "hanging",  # cut down from a rope, not breathing: the weight off the neck, then CPR
    "A-203": "cpr-adult",
    "B-001": "cpr-adult",  # Spanish: does not answer, snoring, "no respira bien"
    "B-003": "breathing-difficulty",  # Spanish, asthma, mouth blue
    "B-012": "severe-bleeding",
    "B-020": "cpr-adult",  # Spanish: lying there, not moving, "no se si respira"
    "B-027": "breathing-difficulty",
    "B-031": "cpr-adult",
    "B-032": "cpr-adult",
    "B-035": "cpr-adult",  # speech-to-text: "unconscience", "i dont know if hes breathing"
    "B-040": "cpr-adult",
    "B-044": "severe-bleeding",  # stabbed, bleeding a lot, dizzy
    "B-056": "cpr-adult",
    "B-057": "choking-adult",
    "B-058": "drowning",
    "B-065": "cpr-adult",
    "B-070": "cpr-adult",
    "B-072": "cpr-adult",
    "B-074": "severe-bleeding",
    "B-084": "choking-child",  # "my baby ... he's fourteen months": a child, not an infant
}
GENERATED_CARDS = {
    "cardiac-arrest": {"cpr-adult": 36},
    "child-breathing-distress": {"breathing-difficulty": 41, "anaphylaxis": 2, "drowning": 1},
    "child-struck-unresponsive": {"cpr-child": 5, "cpr-adult": 1},  # no age: "a mi hija" (a daughter may be grown)
    "choking": {"choking-adult": 26, "choking-unconscious": 5, "choking-child": 2},
    "cpr-in-progress": {"cpr-adult": 31, "cpr-child": 2},
    "drowning-hanging": {"hanging": 6, "drowning": 5, "electrocution": 3},  # the scenario names all three
    "hemorrhagic-shock": {"severe-bleeding": 8},
    # "his child, 14," is read as 14 since knowledge 2026.11.63, past puberty: the adult CPR card.
    "not-breathing": {"cpr-adult": 24, "cpr-child": 3, "choking-unconscious": 7, "choking-adult": 1},
    "seizure-cyanotic": {"seizure": 18, "breathing-difficulty": 7},
    "severe-bleeding": {"severe-bleeding": 15},
    "shock-trauma": {"severe-bleeding": 7, "cpr-adult": 17},
    "silent-choking": {"choking-adult": 20, "breathing-difficulty": 7, "choking-child": 6},
    "status-seizure": {"seizure": 4},
    "unresponsive": {"cpr-adult": 8, "cpr-child": 1},
    "unresponsive-abnormal-breathing": {"cpr-adult": 39},
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


@pytest.mark.parametrize(("call_id", "card_id"), DEVSET_CARDS.items())
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
