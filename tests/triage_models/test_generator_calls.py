"""Tests for call-style training text: speech-to-text transcripts, bystanders, Spanish callers, interpreters."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from triage_models.generator import (
    ASR_MISSPELLINGS,
    BYSTANDER_SIGHTS,
    CALL_STYLES,
    DISTRACTORS,
    SCENARIOS,
    STYLES,
    GeneratedMessage,
    as_spoken,
    generate,
    level_for_resources,
)
from triage_models.generator_es import NEGATED, SPANISH, Persona, as_transcribed, spanish_call

BY_NAME = {scenario.name: scenario for scenario in SCENARIOS}
SPANISH_FUNCTION_WORDS = {"el", "la", "de", "que", "y", "no", "mi", "se", "le", "en", "un", "una", "tiene", "está"}
ENGLISH_SCAFFOLD = {"the", "and", "is", "he", "she", "his", "caller", "says", "states", "years", "old", "with", "has"}
ENGLISH_WORDS = {"the", "caller", "says", "reports", "states", "he", "she", "is", "and", "interpreter"}
SPANISH_ONLY_WORDS = {"está", "esta", "tiene", "que", "mi", "por", "favor", "ayúdeme", "años"}


@pytest.fixture(scope="module")
def messages() -> list[GeneratedMessage]:
    return list(generate(6000, seed=0))


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-záéíóúüñ]+", text.lower()))


def _assert_language(messages: list[GeneratedMessage], some_of: set[str], none_of: set[str]) -> None:
    """Each message has some of the words of its language and none of the other's."""
    for message in messages:
        words = _words(message.text)
        assert words & some_of and not words & none_of, message.text


def test_every_scenario_has_spanish_phrasings_that_render_in_both_genders() -> None:
    assert set(SPANISH) == set(BY_NAME)
    for name, phrasing in SPANISH.items():
        assert len(phrasing.complaints) >= 2, name
        for female in (False, True):
            for template in (*phrasing.complaints, *phrasing.details):
                rendered = Persona(female).fill(template, "mi hijo", 3)
                assert "{" not in rendered and "}" not in rendered, (name, template)
        if BY_NAME[name].details:
            assert phrasing.details, name  # Spanish details where the English scenario has details


def test_every_distractor_has_a_spanish_wording() -> None:
    assert set(NEGATED) == {text for text, _ in DISTRACTORS}
    rng = random.Random(4)
    text = spanish_call("ankle-injury", 4, True, 30, None, rng, negated=("alert and talking", "no fever"))
    assert re.search(r"est[aá] despierta y hablando", text) and "no tiene calentura" in text


def test_spanish_gender_placeholders_agree_with_the_patient() -> None:
    template = "a {quien} l{o} atropelló un carro, está cansad{o} y {el} no habla"
    assert Persona(False).fill(template, "el niño de mi vecina", 2) == (
        "al niño de mi vecina lo atropelló un carro, está cansado y él no habla"
    )
    assert Persona(True).fill(template, "mi hija", 2) == "a mi hija la atropelló un carro, está cansada y ella no habla"
    assert Persona(True).fill("marca el pulso, se queja de el brazo", "", 2) == "marca el pulso, se queja del brazo"


@pytest.mark.parametrize("female", [False, True])
def test_every_scenario_renders_a_spanish_call(female: bool) -> None:
    rng = random.Random(7)
    for scenario in SCENARIOS:
        if (scenario.female_only and not female) or (scenario.male_only and female):
            continue
        age = scenario.ages[0]
        text = spanish_call(scenario.name, scenario.esi_level, female, age, None, rng)
        assert "{" not in text and _words(text) & SPANISH_FUNCTION_WORDS, text
        assert not _words(text) & ENGLISH_SCAFFOLD, text


