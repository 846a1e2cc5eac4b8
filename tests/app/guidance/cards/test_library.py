"""Card selection: the highest-priority card whose rules fired and whose age band fits, in the call's language."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

from app.guidance.cards import Card, age_band, load_library
from app.guidance.cards.library import SHIPPED_DIR, CardLibrary

LIBRARY = load_library(SHIPPED_DIR)
BAND_AGES = {"adult": 40.0, "child": 6.0, "infant": 0.5, "any": 40.0}


@pytest.mark.parametrize(
    ("rule_ids", "age_years", "card_id"),
    [
        (["A-NOT-BREATHING"], 45.0, "cpr-adult"),
        (["A-NO-PULSE"], None, "cpr-adult"),
        (["A-RESUSCITATION"], 6.0, "cpr-child"),
        (["A-NOT-BREATHING"], 0.5, "cpr-infant"),
        (["A-NOT-BREATHING", "B-NEONATE-ILL"], None, "cpr-infant"),
        (["A-NO-PULSE", "B-PEDIATRIC-FALL"], None, "cpr-child"),
        (["A-CHOKING"], 30.0, "choking-adult"),
        (["A-CHOKING"], 4.0, "choking-child"),
        (["A-CHOKING"], 0.3, "choking-infant"),
        (["A-CHOKING", "B-ILL-CHILD"], None, "choking-child"),
        (["A-CHOKING", "A-UNRESPONSIVE"], 30.0, "choking-unconscious"),
        (["A-CHOKING", "A-NOT-BREATHING"], 2.0, "choking-unconscious"),
        (["A-SEVERE-BLEEDING"], 30.0, "severe-bleeding"),
        (["B-PENETRATING-TRAUMA"], None, "severe-bleeding"),
        (["A-ANAPHYLAXIS"], 8.0, "anaphylaxis"),
        (["B-ANAPHYLAXIS-RISK"], None, "anaphylaxis"),
        (["B-OVERDOSE-POISONING", "A-UNRESPONSIVE"], 25.0, "opioid-overdose"),
        (["B-LARGE-INGESTION"], None, "opioid-overdose"),
        (["A-SEIZURE-ONGOING"], None, "seizure"),
        (["B-SEIZURE", "B-ALTERED-MENTAL-STATUS"], 3.0, "seizure"),
        (["A-IMMINENT-BIRTH"], 28.0, "childbirth"),
        (["A-NUCHAL-CORD", "B-BLEEDING-HEAVY"], None, "childbirth"),
        (["B-OBSTETRIC"], 28.0, "pregnancy-emergency"),  # pre-eclampsia now, not a birth
        (["B-PREGNANCY-RISK", "B-BLEEDING-HEAVY"], None, "pregnancy-emergency"),  # not pressure on a wound
        (["B-SEIZURE", "B-SEIZURE-INFANT", "B-OBSTETRIC"], 0.3, "seizure"),  # a baby is never pregnant
        (["B-STROKE-SIGNS"], 70.0, "stroke"),
        (["A-UNRESPONSIVE"], None, "unconscious-breathing"),
        (["B-MAJOR-BURN"], 40.0, "burns"),
        (["A-DROWNING", "A-NOT-BREATHING"], 5.0, "drowning"),
        (["B-DROWNING-UNKNOWN"], None, "drowning"),
        (["A-HANGING", "A-NOT-BREATHING", "B-STRANGULATION"], 40.0, "hanging"),
        (["B-STRANGULATION-BY-SOMEONE"], 30.0, "strangulation"),
        (["A-ELECTROCUTION", "A-NOT-BREATHING"], 30.0, "electrocution"),
        (["B-ELECTRICAL-INJURY", "B-MAJOR-BURN"], None, "electrocution"),
        (["A-TOXIC-EXPOSURE-UNRESPONSIVE", "A-NOT-BREATHING"], None, "toxic-gas"),
        (["B-CARBON-MONOXIDE"], None, "toxic-gas"),
        (["B-CAUSTIC-INGESTION"], 3.0, "poisoning"),
        (["B-PEDIATRIC-INGESTION", "B-OVERDOSE-POISONING"], None, "opioid-overdose"),
        (["B-SUICIDE-MEANS", "B-SUICIDAL"], 35.0, "suicide-crisis"),
        (["B-SUICIDE-ATTEMPT", "A-SELF-HARM-BLEEDING"], 35.0, "severe-bleeding"),
        (["B-TEMPERATURE-EXTREME"], 80.0, "heat-cold"),
        (["A-ARTERIAL-BLEEDING"], None, "severe-bleeding"),
        (["A-PENETRATING-SHOCK", "B-PENETRATING-TRAUMA"], 30.0, "severe-bleeding"),
        (["A-TRAUMA-SHOCK"], None, "shock"),
        (["A-FALL-UNRESPONSIVE"], 80.0, "unconscious-breathing"),
        (["B-SEIZURE-KNOWN"], 20.0, "seizure"),
        (["B-STROKE-NUMBNESS"], 70.0, "stroke"),
        (["B-HYPOGLYCEMIA-SYMPTOMS"], 50.0, "hypoglycemia"),
        (["A-AIRWAY-BURN"], 30.0, "burns"),
        (["B-SILENT-MI"], 70.0, "chest-pain"),
        (["B-HYPOGLYCEMIA-DKA"], 60.0, "hypoglycemia"),
        (["B-RESPIRATORY-DISTRESS"], None, "breathing-difficulty"),
        (["A-SEVERE-RESPIRATORY-DISTRESS"], None, "breathing-difficulty"),
        (["A-SHOCK"], None, "shock"),
        # A cardiac arrest outranks what led to it.
        (["A-ANAPHYLAXIS", "A-NOT-BREATHING"], 30.0, "cpr-adult"),
        (["B-OVERDOSE-POISONING", "A-NOT-BREATHING", "A-UNRESPONSIVE"], 30.0, "cpr-adult"),
    ],
)
def test_select_picks_the_card_for_the_rules_and_age(
    rule_ids: list[str], age_years: float | None, card_id: str
) -> None:
    for language in ("en", "es"):
        card = LIBRARY.select(rule_ids, age_years, language)
        assert card is not None
        assert (card.id, card.language) == (card_id, language)


@pytest.mark.parametrize("rule_ids", [[], ["D-HEART-RATE"], ["B-PAIN-SCORE", "B-SEVERE-PAIN"], ["C-MINOR-SHOCK-WELL"]])
def test_select_gives_no_card_to_a_call_without_a_card_rule(rule_ids: list[str]) -> None:
    assert LIBRARY.select(rule_ids, 30.0, "en") is None
    assert LIBRARY.select(rule_ids, None, "es") is None


def test_matching_lists_the_aed_card_after_cpr_then_the_lower_ones() -> None:
    found = LIBRARY.matching(["A-NO-PULSE", "B-OVERDOSE-POISONING", "A-UNRESPONSIVE"], 60.0, "es")
    assert [(card.id, card.language) for card in found] == [
        ("cpr-adult", "es"),
        ("aed", "es"),
        ("opioid-overdose", "es"),
        ("unconscious-breathing", "es"),
    ]


def _clinical() -> list[Card]:
    return [card for card in LIBRARY.cards.values() if card.template is None]


@pytest.mark.parametrize("card", _clinical(), ids=lambda card: f"{card.id}.{card.language}")
def test_every_card_is_picked_by_each_of_its_rules_in_its_band_and_language(card: Card) -> None:
    extra = card.with_rule_ids[:1]
    for rule_id in card.rule_ids:
        found = LIBRARY.matching([rule_id, *extra], BAND_AGES[card.age_band], card.language)
        assert card in found


def test_template_cards_are_never_selected_for_a_call() -> None:
    every_rule = {rule for card in LIBRARY.cards.values() for rule in card.rule_ids}
    found = LIBRARY.matching(every_rule, 40.0, "en")
    assert {card.id for card in LIBRARY.templates()}.isdisjoint(card.id for card in found)


def test_a_card_without_a_translation_comes_in_english_and_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    shutil.copy(SHIPPED_DIR / "seizure.en.toml", tmp_path)
    library = load_library(tmp_path)
    with caplog.at_level(logging.WARNING, logger="app.guidance.cards.library"):
        card = library.select(["B-SEIZURE"], None, "es")
    assert card is not None and (card.id, card.language) == ("seizure", "en")
    assert caplog.messages == ["card_language_fallback card_id=seizure wanted=es served=en"]


def test_a_language_without_cards_falls_back_to_english() -> None:
    card = LIBRARY.select(["A-CHOKING"], 30.0, "fr")
    assert card is not None and (card.id, card.language) == ("choking-adult", "en")


@pytest.mark.parametrize(
    ("age_years", "rule_ids", "band"),
    [
        (None, [], "adult"),
        (None, ["B-INFANT-FEVER"], "infant"),
        (None, ["B-NEONATAL-FEVER", "B-ILL-CHILD"], "infant"),
        (None, ["B-PEDIATRIC-INGESTION"], "child"),
        (0.02, [], "infant"),
        (0.99, [], "infant"),
        (1.0, [], "child"),
        (12.9, [], "child"),
        (13.0, [], "adult"),
        (40.0, ["B-ILL-CHILD"], "adult"),
    ],
)
def test_age_band_from_the_age_else_from_a_child_rule(age_years: float | None, rule_ids: list[str], band: str) -> None:
    assert age_band(age_years, rule_ids) == band


def test_the_library_is_read_once_from_triage_cards_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.guidance.cards import default_library
    from app.settings import get_settings

    shutil.copy(SHIPPED_DIR / "stroke.en.toml", tmp_path)
    monkeypatch.setenv("TRIAGE_CARDS_DIR", str(tmp_path))
    get_settings.cache_clear()
    default_library.cache_clear()
    try:
        library: CardLibrary = default_library()
        assert (library.directory, list(library.cards)) == (tmp_path, [("stroke", "en")])
        assert default_library() is library
    finally:
        get_settings.cache_clear()
        default_library.cache_clear()


@pytest.mark.parametrize(
    ("text", "card_id"),
    [
        ("My husband collapsed and he is not breathing, he is 62 years old", "cpr-adult"),
        ("my 8 month old baby is choking on a grape", "choking-infant"),
        ("She overdosed on heroin and she won't wake up, she is breathing", "opioid-overdose"),
        ("my son is having a seizure, he is 7 years old", "seizure"),
        ("He was stabbed in the leg and there is blood everywhere", "severe-bleeding"),
        ("pulled him out of the pool, he is not breathing, 4 year old", "drowning"),
        ("I found my brother hanging in the garage, he is not breathing", "hanging"),
        ("My boyfriend choked me, I passed out for a second and now my voice is hoarse", "strangulation"),
        ("My husband grabbed a live wire and he is not breathing", "electrocution"),
        ("There is a CO alarm going off and my whole family has headaches and feels dizzy and sleepy", "toxic-gas"),
        ("my 2 year old swallowed a button battery", "poisoning"),
        ("she is 30 weeks pregnant and bleeding heavily", "pregnancy-emergency"),
        ("My son says he wants to kill himself and he has a gun", "suicide-crisis"),
        ("he was working in the sun all day, now he is confused and not sweating, his skin is hot", "heat-cold"),
        ("His arm is spurting blood after the saw slipped", "severe-bleeding"),
        ("my dad suddenly has numbness on one side of his body", "stroke"),
        ("the baby is coming, I can see the head, crowning", "childbirth"),
        ("his face is drooping and his speech is slurred since 2 pm", "stroke"),
        ("I twisted my ankle", None),
    ],
)
def test_the_card_follows_from_the_triage_rules_on_a_calls_words(text: str, card_id: str | None) -> None:
    assert _card_for_words(text, "en") == card_id


@pytest.mark.parametrize(
    ("text", "card_id"),
    [
        ("Mi hijo se ahogó en la alberca, no respira", "drowning"),
        ("Encontré a mi hijo colgado en el closet, no respira", "hanging"),
        ("Mi pareja me estranguló, me desmayé y ahora me duele al tragar", "strangulation"),
        ("A mi esposo le dio una descarga eléctrica con un cable de luz, no responde", "electrocution"),
        ("Suena la alarma de monóxido y toda la familia tiene dolor de cabeza y mareo", "toxic-gas"),
        ("Mi hijo de 3 años se tomó cloro, está babeando y vomitando", "poisoning"),
        ("Estoy embarazada de 12 semanas y estoy sangrando mucho, me duele la barriga", "pregnancy-emergency"),
        ("Mi abuelo estuvo afuera en la nieve, está muy frío, confundido y ya no tiembla", "heat-cold"),
        ("Ya viene el bebé, ya se le ve la cabeza", "childbirth"),
        ("Me torcí el tobillo", None),
    ],
)
def test_a_spanish_call_gets_its_card_in_spanish(text: str, card_id: str | None) -> None:
    assert _card_for_words(text, "es") == card_id


@pytest.mark.parametrize(
    "text",
    [
        "we were hanging out and he got dizzy",  # not a hanging
        "I got a small shock from the toaster, I feel fine now",  # a minor shock, well
        "I smell gas in the kitchen but nobody feels sick",  # a gas smell, nobody ill
        "my son swallowed a little toothpaste, he is fine",  # a non-toxic ingestion
        "I'm 10 weeks pregnant with a little morning sickness",
    ],
)
def test_a_call_near_a_new_cards_situation_but_not_in_it_gets_no_card(text: str) -> None:
    assert _card_for_words(text, "en") is None


def _card_for_words(text: str, language: str) -> str | None:
    """The card the triage rules pick on a call's words, asserted to come in the call's language."""
    from triage_models.rules import evaluate_rules
    from triage_models.vitals import extract_vitals

    age = extract_vitals(text).age_years
    card = LIBRARY.select([hit.rule_id for hit in evaluate_rules(text)], age.value if age else None, language)
    if card is None:
        return None
    assert card.language == language
    return card.id
