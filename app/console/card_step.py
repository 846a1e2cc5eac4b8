"""The console's card-step box: the next step of the open incident's protocol card to mark, and how many are done."""

from __future__ import annotations

from typing import Any

from app.incidents.read_model import ProtocolCardView

NO_CARD_LABEL = "Card step (no protocol card)"


def next_step(card: ProtocolCardView) -> int:
    """The first step not marked done; the last step when every one is (the box then undoes it, one click)."""
    done = set(card.steps_done)
    return next((number for number in range(1, len(card.steps) + 1) if number not in done), len(card.steps))


def card_step_field(card: ProtocolCardView | None) -> dict[str, Any]:
    """The box's value and label for an incident's card (`card_view`): the next step to mark and "3 of 11 done";
    empty and not editable without a card, so nothing shows as an error when nothing is wrong."""
    if card is None:
        return {"value": None, "label": NO_CARD_LABEL, "interactive": False, "maximum": None}
    total = len(card.steps)
    return {
        "value": next_step(card),
        "label": f"Card step ({len(card.steps_done)} of {total} done)",
        "interactive": True,
        "maximum": total,
    }
