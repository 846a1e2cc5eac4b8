"""Card files: every shipped one validates; a broken one is refused naming its file and field."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from app.guidance.cards import NOT_REVIEWED, CardError, load_library, read_card
from app.guidance.cards.library import SHIPPED_DIR

CARD = """\
id = "seizure"
version = "2026.11.1"
title = "Seizure"
language = "en"
rule_ids = ["B-SEIZURE"]
basis = "Epilepsy Foundation seizure first aid"
reviewed_by = ""
reviewed_on = ""
steps = ["Stay with the person."]
"""


def _write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


def _problems(directory: Path) -> list[str]:
    with pytest.raises(CardError) as refused:
        load_library(directory)
    return list(refused.value.problems)


def test_every_shipped_card_file_validates_with_its_name_from_id_and_language() -> None:
    library = load_library(SHIPPED_DIR)
    files = sorted(path.name for path in SHIPPED_DIR.glob("*.toml"))
    assert sorted(f"{card_id}.{language}.toml" for card_id, language in library.cards) == files
    assert len(files) == 64


def test_every_clinical_card_has_both_languages_and_names_its_basis() -> None:
    library = load_library(SHIPPED_DIR)
    clinical = {card.id for card in library.cards.values() if card.template is None}
    assert len(clinical) == 29
    for card_id in clinical:
        english, spanish = library.cards[(card_id, "en")], library.cards[(card_id, "es")]
        assert english.contradictions and spanish.contradictions and english.key_questions
        assert english.review_state == spanish.review_state == NOT_REVIEWED


def test_a_card_with_bad_fields_is_refused_naming_the_file_and_each_field(tmp_path: Path) -> None:
    broken = CARD.replace('rule_ids = ["B-SEIZURE"]', 'rule_ids = ["B-SEIZURES"]\nage_band = "toddler"')
    _write(tmp_path, "seizure.en.toml", broken.replace('steps = ["Stay with the person."]\n', ""))
    assert _problems(tmp_path) == [
        "seizure.en.toml: rule_ids: unknown red-flag rule ids B-SEIZURES (see `triage-dispatch triage protocols list`)",
        "seizure.en.toml: age_band: Input should be 'adult', 'child', 'infant' or 'any'",
        "seizure.en.toml: steps: Field required",
    ]


def test_a_card_file_named_for_another_card_or_language_is_refused(tmp_path: Path) -> None:
    _write(tmp_path, "seizure.es.toml", CARD)
    assert _problems(tmp_path) == [
        "seizure.es.toml: id and language: the file of card 'seizure' in en is seizure.en.toml"
    ]


def test_a_file_that_is_not_toml_is_refused(tmp_path: Path) -> None:
    _write(tmp_path, "seizure.en.toml", CARD.replace('title = "Seizure"', "title = Seizure"))
    [problem] = _problems(tmp_path)
    assert problem.startswith("seizure.en.toml: cannot be read as TOML: ")


def test_a_step_too_long_to_read_in_one_breath_is_refused(tmp_path: Path) -> None:
    _write(tmp_path, "seizure.en.toml", CARD.replace("Stay with the person.", "x" * 201))
    assert _problems(tmp_path) == ["seizure.en.toml: steps: step 1 has 201 characters; at most 200 (split it)"]


def test_a_translation_must_match_its_english_card(tmp_path: Path) -> None:
    _write(tmp_path, "seizure.en.toml", CARD)
    spanish = CARD.replace('language = "en"', 'language = "es"').replace('rule_ids = ["B-SEIZURE"]', "priority = 7\n")
    _write(tmp_path, "seizure.es.toml", spanish.replace('rule_ids = ["B-SEIZURE"]', ""))
    _write(tmp_path, "stroke.es.toml", CARD.replace('"seizure"', '"stroke"').replace('"en"', '"es"'))
    assert _problems(tmp_path) == [
        "seizure.es.toml: rule_ids: a card needs the red-flag rules that pick it (or a [template] table)",
        "stroke.es.toml: id: no English card stroke.en.toml to translate",
    ]


def test_a_translation_with_other_selection_fields_is_refused(tmp_path: Path) -> None:
    _write(tmp_path, "seizure.en.toml", CARD)
    spanish = CARD.replace('language = "en"', 'language = "es"\npriority = 7\nage_band = "child"')
    _write(tmp_path, "seizure.es.toml", spanish)
    assert _problems(tmp_path) == [
        "seizure.es.toml: age_band: differs from seizure.en.toml",
        "seizure.es.toml: priority: differs from seizure.en.toml",
    ]


def test_review_needs_both_who_and_when(tmp_path: Path) -> None:
    path = _write(tmp_path, "seizure.en.toml", CARD.replace('reviewed_by = ""', 'reviewed_by = "Dr. Rivera"'))
    with pytest.raises(CardError, match=r"^seizure\.en\.toml: reviewed_by and reviewed_on: fill both"):
        read_card(path)


def test_a_reviewed_card_says_who_reviewed_it_and_when(tmp_path: Path) -> None:
    reviewed = CARD.replace('reviewed_by = ""', 'reviewed_by = "Dr. Rivera"').replace(
        'reviewed_on = ""', "reviewed_on = 2026-11-20"
    )
    card = read_card(_write(tmp_path, "seizure.en.toml", reviewed))
    assert (card.reviewed, card.reviewed_on) == (True, datetime.date(2026, 11, 20))
    assert card.review_state == "reviewed by Dr. Rivera on 2026-11-20"


def test_an_empty_directory_is_not_a_library(tmp_path: Path) -> None:
    assert _problems(tmp_path) == [f"{tmp_path}: holds no card files (*.toml)"]
    assert _problems(tmp_path / "missing") == [f"{tmp_path / 'missing'}: not a directory of card files"]


def test_a_combined_card_reads_only_the_situations_the_call_names() -> None:
    library = load_library(SHIPPED_DIR)
    heat_cold = library.cards[("heat-cold", "en")]
    heat = heat_cold.for_call("He was working in the sun all day, now he is confused and his skin is hot")
    assert heat.steps[:2] == (
        "Move them out of the sun, into the shade or a cool room, and take off extra clothing.",
        "If you can, put them in a tub of cold water up to the neck, and hold their head above the water.",
    )
    assert not any("warm" in step.lower() for step in heat.steps)
    assert heat.do_not == ("Do not give anything to drink if they are confused or not awake.",)
    cold = heat_cold.for_call("Grandpa was out in the snow, he is confused and stopped shivering")
    assert cold.steps[0] == "Move them inside, or out of the wind, and handle them gently."
    assert not any("ice packs" in step or "cold water" in step for step in cold.steps)
    frio = library.cards[("heat-cold", "es")].for_call("Mi abuelo estuvo afuera en la nieve, está muy frío")
    assert frio.steps[0] == "Métala a un lugar cerrado, o fuera del viento, y muévala con cuidado."
    pregnancy = library.cards[("pregnancy-emergency", "en")]
    fit = pregnancy.for_call("She is 34 weeks pregnant and she is having a seizure")
    assert fit.steps[2] == "If she has a fit, move things away so she does not hit them. Do not hold her down."
    assert not any(step.startswith("If the baby is born") for step in fit.steps)
    after = pregnancy.for_call("She gave birth an hour ago and is soaking pads")
    assert not any("a fit," in step and step.startswith("If she") for step in after.steps)
    assert after.steps[-2] == (
        "If the baby is born, rub her lower belly firmly in circles, below the belly button, until it is firm."
    )
    unknown = heat_cold.for_call("Something happened to my dad")  # names none: the whole card, marks taken off
    assert len(unknown.steps) == len(heat_cold.steps) and not any(step.startswith("[") for step in unknown.steps)


def test_a_single_situation_card_reads_whole() -> None:
    drowning = load_library(SHIPPED_DIR).cards[("drowning", "en")]
    pool = drowning.for_call("My four-year-old was under the water in the pool, he is not breathing")
    assert pool == drowning
    assert not any("hanging" in step or "power" in step for step in pool.steps)
    assert pool.steps[:2] == (
        "Do not put yourself in danger.",
        "Reach or throw something to a person in the water. Do not swim out unless you are trained.",
    )


def test_a_situation_mark_must_be_declared_and_used(tmp_path: Path) -> None:
    source = (SHIPPED_DIR / "chest-pain.en.toml").read_text(encoding="utf-8")
    marked = source.replace('"Loosen tight clothing', '"[cold] Loosen tight clothing')
    (tmp_path / "chest-pain.en.toml").write_text(marked, encoding="utf-8")
    assert _problems(tmp_path) == [
        "chest-pain.en.toml: only_when: items are marked [cold] but no such situation is declared"
    ]
    (tmp_path / "chest-pain.en.toml").write_text(source + '\n[only_when]\ncold = ["winter"]\n', encoding="utf-8")
    assert _problems(tmp_path) == ["chest-pain.en.toml: only_when: situations cold mark no question, step or do-not"]
