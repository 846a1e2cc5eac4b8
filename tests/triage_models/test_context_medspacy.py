"""medspaCy's ConText as a context reader: its default rules' modifiers, mapped to ours, read once per text."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip(
    "medspacy",
    reason="medspaCy is not installed: it is the optional context-compare extra (pip install -e '.[context-compare]' "
    "then make context-compare), which CI does not install",
)

from triage_models.context import Context
from triage_models.context_medspacy import MedspacyContext, load_pipeline
from triage_models.rules import evaluate_rules


@pytest.fixture(scope="module")
def nlp() -> Any:
    return load_pipeline()


def _span(text: str, finding: str) -> tuple[int, int]:
    start = text.index(finding)
    return start, start + len(finding)


def _read(reader: MedspacyContext, text: str, finding: str) -> tuple[set[str], bool, Context | None]:
    start, end = _span(text, finding)
    return (
        reader.categories(text, start, end),
        reader.negated(text, text, start, end, 6),
        reader.context(text, start, end),
    )


def test_denies_chest_pain_is_negated(nlp: Any) -> None:
    assert _read(MedspacyContext(nlp=nlp), "patient denies chest pain", "chest pain") == (
        {"NEGATED_EXISTENCE"},
        True,
        None,
    )


def test_history_of_stroke_is_historical(nlp: Any) -> None:
    assert _read(MedspacyContext(nlp=nlp), "history of stroke", "stroke") == ({"HISTORICAL"}, False, Context.HISTORICAL)


def test_if_he_has_a_seizure_is_hypothetical(nlp: Any) -> None:
    assert _read(MedspacyContext(nlp=nlp), "what do i do if he has a seizure", "seizure") == (
        {"HYPOTHETICAL"},
        False,
        Context.HYPOTHETICAL,
    )


def test_family_experiencer_is_historical_unless_ignored(nlp: Any) -> None:
    text = "my father had a stroke"
    assert _read(MedspacyContext(nlp=nlp), text, "stroke") == ({"FAMILY"}, False, Context.HISTORICAL)
    assert _read(MedspacyContext(family_is_other=False, nlp=nlp), text, "stroke") == ({"FAMILY"}, False, None)


def test_resolved_is_read_as_negated_and_possible_as_now(nlp: Any) -> None:
    reader = MedspacyContext(nlp=nlp)
    assert _read(reader, "chest pain now resolved", "chest pain") == ({"NEGATED_EXISTENCE"}, True, None)
    assert _read(reader, "worried about a stroke", "stroke") == ({"POSSIBLE_EXISTENCE"}, False, None)


def test_negation_is_read_in_the_masked_text(nlp: Any) -> None:
    text = "he is not moving, chest pain"
    masked = "he is xxxxxxxxxx, chest pain"
    start, end = _span(text, "chest pain")
    reader = MedspacyContext(nlp=nlp)
    assert reader.negated(text, text, start, end, 6) is True  # "not" reaches the end of its sentence
    assert reader.negated(text, masked, start, end, 6) is False


class _CountingPipeline:
    """The real pipeline, counting the texts it reads."""

    def __init__(self, nlp: Any) -> None:
        self.nlp = nlp
        self.texts: list[str] = []

    def __call__(self, text: str) -> Any:
        self.texts.append(text)
        return self.nlp(text)


def test_each_text_is_read_once(nlp: Any) -> None:
    counting = _CountingPipeline(nlp)
    reader = MedspacyContext(nlp=counting)
    text = "my husband collapsed he is not breathing and has no pulse"
    for finding in ("collapsed", "not breathing", "no pulse", "collapsed"):
        start, end = _span(text, finding)
        reader.negated(text, text, start, end, 3)
        reader.context(text, start, end)
    assert counting.texts == [text]


def test_rules_read_by_medspacy(nlp: Any) -> None:
    family, no_family = MedspacyContext(nlp=nlp), MedspacyContext(family_is_other=False, nlp=nlp)
    rule_ids = [[hit.rule_id for hit in evaluate_rules(text, None, reader)] for reader in (family, no_family)
                for text in ("my husband is not breathing", "he is not moving, they are doing CPR")]  # fmt: skip
    # The caller's husband is a FAMILY experiencer; "not" negates to the end of the sentence, CPR included.
    assert rule_ids == [[], [], ["A-NOT-BREATHING"], []]
    assert (family.name, no_family.name) == ("medspacy", "medspacy-no-family")