def test_spanish_readings_name_the_abnormal_vital_signs() -> None:
    vitals = {"hr": 138, "rr": 18, "spo2": 97, "sbp": 82, "dbp": 50, "temp": 37.0}
    rng = random.Random(0)
    texts = [spanish_call("danger-vitals", 2, True, 70, (vitals, {"hr", "sbp"}), rng) for _ in range(40)]
    punctuated = [text for text in texts if "." in text]
    assert punctuated and all("El aparato marca el pulso en 138 y la presión en 82 sobre 50." in t for t in punctuated)
    assert all({"pulso", "138", "82", "sobre", "50"} <= set(text.split()) for text in texts if text not in punctuated)


def test_a_transcriber_types_spanish_lower_case_without_punctuation() -> None:
    rng = random.Random(1)
    typed = [
        as_transcribed("¿Mi mamá está inconsciente? ¡No respira! Tiene 38.4 de calentura.", rng) for _ in range(50)
    ]
    for text in typed:
        assert re.fullmatch(r"[a-záéíóúüñ0-9 ]+", text), text
        assert {"38", "punto", "4"} <= set(text.split()), text
    joined = " ".join(typed)
    assert "mi mama" in joined and "esta inconsciente" in joined  # accents dropped
    assert "mi mamá" in joined or "está" in joined  # but not always
    assert re.search(r"\b(este|eh|o sea|pues|mire|ay|bueno)\b", joined)


def test_each_style_appears_and_call_style_text_is_about_half(messages: list[GeneratedMessage]) -> None:
    styles = Counter(message.style for message in messages)
    assert set(styles) == set(STYLES)
    assert set(CALL_STYLES) == {"caller", "transcript", "bystander", "spanish", "interpreter"}
    calls = sum(styles[style] for style in CALL_STYLES)
    assert 0.45 * len(messages) <= calls <= 0.6 * len(messages)
    assert styles["triage-note"] >= 0.22 * len(messages)
    assert all(styles[style] >= 0.04 * len(messages) for style in STYLES)
    assert {style for style in styles if style not in CALL_STYLES} == {"crew", "nurse", "triage-note"}
    assert set(Counter(message.style for message in generate(400, seed=2))) == set(STYLES)


def test_only_spanish_messages_are_in_spanish(messages: list[GeneratedMessage]) -> None:
    languages = Counter((message.style, message.language) for message in messages)
    assert {language for (style, language) in languages if style == "spanish"} == {"es"}
    assert {language for (style, language) in languages if style != "spanish"} == {"en"}


def test_spanish_messages_are_spanish_and_half_are_typed_as_heard(messages: list[GeneratedMessage]) -> None:
    spanish = [message for message in messages if message.style == "spanish"]
    assert len(spanish) > 400
    _assert_language(spanish, SPANISH_FUNCTION_WORDS, ENGLISH_SCAFFOLD)
    typed = [message.text for message in spanish if re.fullmatch(r"[a-záéíóúüñ0-9 ]+", message.text)]
    assert 0.35 * len(spanish) <= len(typed) <= 0.65 * len(spanish)
    assert {message.esi_level for message in spanish} == {1, 2, 3, 4, 5}
    assert len({message.scenario for message in spanish}) >= 0.9 * len(BY_NAME)  # each renders: a test above


def test_interpreter_messages_are_english_relays(messages: list[GeneratedMessage]) -> None:
    relayed = [message for message in messages if message.style == "interpreter"]
    assert len(relayed) > 150
    _assert_language(relayed, ENGLISH_WORDS, SPANISH_ONLY_WORDS)
    named = [message for message in relayed if re.search(r"\binterpreter\b", message.text, re.IGNORECASE)]
    assert len(named) >= 0.8 * len(relayed)  # the others have a typo in the word
    assert {message.esi_level for message in relayed} == {1, 2, 3, 4, 5}


