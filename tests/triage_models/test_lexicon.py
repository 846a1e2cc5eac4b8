"""Tokens and their keys: contractions split, lemmas for irregular forms, stems, accents restored for the dictionary."""

from __future__ import annotations

from triage_models.lexicon import tokenize, word_keys


def test_tokenize_splits_contractions_into_their_words() -> None:
    tokens = tokenize("he isn't breathing, can't wake him", ("en",))
    assert [token.text for token in tokens] == ["he", "is", "not", "breathing", ",", "can", "not", "wake", "him"]
    assert [token.index for token in tokens] == list(range(9))
    assert (tokens[1].start, tokens[1].end, tokens[2].start, tokens[2].end) == (3, 8, 3, 8)


def test_word_keys_join_irregular_forms_to_their_lemma() -> None:
    assert "take" in word_keys("took", ("en",))
    assert "bleed" in word_keys("bled", ("en",))
    assert "caer" in word_keys("cayó", ("es",))
    assert "doler" in word_keys("duele", ("es",))


def test_word_keys_join_a_noun_and_its_verb_through_the_stem() -> None:
    assert word_keys("breathing", ("en",)) & word_keys("breathe", ("en",)) == {"breath"}


def test_word_keys_of_an_unaccented_spanish_preterite_try_the_accent() -> None:
    assert "morir" in word_keys("murio", ("es",))


def test_word_keys_leave_out_short_stems_and_keep_pronouns_as_written() -> None:
    assert word_keys("morado", ("es",)).isdisjoint(word_keys("morir", ("es",)))
    assert word_keys("mi", ("es",)) == frozenset({"mi"})


def test_tokenize_gives_the_dictionary_the_accented_word() -> None:
    folded, accented = tokenize("se cayo", ("es",), "se cayó")
    assert "caer" in accented.keys and folded.text == "se"
