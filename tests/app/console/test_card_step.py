"""The card-step box: the next step to mark and how many are done; empty and not editable without a card."""

from __future__ import annotations

from app.console.card_step import NO_CARD_LABEL, card_step_field
from app.incidents.read_model import ProtocolCardView


def card(steps_done: list[int] | None = None, steps: int = 11) -> ProtocolCardView:
    return ProtocolCardView(
        id="cpr-adult",
        version="1",
        title="CPR",
        language="en",
        label="CPR adult",
        steps=[f"step {number}" for number in range(1, steps + 1)],
        reviewed=False,
        review_state="not reviewed",
        key_questions=[],
        do_not=[],
        steps_done=steps_done or [],
    )


def test_no_card_leaves_the_box_empty_and_not_editable() -> None:
    assert card_step_field(None) == {"value": None, "label": NO_CARD_LABEL, "interactive": False, "maximum": None}


def test_a_fresh_card_offers_step_1_of_none_done() -> None:
    assert card_step_field(card([])) == {
        "value": 1,
        "label": "Card step (0 of 11 done)",
        "interactive": True,
        "maximum": 11,
    }


def test_the_box_offers_the_first_step_not_done_and_counts_the_done_ones() -> None:
    field = card_step_field(card([1, 2, 4]))
    assert (field["value"], field["label"]) == (3, "Card step (3 of 11 done)")


def test_every_step_done_offers_the_last_to_undo() -> None:
    field = card_step_field(card([1, 2, 3], steps=3))
    assert (field["value"], field["label"]) == (3, "Card step (3 of 3 done)")