def test_transcripts_have_no_upper_case_or_punctuation_and_are_disfluent(messages: list[GeneratedMessage]) -> None:
    transcripts = [message.text for message in messages if message.style == "transcript"]
    assert len(transcripts) > 500
    for text in transcripts:
        assert re.fullmatch(r"[a-z0-9 ]+", text), text
    joined = " ".join(transcripts)
    assert re.search(r"\b(uh|um|like|you know|okay so)\b", joined)
    assert re.search(r"\b(hes|shes|cant|wont|dont|isnt|doesnt)\b", joined)
    assert re.search(r"\b(he|she) aint\b", joined)
    assert re.search(r"\b(\w+) \1\b", joined)  # "my my dad"
    assert re.search(r"\b(\w+ \w+) \1\b", joined)  # "hes not hes not breathing"
    misheard = {variant for variants in ASR_MISSPELLINGS.values() for variant in variants}
    assert sum(any(f" {word} " in f" {text} " for word in misheard) for text in transcripts) > 20


def test_speech_to_text_writes_words_and_numbers_as_said() -> None:
    text = "He is not breathing, BP 80/50. Pain 9/10, temp 38.4, SpO2 88%! She isn't, can't"
    assert as_spoken(text) == (
        "hes not breathing bp 80 over 50 pain 9 out of 10 temp 38 point 4 spo2 88 percent she isnt cant"
    )
    assert as_spoken("He is not awake, he isn't moving", aint=True) == "he aint awake he aint moving"


def test_bystanders_describe_a_stranger_from_outside(messages: list[GeneratedMessage]) -> None:
    bystanders = [message for message in messages if message.style == "bystander"]
    assert len(bystanders) > 150
    relatives = re.compile(r"\bmy (husband|wife|son|daughter|father|mother|child|grandson|granddaughter)\b", re.I)
    opener = re.compile(r"(there's|I'm driving by and there's|I see) ", re.IGNORECASE)
    for message in bystanders:
        assert message.scenario in BYSTANDER_SIGHTS, message.scenario
        assert not relatives.search(message.text), message.text
    assert sum(bool(opener.match(message.text)) for message in bystanders) >= 0.8 * len(bystanders)  # or a typo
    assert {message.esi_level for message in bystanders} == {1, 2, 3, 4, 5}
    assert set(BYSTANDER_SIGHTS) <= set(BY_NAME)
    assert not {"pregnancy-bleeding", "testicular-pain", "urinary"} & set(BYSTANDER_SIGHTS)


@pytest.mark.parametrize(
    ("name", "level"),
    [
        ("unresponsive-abnormal-breathing", 1),
        ("silent-choking", 1),
        ("seizure-cyanotic", 1),
        ("barely-responsive", 1),
        ("child-breathing-distress", 1),
        ("hemorrhagic-shock", 1),
        ("choked-resolved", 5),
        ("nosebleed-stopped", 5),
        ("fainted-sight-of-blood", 4),
        ("admin-question", 5),
        ("history-refill", 5),
        ("minor-injury-family-history", 4),
        ("bp-reading-no-symptoms", 5),
        ("small-scrape", 5),
        ("stubbed-toe", 5),
    ],
)
def test_new_scenarios_have_their_level(name: str, level: int, messages: list[GeneratedMessage]) -> None:
    scenario = BY_NAME[name]
    assert scenario.esi_level == level
    if level == 1:
        assert scenario.decision_point == "A" and not scenario.resources
    else:
        assert scenario.decision_point == "C" and level_for_resources(scenario.resources) == level
    assert sum(message.scenario == name for message in messages) >= 20


def test_minor_calls_use_scary_words() -> None:
    said = {
        name: " ".join(BY_NAME[name].complaints).lower()
        for name in ("choked-resolved", "admin-question", "history-refill", "minor-injury-family-history")
    }
    assert "choked" in said["choked-resolved"] and "talking normally" in said["choked-resolved"]
    assert all(word in said["admin-question"] for word in ("cpr", "seizure", "cardiology", "non-emergency"))
    assert "stroke years ago" in said["history-refill"]
    assert "heart attack" in said["minor-injury-family-history"]
