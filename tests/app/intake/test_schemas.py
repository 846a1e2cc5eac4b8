"""The intake message: what it accepts is what the classifier takes, and it stores nothing a database refuses."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from app.intake.cleaning import EMPTY_TEXT_REASON
from app.intake.schemas import IntakeMessage, refusals
from triage_models.text import InvalidMessageError, coerce_text


@pytest.mark.parametrize(
    "text",
    ["", "   ", "\u0000", "\u200b", "\x07\x1b\x7f", "\u00ad\ufeff\t\n", "\u0000\u200b \r\n\u2060", "\ud800"],
)
def test_text_empty_once_cleaned_is_refused_with_the_reason(text: str) -> None:
    with pytest.raises(ValidationError) as refused:
        IntakeMessage(text=text)
    assert refusals(refused.value) == [("text", EMPTY_TEXT_REASON)]


def test_nul_is_removed_from_every_stored_string_and_the_rest_kept_as_sent() -> None:
    message = IntakeMessage(
        text="Chest\u0000 pain,\u200b short of breath\x07",
        caller="Ann\u0000",
        location="\u00001 Main St",
        call_id="c-\u00001",
    )
    assert (message.text, message.caller, message.location, message.call_id) == (
        "Chest pain,\u200b short of breath\x07",
        "Ann",
        "1 Main St",
        "c-1",
    )


def test_a_nul_only_caller_is_an_empty_caller_like_a_blank_one() -> None:
    assert IntakeMessage(text="fall", caller="\u0000").caller == IntakeMessage(text="fall", caller=" ").caller == ""


@given(st.text(max_size=40))
def test_intake_accepts_a_text_exactly_when_the_classifier_does(text: str) -> None:
    try:
        coerce_text(text)
        classifier_takes = True
    except InvalidMessageError:
        classifier_takes = False
    try:
        message = IntakeMessage(text=text)
    except ValidationError as refused:
        assert refusals(refused) == [("text", EMPTY_TEXT_REASON)]
        assert not classifier_takes
    else:
        assert classifier_takes
        coerce_text(message.text)  # what is stored is what the classify task will read


def test_a_refusal_never_quotes_the_call() -> None:
    """A validation error may reach a log (a traceback): it names the field and the reason, not what was sent."""
    with pytest.raises(ValidationError) as refused:
        IntakeMessage(text="Ann Smith at 1 Main St is not breathing", caller="+1 555 0100", received_at="soon")
    said = str(refused.value)
    assert "received_at" in said and "Ann Smith" not in said and "555" not in said and "soon" not in said
