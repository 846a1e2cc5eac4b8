"""The guidance checker: hand-written bad answers, one per failure kind in both languages, are refused with the
right reason; good answers pass; no card contradicts itself."""

from __future__ import annotations

import pytest

from app.guidance.cards import Card, load_library
from app.guidance.cards.library import SHIPPED_DIR
from app.guidance.checker import (
    Failure,
    _detector,
    check_guidance,
    contradictions,
    doses,
    load_language_models,
    written_language,
)

LIBRARY = load_library(SHIPPED_DIR)
CPR_EN = LIBRARY.cards[("cpr-adult", "en")]
SEIZURE_ES = LIBRARY.cards[("seizure", "es")]

GOOD_EN = """\
SUMMARY: A man of about 50 collapsed at home and is not breathing; his wife is on the line.
KEY FACTS:
- Male, about 50, collapsed in the kitchen, not breathing
- Took about 20 pills of his heart medicine this week, per his wife
SUGGESTED RESOURCES: ALS ambulance and fire first responders, lights and siren.
PRE-ARRIVAL INSTRUCTIONS:
1. Send someone to open the front door and turn on the porch light.
2. Do not stop compressions to check for a pulse.
"""
GOOD_ES = """\
SUMMARY: Una mujer de 30 años está convulsionando en el piso de su casa desde hace tres minutos.
KEY FACTS:
- Mujer de 30 años, con antecedentes de epilepsia
- Convulsión que empezó hace tres minutos
SUGGESTED RESOURCES: Ambulancia de soporte vital avanzado, con luces y sirena.
PRE-ARRIVAL INSTRUCTIONS:
1. Pida a alguien que abra la puerta y encienda la luz de afuera.
2. No le ponga nada en la boca y no la sujete.
"""


def test_a_good_answer_passes_in_english_and_in_spanish() -> None:
    assert check_guidance(GOOD_EN, CPR_EN, "en").failures == ()
    assert check_guidance(GOOD_ES, SEIZURE_ES, "es").passed


@pytest.mark.parametrize(
    ("answer", "card", "language", "expected"),
    [
        (
            GOOD_EN.replace("KEY FACTS:", "FACTS:"),
            CPR_EN,
            "en",
            [Failure("missing-section", "no KEY FACTS: section")],
        ),
        (
            GOOD_ES.replace("SUGGESTED RESOURCES:", "RECURSOS:"),
            SEIZURE_ES,
            "es",
            [Failure("missing-section", "no SUGGESTED RESOURCES: section")],
        ),
        (
            GOOD_EN.replace("SUMMARY:", "SUMMARY;")
            .replace("SUGGESTED RESOURCES:", "SUMMARY:", 1)
            .replace("SUMMARY;", "SUGGESTED RESOURCES:"),
            CPR_EN,
            "en",
            [
                Failure(
                    "section-order",
                    "sections come as SUGGESTED RESOURCES, KEY FACTS, SUMMARY, PRE-ARRIVAL INSTRUCTIONS; expected "
                    "SUMMARY, KEY FACTS, SUGGESTED RESOURCES, PRE-ARRIVAL INSTRUCTIONS",
                )
            ],
        ),
        (
            GOOD_EN + "3. Every two minutes, stop compressions and feel for a pulse.\n",
            CPR_EN,
            "en",
            [
                Failure("contradiction", "says 'stop compressions', which contradicts card cpr-adult"),
                Failure("contradiction", "says 'feel for a pulse', which contradicts card cpr-adult"),
            ],
        ),
        (
            GOOD_EN + "3. If he is not breathing, give him mouth-to-mouth.\n",
            CPR_EN,
            "en",
            [Failure("contradiction", "says 'mouth-to-mouth', which contradicts card cpr-adult")],
        ),
        (
            GOOD_ES + "3. Métale algo en la boca para que no se muerda la lengua.\n",
            SEIZURE_ES,
            "es",
            [Failure("contradiction", "says 'métale algo en la boca', which contradicts card seizure")],
        ),
        (
            GOOD_ES + "3. Sujetela fuerte de los brazos.\n",
            SEIZURE_ES,
            "es",
            [Failure("contradiction", "says 'sujétela', which contradicts card seizure")],
        ),
        (
            GOOD_EN + "3. Give him 325 mg of aspirin to chew, or two tablets of his nitroglycerin.\n",
            CPR_EN,
            "en",
            [Failure("dose", "gives a dose: '325 mg'"), Failure("dose", "gives a dose: 'two tablets'")],
        ),
        (
            GOOD_ES + "3. Si tiene diazepam, dele 10 mg, o media pastilla.\n",
            SEIZURE_ES,
            "es",
            [Failure("dose", "gives a dose: '10 mg'"), Failure("dose", "gives a dose: 'media pastilla'")],
        ),
        (GOOD_EN, CPR_EN, "es", [Failure("language", "written in en, the caller speaks es")]),
        (GOOD_ES, SEIZURE_ES, "en", [Failure("language", "written in es, the caller speaks en")]),
    ],
)
def test_a_bad_answer_is_refused_with_its_reasons(
    answer: str, card: Card, language: str, expected: list[Failure]
) -> None:
    check = check_guidance(answer, card, language)
    assert (check.passed, list(check.failures)) == (False, expected)


def test_naloxone_and_epinephrine_named_without_a_dose_pass_and_a_reported_amount_is_no_instruction() -> None:
    instructions = "1. Give the naloxone (Narcan) in one nostril now.\n2. Use her epinephrine auto-injector.\n"
    assert doses(instructions) == []
    # The caller's "20 pills" is a key fact, not a dose read to the caller: only the instructions are checked.
    assert check_guidance(GOOD_EN, None, "en").passed
    assert doses("3. Wait 5 minutes, then 2 to 3 minutes more, and give 15 grams of sugar.") == []


def test_a_contradiction_phrase_inside_a_negation_or_another_word_is_not_one() -> None:
    burns = LIBRARY.cards[("burns", "en")]
    assert contradictions("1. Do not put ice, butter, oil or toothpaste on the burn.", burns) == []
    assert contradictions("1. Keep nice and calm.", burns) == []
    assert contradictions("1. Keep calm, then put ice on it.", burns) == [
        Failure("contradiction", "says 'put ice', which contradicts card burns")
    ]


@pytest.mark.parametrize(
    "card", [card for card in LIBRARY.cards.values() if card.contradictions], ids=lambda c: f"{c.id}.{c.language}"
)
def test_every_contradiction_is_caught_and_no_card_contradicts_itself(card: Card) -> None:
    for phrase in card.contradictions:
        assert [failure.kind for failure in contradictions(f"1. {phrase.capitalize()}.", card)] == ["contradiction"]
    assert contradictions(card.read_aloud(), card) == []
    assert contradictions("\n".join(card.do_not), card) == []


def test_the_language_is_told_apart_without_the_headings() -> None:
    assert written_language("SUMMARY: Un hombre no respira.\nKEY FACTS:\n- Hombre de 60 años") == "es"
    assert written_language("SUMMARY: A man is not breathing.\nKEY FACTS:\n- Man, 60") == "en"


def test_a_language_the_checker_cannot_tell_is_not_held_against_the_answer() -> None:
    assert check_guidance(GOOD_EN, CPR_EN, "de").passed
    assert [failure.kind for failure in check_guidance(GOOD_EN, CPR_EN, "fr").failures] == ["language"]


def test_the_engine_worker_can_load_the_checkers_language_models_before_any_answer() -> None:
    _detector.cache_clear()
    load_language_models()
    assert (_detector.cache_info().currsize, written_language("Start chest compressions now, push hard.")) == (1, "en")
