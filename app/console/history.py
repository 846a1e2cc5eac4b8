"""Audit events in a dispatcher's words: who (names, not ids), what was done, and the change as plain before → after."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.guidance.checker import FAILURE_WORDS

ACTIONS = {
    "received": "call received",
    "classified": "triaged",
    "override": "ESI override",
    "claim": "claimed",
    "dispatch": "dispatched",
    "close": "closed",
    "note": "note",
    "template_guidance": "template guidance (queue overloaded)",
    "unclassifiable": "could not be triaged",
    "card_switch": "protocol card switched",
    "card_step": "card step marked",
    "guidance_check": "guidance refused by the checker",
    "take_over": "taken over",
    "unit_status": "unit status",
    "unit_added": "unit added",
    "unit_updated": "unit changed",
    "possible_duplicate": "possible duplicate",
    "correct": "corrected",
    "merge": "merged into another call",
    "merged": "a duplicate merged in",
}
FIELDS = {
    "esi_level": "ESI level",
    "status": "status",
    "claimed_by": "claimed by",
    "guidance_state": "guidance",
    "disposition": "disposition",
    "needs_review": "needs review",
    "model_version": "triage model",
    "call_id": "call id",
    "template": "template",
    "card": "protocol card",
    "steps_done": "card steps done",
    "entered_by": "typed by",
    "units": "units",
    "unit": "unit",
    "unit_status": "unit status",
    "type": "type",
    "station": "station",
    "possible_duplicate_of": "possible duplicate of",
    "merged_into": "merged into",
    "merged": "merged",
    "text": "text",
    "location": "address",
    "callback_number": "call-back number",
    "no_unit_on_scene": "closed with no unit on scene",
}
"""Fields shown in the change column, in this order; the others (webhook ids, the override's copy of the level, the
template's version and projection) stay in the audit log and its CSV."""
INCIDENT_FIELDS = ("possible_duplicate_of", "merged_into", "merged")
"""Fields that hold another incident's id."""
SYSTEM_ACTORS = {
    "system:classifier": "classifier",
    "system:overload": "overload shedding",
    "system:checker": "guidance checker",
}


def event_reason(action: str, after: Mapping[str, Any] | None, reason: str | None) -> str:
    """An event's reason as the history and the audit table show it: in full, except the guidance checker's
    refusal, which is one short line ("refused: contradicts the card, missing section (3 times); read the protocol
    card"): its reasons in full are on the incident for a supervisor, and in the audit CSV."""
    if action != "guidance_check":
        return reason or ""
    words: dict[str, str] = {str(kind): text for kind, text in FAILURE_WORDS.items()}
    kinds = [str(kind) for kind in (after or {}).get("failures", [])]
    counted = {kind: kinds.count(kind) for kind in dict.fromkeys(kinds)}
    listed = ", ".join(
        f"{words.get(kind, kind.replace('-', ' '))}{f' ({count} times)' if count > 1 else ''}"
        for kind, count in counted.items()
    )
    return f"refused: {listed or 'see the guidance'}; read the protocol card"


def actor_label(actor: str) -> str:
    """A user's name as is; the product's own actors in words (`system:intake:cad` is "intake (cad)")."""
    if actor.startswith("system:intake:"):
        return f"intake ({actor.removeprefix('system:intake:')})"
    return SYSTEM_ACTORS.get(actor, actor)


def action_label(action: str) -> str:
    return ACTIONS.get(action, action.replace("_", " "))


def value_label(field: str, value: Any, user_names: Mapping[str, str]) -> str:
    """One value as a dispatcher reads it."""
    if value is None or value == "":
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if field == "claimed_by":
        return user_names.get(str(value), "a removed user")
    if field in INCIDENT_FIELDS:
        return str(value)[:8]  # another incident, by its short id (as the queue and the audit name it)
    if isinstance(value, list):
        return ", ".join(str(item) for item in value) or "none"
    if isinstance(value, dict) and "id" in value:  # the card triage picked: {"id", "version", "language"}
        return str(value["id"])
    return str(value)


def describe_change(
    before: Mapping[str, Any] | None, after: Mapping[str, Any] | None, user_names: Mapping[str, str]
) -> str:
    """The fields that changed (or were set), `status: new → claimed; claimed by: dana`."""
    before, after = before or {}, after or {}
    parts = []
    for field, label in FIELDS.items():
        if field not in after:
            continue
        new = value_label(field, after[field], user_names)
        if field not in before:
            if after[field] not in (None, ""):  # a value set, not one left empty ("call id: none" says nothing)
                parts.append(f"{label}: {new}")
            continue
        old = value_label(field, before[field], user_names)
        if old != new:
            parts.append(f"{label}: {old} → {new}")
    return "; ".join(parts)


def claimed_by_ids(events: list[dict[str, Any]]) -> set[str]:
    """The user ids the events name (to look their names up in one query)."""
    return {
        str(change["claimed_by"])
        for event in events
        for change in (event.get("before") or {}, event.get("after") or {})
        if change.get("claimed_by")
    }


def action_choices() -> list[tuple[str, str]]:
    """The audit search's action filter: (words, stored action), any action first."""
    return [("any", ""), *((label, action) for action, label in ACTIONS.items())]
