"""The Spanish wording of the red-flag rules, checked on its own data: every phrase rule has it, every pattern
compiles and stays linear-time, each positive example fires its rule, each negative does not, and ordinary calls
fire nothing. A rule fires as in rules.evaluate_rules: a pattern match (and a context match) not negated within the
window before it (3 words for ESI 1, 6 otherwise), after masking red flags worded as negations ("no respira")."""

from __future__ import annotations

import re

import pytest

from triage_models.rules import PHRASE_RULES, evaluate_rules
from triage_models.rules_es import (
    SPANISH_CALM_MESSAGES,
    SPANISH_EXAMPLES,
    SPANISH_NEGATION_TRIGGERS,
    SPANISH_NEGATIVE_FORM,
    SPANISH_PSEUDO_NEGATIONS,
    SPANISH_RULES,
    SPANISH_SCOPE_BREAKERS,
)
from triage_models.transcript import fold_accents

ENGLISH = {rule.rule_id: rule for rule in PHRASE_RULES}
NEGATION = re.compile(SPANISH_NEGATION_TRIGGERS, re.IGNORECASE)
PSEUDO_NEGATION = re.compile(SPANISH_PSEUDO_NEGATIONS, re.IGNORECASE)
SCOPE_BREAK = re.compile(SPANISH_SCOPE_BREAKERS, re.IGNORECASE)
NEGATIVE_FORM = re.compile(SPANISH_NEGATIVE_FORM, re.IGNORECASE)
COMPILED = {
    rule_id: (
        [re.compile(pattern, re.IGNORECASE) for pattern in wording.patterns],
        [re.compile(pattern, re.IGNORECASE) for pattern in wording.context],
    )
    for rule_id, wording in SPANISH_RULES.items()
}


def fired(message: str) -> set[str]:
    """The rules that fire, through the product's own `evaluate_rules` (English and Spanish read as it reads them)."""
    return {hit.rule_id for hit in evaluate_rules(message) if hit.floor}


def test_every_phrase_rule_has_spanish_wording_with_context_where_the_english_has_it() -> None:
    assert set(SPANISH_RULES) == set(ENGLISH)
    assert {rule_id for rule_id, wording in SPANISH_RULES.items() if wording.context} == {
        rule_id for rule_id, rule in ENGLISH.items() if rule.context
    }


def test_every_rule_has_enough_examples() -> None:
    assert set(SPANISH_EXAMPLES) == set(ENGLISH)
    for rule_id, (positives, negatives) in SPANISH_EXAMPLES.items():
        at_least = (4, 2) if ENGLISH[rule_id].esi_level == 1 else (2, 1)
        assert len(positives) >= at_least[0] and len(negatives) >= at_least[1], rule_id


@pytest.mark.parametrize("rule_id", sorted(SPANISH_RULES))
def test_every_pattern_compiles_without_accents(rule_id: str) -> None:
    wording = SPANISH_RULES[rule_id]
    for pattern in (*wording.patterns, *wording.context):
        re.compile(pattern, re.IGNORECASE)
        assert not set("áéíóúüñ") & set(pattern.lower()), pattern


POSITIVES = [(rule_id, text) for rule_id, (positives, _) in SPANISH_EXAMPLES.items() for text in positives]
NEGATIVES = [(rule_id, text) for rule_id, (_, negatives) in SPANISH_EXAMPLES.items() for text in negatives]


@pytest.mark.parametrize(("rule_id", "text"), POSITIVES)
def test_positive_example_fires_its_rule(rule_id: str, text: str) -> None:
    assert rule_id in fired(text)


@pytest.mark.parametrize(("rule_id", "text"), NEGATIVES)
def test_negated_or_context_missing_example_does_not_fire(rule_id: str, text: str) -> None:
    assert rule_id not in fired(text)


@pytest.mark.parametrize("message", SPANISH_CALM_MESSAGES)
def test_calm_message_fires_no_rule_and_matches_no_life_threat(message: str) -> None:
    assert fired(message) == set()
    life_threats = [rule_id for rule_id, rule in ENGLISH.items() if rule.esi_level == 1]
    text = fold_accents(message.lower())
    assert [rule_id for rule_id in life_threats if any(p.search(text) for p in COMPILED[rule_id][0])] == []


def test_there_are_enough_calm_messages() -> None:
    assert len(SPANISH_CALM_MESSAGES) >= 25


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        # The call from the review: a life threat however it is wrapped.
        (
            "mi esposo no respira, por favor ayúdenme, está en el suelo y no responde",
            {"A-NOT-BREATHING", "A-UNRESPONSIVE"},
        ),
        (
            "mi esposo no respira por favor ayudenme esta en el suelo y no responde",
            {"A-NOT-BREATHING", "A-UNRESPONSIVE"},
        ),
        ("no sé qué pasó, no respira y no tiene pulso", {"A-NOT-BREATHING", "A-NO-PULSE"}),
        ("no tiene fiebre pero tiene dolor de pecho y está sudando", {"B-CHEST-PAIN-RISK"}),
        ("no tiene dolor de pecho ni falta de aire, solo tos", set()),
        ("sin fiebre, sin dolor de pecho", set()),
        ("no para de vomitar sangre", {"B-GI-BLEEDING"}),
        ("sin querer se tomó 30 pastillas", {"B-LARGE-INGESTION"}),
        ("mi papa no habla ingles le duele el pecho tiene 60 anos", {"B-CHEST-PAIN-RISK"}),
        ("le dio un ataque de pánico", set()),
        ("le dio un ataque epiléptico", {"B-SEIZURE"}),
        ("se ahoga cuando camina", set()),
    ],
)
def test_negation_scope_in_spanish(message: str, expected: set[str]) -> None:
    assert fired(message) == expected


ADVERSARIAL = [
    "a " * 10_000,
    "no " * 7_000,
    "de " * 7_000,
    "se le " * 3_500,
    "sangre " * 3_000,
    " " * 20_000,
    "x" * 20_000,
    "1" * 20_000,
    "esta " * 4_000,
    "no se " * 3_500,
    "dolor de " * 2_300,
    "embarazada " * 1_900,
]


@pytest.mark.parametrize("rule_id", sorted(SPANISH_RULES))
def test_patterns_stay_linear_on_long_adversarial_text(rule_id: str) -> None:
    # No timing: quadratic backtracking on 20,000 characters would make this test run for minutes.
    patterns, context = COMPILED[rule_id]
    for text in ADVERSARIAL:
        for pattern in (*patterns, *context):
            pattern.search(text)


def test_negation_regexes_stay_linear_on_long_adversarial_text() -> None:
    for text in ADVERSARIAL:
        for pattern in (NEGATION, PSEUDO_NEGATION, SCOPE_BREAK, NEGATIVE_FORM):
            pattern.findall(text)
