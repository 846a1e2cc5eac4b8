"""The term notation: any word order within a clause, denials, exact forms, guards, numbers, order."""

from __future__ import annotations

import pytest

from triage_models.lexicon import tokenize
from triage_models.terms import CallIndex, TermError, compile_term, find_term


def spans(term: str, text: str, language: str = "en") -> list[str]:
    tokens = tokenize(text.lower(), (language,))
    compiled = compile_term(term, language)
    return [" ".join(t.text for t in tokens[m.first : m.last + 1]) for m in find_term(CallIndex.of(tokens), compiled)]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("my throat is closing", ["throat is closing"]),
        ("it's closing up in my throat", ["closing up in my throat"]),
        ("it's closing up, my throat", []),
        ("after the bee sting my throat feels like it's closing", ["throat feels like it is closing"]),
        ("my throat hurts and the door is closing", []),
        ("the throat. closing", []),
    ],
)
def test_an_unordered_term_finds_its_words_in_any_order_within_a_clause(text: str, found: list[str]) -> None:
    assert spans("throat close", text) == found


def test_a_spanish_term_finds_verb_forms_and_orders() -> None:
    assert spans("garganta cerrar", "se me está cerrando la garganta", "es") == ["cerrando la garganta"]
    assert spans("garganta cerrar", "se me cierra la garganta", "es") == ["cierra la garganta"]


def test_neg_needs_a_denial_just_before_its_word() -> None:
    assert spans('NEG "breathing"', "he is not really breathing") == ["not really breathing"]
    assert spans('NEG "breathing"', "not sure what happened, he is breathing") == []


def test_an_exact_form_does_not_match_other_forms() -> None:
    assert spans('NEG "breathing"', "i can't breathe") == []


def test_guards_refuse_a_match_after_or_before_their_words() -> None:
    assert spans("!wake|woke gasp !for", "she woke up gasping") == []
    assert spans("!wake|woke gasp !for", "he's gasping for air") == []
    assert spans("!wake|woke gasp !for", "he collapsed and is gasping") == ["gasping"]


def test_a_guard_word_between_a_terms_words_refuses_the_match() -> None:
    assert spans("= turning blue !black", "my toe is turning black and blue") == []
    assert spans("lips|mouth blue !stuff", "there's blue stuff on his mouth") == []
    assert spans("lips|mouth blue !stuff", "his lips look blue") == ["lips look blue"]
    assert spans("= turning blue !black", "her lips are turning kind of blue") == ["turning kind of blue"]
    assert spans("= turning blue", "my toe is turning black and blue") == ["turning black and blue"]


def test_an_ordered_term_keeps_its_order() -> None:
    assert spans("= stop breathe", "he stopped breathing") == ["stopped breathing"]
    assert spans("= stop breathe", "breathing stopped") == []


@pytest.mark.parametrize(
    ("term", "text", "found"),
    [
        ("== black out", "he blacked out at work", ["blacked out"]),
        ("== black out", "she blacks out when she stands", ["blacks out"]),
        ("== black out", "the black angus got out", []),
        ("= black out", "the black angus got out", ["black angus got out"]),
        ("== he was out", "he was out about thirty seconds", ["he was out"]),
        ("== he was out", "he was freaking out", []),
        ("== will NEG wake", "he won't wake up", ["will not wake"]),
        ("== will NEG wake", "he will really not wake", []),
        ("== take NUM pill", "she took 30 pills", ["took 30 pills"]),
        ("== take NUM pill", "she took like 30 pills", []),
    ],
)
def test_an_adjacent_term_has_nothing_between_its_words_but_its_own_neg_and_num(
    term: str, text: str, found: list[str]
) -> None:
    assert spans(term, text) == found


def test_a_written_denial_does_not_reach_past_and() -> None:
    assert spans("= sin respirar", "esta sin respirar", "es") == ["sin respirar"]
    assert spans("= sin respirar", "sin fiebre y respirando normal", "es") == []
    assert spans("= no breathing", "no fever and breathing fine") == []
    assert spans("= no breathing", "no real breathing") == ["no real breathing"]


def test_num_needs_a_number_near() -> None:
    assert spans("NUM pill", "she took thirty pills") == ["pills"]
    assert spans("NUM pill", "she took her pills") == []


@pytest.mark.parametrize(
    ("term", "reason"),
    [("NEG", "needs at least one word"), ("breathe NEG", "cannot come last"), ("a !b c", "first or last only")],
)
def test_an_unreadable_term_is_refused_with_the_reason(term: str, reason: str) -> None:
    with pytest.raises(TermError, match=reason):
        compile_term(term, "en")


@pytest.mark.parametrize(
    ("term", "text", "found"),
    [
        ("= eyes didn't open", "his eyes didn't open", ["eyes did not open"]),
        ("= eyes didn't open", "his eyes did open", []),
        ("= hasn't stopped", "the seizure hasn't stopped", ["has not stopped"]),
        ("= hasn't stopped", "he has schizophrenia and stopped his meds", []),
        ("can't breathe", "i can not breathe", ["can not breathe"]),
        ("can't breathe", "i can breathe", []),
    ],
)
def test_a_written_contraction_keeps_its_denial(term: str, text: str, found: list[str]) -> None:
    assert spans(term, text) == found


def test_a_denial_in_an_alternative_is_refused() -> None:
    with pytest.raises(TermError, match="write NEG"):
        compile_term("ex won't|refuses pay", "en")
