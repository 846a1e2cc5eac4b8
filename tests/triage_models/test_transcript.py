"""Transcripts as the rules read them: noise out, red-flag words mended, every character traced to the original."""

from __future__ import annotations

import pytest

from triage_models.transcript import aspirated_s, correct_word, dropped_d, fold_accents, readable


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("uh my dad he um fell", "my dad he fell"),
        ("C: Um, he won't wake up", "C: he won't wake up"),
        ("he's, um, not breathing", "he's not breathing"),
        ("her wrist's got a, like, step in it, a bump", "her wrist's got a step in it, a bump"),
        ("she looks, uh, really pale", "she looks really pale"),
        ("Uh, no", "no"),
        ("hes not hes not breathing", "he's not breathing"),
        ("my my dad is like not breething", "my dad is not breathing"),
        ("he took an over dose", "he took an overdose"),
        ("he aint waking up", "he isn't waking up"),
        ("it looks like a stroke", "it looks like a stroke"),
        ("mi esposo está inconsciente", "mi esposo esta inconsciente"),
        ("habla como trabao y tiene el ojo hinchao", "habla como trabado y tiene el ojo hinchado"),
        ("comimos bacalao y cacao", "comimos bacalao y cacao"),
    ],
)
def test_readable_mends_transcripts(text: str, expected: str) -> None:
    assert readable(text).text == expected


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("breething", "breathing"),
        ("unconsious", "unconscious"),
        ("seezure", "seizure"),
        ("bleading", "bleeding"),
        ("siezure", "seizure"),
        ("stubbed", None),
        ("cooking", None),
        ("strike", None),
        ("purse", None),
        ("threat", None),
        ("chest", None),
        ("zarelto", "xarelto"),
        ("kardiac", "cardiac"),
        ("zebra", None),
    ],
)
def test_only_misspellings_are_corrected(word: str, expected: str | None) -> None:
    assert correct_word(word) == expected


def test_every_character_keeps_its_origin() -> None:
    text = "uh hes not hes not breething, um"
    reading = readable(text)
    start = reading.text.index("breathing")
    assert text[slice(*reading.span(start, start + len("breathing")))] == "breething"
    assert len(reading.origin) == len(reading.text) + 1
    assert fold_accents("Está ñoño, ÁÉÍÓÚ") == "Esta nono, AEIOU"


def test_a_misspelling_two_red_flag_words_are_as_near_to_is_left_as_said() -> None:
    # "mandarme" (send me) is one edit from "mandar" and from "matarme": no guess, and the same answer every run
    assert correct_word("mandarme", ("es",)) is None
    assert correct_word("breething", ("en",)) == "breathing"


def test_a_word_of_wound_care_is_no_misspelling() -> None:
    # "steri" is one edit from "stemi": an aide's steri-strips on a skin tear were read as a heart attack
    assert correct_word("steri", ("en",)) is None
    said = "the aide put steri-strips on, it still oozes"
    assert readable(said).text == said
    # a texter's dash is no compound: the misspelling beside it is still mended
    assert readable("he's not breething-please hurry").text == "he's not breathing-please hurry"


@pytest.mark.parametrize(
    ("word", "expected"),
    [("trabao", "trabado"), ("golpeaos", "golpeados"), ("desmayao", "desmayado"), ("bacalao", None), ("dao", None)],
)
def test_a_dropped_spanish_d_is_restored_only_where_the_full_form_is_a_word(word: str, expected: str | None) -> None:
    assert dropped_d(word) == expected


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("ehtá", "está"),
        ("ehtamos", "estamos"),
        ("mihmo", "mismo"),
        ("dehpués", "después"),
        ("ahora", None),
        ("alcohol", None),
        ("john", None),
    ],
)
def test_an_aspirated_spanish_s_is_restored_only_where_the_full_form_is_a_word(word: str, expected: str | None) -> None:
    assert aspirated_s(word) == expected


def test_a_caribbean_caller_who_says_ehta_no_respira_is_read_as_not_breathing() -> None:
    """Set Q: "¡Mi bebé no ehtá respirando!" read nothing of breathing (ESI 1 only from the model, P 0.38)."""
    assert "no esta respirando" in readable("¡Mi bebé no ehtá respirando!", ("es",)).text
