"""The incident tab's form: its fields, what each action reads of them and clears once done, and what it says."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

from app.auth.accounts import Principal
from app.console import service
from app.db.session import session_scope
from app.incidents.corrections import Correction, propagate_level
from app.incidents.errors import InvalidActionError
from app.incidents.overrides import propagate_close, propagate_override
from app.settings import Settings

FORM_FIELDS = (
    "level",
    "reason",
    "disposition",
    "close_reason",
    "note",
    "units",
    "take_over_reason",
    "card_choice",
    "card_reason",
    "fix_text",
    "fix_location",
    "fix_callback",
    "fix_reason",
    "merge_reason",
)
"""The form's inputs, in the order every action button sends them (after the incident id and its offered state)."""
CLEARS = {
    "take_over": ("take_over_reason",),
    "dispatch": ("units",),
    "override": ("level", "reason"),
    "close": ("close_reason",),
    "card_switch": ("card_reason",),
    "correct": ("fix_text", "fix_location", "fix_callback", "fix_reason"),
    "merge": ("merge_reason",),
    "note": ("note",),
}
"""What each action empties once done (a refused one keeps everything, so nothing typed is lost)."""
OVERRIDE_EFFECTS = {
    "waiting": ": its place in the guidance queue changed",
    "leased": ": the engine writing its guidance has the new level",
}
"""What an override changed beyond the incident (`propagate_override`); nothing to add when its guidance is done."""
DONE = {
    "claim": "Claimed.",
    "take_over": "Taken over: the dispatcher who held it is told.",
    "close": "Closed.",
    "note": "Note added.",
    "correct": "Corrected.",
    "merge": "Merged: this call is closed as a duplicate of the other.",
}


@dataclass(frozen=True, slots=True)
class IncidentForm:
    """The form's values as the browser sent them."""

    level: Any = None
    reason: str = ""
    disposition: str = ""
    close_reason: str = ""
    note: str = ""
    units: Sequence[str] = ()
    take_over_reason: str = ""
    card_choice: str = ""
    card_reason: str = ""
    fix_text: str = ""
    fix_location: str = ""
    fix_callback: str = ""
    fix_reason: str = ""
    merge_reason: str = ""

    @classmethod
    def of(cls, values: Sequence[Any]) -> IncidentForm:
        names = [field.name for field in fields(cls)]
        assert tuple(names) == FORM_FIELDS
        given = dict(zip(names, values, strict=True))
        text = {name: "" if value is None else value for name, value in given.items() if name not in ("level", "units")}
        return cls(level=given["level"], units=tuple(given["units"] or ()), **text)


def perform(
    settings: Settings, who: Principal | None, action: str, selected: str, offered: str | None, form: IncidentForm
) -> tuple[tuple[str, ...], str]:
    """Do the action (committed, then propagated to the heap and the engines where it must be); (the fields to clear,
    what it changed beyond the incident)."""
    limits = settings.free_text_limits
    corrected = None
    with session_scope(settings.database_url) as session:
        if action in ("claim", "take_over"):
            reason = form.take_over_reason if action == "take_over" else None
            service.claim(session, who, selected, offered, reason, limits)
        elif action == "dispatch":
            service.dispatch(session, who, selected, form.units, offered)
        elif action == "override":
            level = form.level if isinstance(form.level, int) else int(form.level or 0)
            service.override(session, who, selected, level, form.reason, offered, limits)
        elif action == "close":
            service.close(session, who, selected, form.disposition, offered, form.close_reason or None, limits)
        elif action == "card_switch":
            service.switch_card(session, who, selected, form.card_choice, form.card_reason, offered, limits)
        elif action == "correct":
            fix = Correction(form.fix_text, form.fix_location, form.fix_callback)
            corrected = service.correct(settings, session, who, selected, fix, form.fix_reason, offered)
        elif action == "merge":
            service.merge(session, who, selected, form.merge_reason, offered, limits)
        elif action == "note":
            service.add_note(session, who, selected, form.note, limits)
        else:
            raise InvalidActionError(f"unknown action {action}")
    effect = ""
    if action in ("close", "merge"):  # after the commit: out of the heap, and aborted in the engine serving it
        propagate_close(settings, selected)
    if action == "override":
        effect = OVERRIDE_EFFECTS.get(propagate_override(settings, selected, int(form.level)), "")
    if corrected is not None:
        propagate_level(settings, corrected)
    return CLEARS.get(action, ()), effect


def wording(action: str, form: IncidentForm, effect: str = "") -> str:
    """What a done action says."""
    if action == "dispatch":
        return f"Dispatched {', '.join(form.units)}."
    if action == "override":
        return f"Overridden to ESI {int(form.level)}{effect}."
    if action == "card_switch":
        return f"Card switched to {form.card_choice}."
    return DONE[action]


def mark_step(
    settings: Settings, who: Principal | None, selected: str, offered: str | None, number: str, done: bool
) -> str:
    """A card step clicked: marked done, or not done again."""
    if not number.isdigit():
        raise InvalidActionError("choose a step of the card")
    with session_scope(settings.database_url) as session:
        service.mark_card_step(session, who, selected, int(number), done, offered)
    return f"Step {number} marked {'done' if done else 'not done'}."


def move_unit(settings: Settings, who: Principal | None, unit: str, status: str, seen: str | None) -> str:
    """A unit's next status clicked, from the status the page showed."""
    with session_scope(settings.database_url) as session:
        service.set_unit_status(session, who, unit, status, seen)
    return f"{unit}: {status}."
