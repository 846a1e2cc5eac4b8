"""An incident as a NENA EIDO JSON document (NENA-STA-021.1b): the mapping from its read model (docs/eido.md)."""

from __future__ import annotations

import datetime as dt
import html
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.incidents.read_model import EventView, GuidanceView, IncidentDetail, ProtocolCardView
from app.incidents.reading import USER_ID_FIELDS

EIDO_VERSION = "1.0"
DEFAULT_AGENCY_ID = "psap.invalid"
"""The Agency Identifier (a domain, NENA-STA-010) the documents are issued under until a deployment names its own."""
INCIDENT_TYPE_COMMON = "SICK"
"""EIDO-IncidentType-Common: the product does not classify the APCO incident type; every incident is an EMS call."""
AGENCY_TYPES = ("psap", "ems")
AGENCY_ROLES = ("CallReceiving", "Dispatching")
AGENT_ROLES = {"call-taker": "Call Taking", "dispatcher": "Dispatching", "supervisor": "Supervisor"}
"""A user's role: its Agent Role; `system:*` actors are automatons, anyone else (no user row) is "Unknown"."""
STATUS_COMMON = {
    "new": ("Active",),
    "claimed": ("Active",),
    "dispatched": ("Active", "ResourcesAssigned"),
    "closed": ("Closed",),
}
"""The incident's status: its EIDO-IncidentStatus-Common values."""
DISPOSITION_CODES = {
    "transported": "45",
    "treated on scene": "43",
    "no patient found": "38",
    "refused care": "42",
    "duplicate call": "22",
}
"""A close's disposition: its EIDO-CommonDispositionCode (APCO ANS 1.111.2); "other" has none and is only a note."""
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


@dataclass(frozen=True, slots=True)
class _Ids:
    """The document's identifiers: stable for an incident, so every EIDO for it names its components alike."""

    incident_id: str
    agency_id: str

    @property
    def unique(self) -> str:
        return "".join(ch for ch in self.incident_id if ch.isascii() and ch.isalnum())

    @property
    def tracking(self) -> str:
        """The Incident Tracking Identifier (the document's `$id`)."""
        return f"urn:emergency:uid:incidentid:{self.unique}:{self.agency_id}"

    def component(self, kind: str) -> str:
        return f"urn:emergency:uid:eidodatacomponent:{self.unique}{kind}:{self.agency_id}"

    def agent(self, actor: str) -> dict[str, str]:
        """A reference to the actor's Agent component (the Agent Identifier is `name@agency`)."""
        return {"$ref": f"{actor}@{self.agency_id}"}

    def prologue(self, component_id: str, at: dt.datetime, actor: str | None) -> dict[str, Any]:
        """The members every data component starts with."""
        prologue: dict[str, Any] = {
            "$id": component_id,
            "lastUpdateTimeStamp": iso(at),
            "updatedByAgencyReference": {"$ref": self.agency_id},
        }
        if actor is not None:
            prologue["updatedByAgentReference"] = self.agent(actor)
        return prologue


def iso(at: dt.datetime) -> str:
    """An aware time as ISO 8601 / RFC 3339 with its UTC offset."""
    if at.tzinfo is None:
        raise ValueError("naive datetimes are ambiguous; the database gives aware UTC times")
    return at.astimezone(dt.UTC).isoformat()


def common_priority(esi_level: int) -> int:
    """EIDO's common priority (0-10, 10 the most urgent) for an ESI level (1 the most urgent): 10, 8, 6, 4, 2."""
    return 12 - 2 * esi_level


def build_eido(source: IncidentDetail, agency_id: str = DEFAULT_AGENCY_ID) -> dict[str, Any]:
    """The EIDO document for the incident (a JSON-ready dict), as it stands now; `source` is read with its whole
    history (`app.incidents.reading.ALL_HISTORY`)."""
    ids = _Ids(source.id, agency_id)
    updated_at = max([_accepted(source), *_times(source)])
    updated_by = _updated_by(source, updated_at)
    notes = _notes(source, ids)
    person = _caller(source, ids)
    location = _location(source, ids)
    agents = _agents(source, ids)
    document: dict[str, Any] = {
        **ids.prologue(ids.tracking, updated_at, updated_by),
        "eidoVersion": EIDO_VERSION,
        "issuingElementIdentification": f"triage-dispatch.{agency_id}",
        "incidentComponent": _incident(
            source, ids, (updated_at, updated_by), notes, {"person": person, "location": location}
        ),
        "agencyComponent": [_agency(ids, updated_at)],
    }
    optional = {
        "agentComponent": agents,
        "notesComponent": notes,
        "locationComponent": location,
        "personComponent": person,
    }
    document.update({key: components for key, components in optional.items() if components})
    return document


def _accepted(source: IncidentDetail) -> dt.datetime:
    assert source.accepted_at is not None  # every stored incident has one
    return source.accepted_at


def _times(source: IncidentDetail) -> list[dt.datetime]:
    times = [_at(event) for event in source.events]
    if source.timings.classified_at is not None:
        times.append(source.timings.classified_at)
    if source.guidance is not None and source.guidance.updated_at is not None:
        times.append(source.guidance.updated_at)
    return times


def _at(event: EventView) -> dt.datetime:
    assert event.at is not None  # every stored event has one
    return event.at


def _updated_by(source: IncidentDetail, updated_at: dt.datetime) -> str | None:
    """The actor of the last change, when the last change was an audited one (guidance is written by no one)."""
    last = _last_event(source.events)
    return last.actor if last is not None and _at(last) == updated_at else None


def _last_event(events: Sequence[EventView], actions: Iterable[str] | None = None) -> EventView | None:
    wanted = None if actions is None else set(actions)
    return next((event for event in reversed(events) if wanted is None or event.action in wanted), None)


def _references(components: Iterable[dict[str, Any]]) -> list[dict[str, str]]:
    return [{"$ref": component["$id"]} for component in components]


def _incident(
    source: IncidentDetail,
    ids: _Ids,
    updated: tuple[dt.datetime, str | None],
    notes: list[dict[str, Any]],
    involved: dict[str, list[dict[str, Any]]],
) -> dict[str, Any]:
    """The Incident component: type, status, acuity as the priority, and what it refers to."""
    incident = source
    component: dict[str, Any] = {
        **ids.prologue(ids.component("incident"), *updated),
        "incidentTypeCommonRegistryText": INCIDENT_TYPE_COMMON,
        "incidentStatusInternalText": [incident.status, f"guidance:{incident.guidance_state}"],
        "incidentStatusCommonRegistryText": list(STATUS_COMMON.get(incident.status, ())),
        "internalIncidentId": incident.id,
    }
    if incident.chief_complaint:
        component["incidentTypeInternalText"] = incident.chief_complaint
    if incident.esi_level is not None:
        component["incidentPriorityInternalText"] = f"ESI {incident.esi_level}"
        component["incidentCommonPriorityNumber"] = common_priority(incident.esi_level)
    references = {
        "agentReference": [ids.agent(actor) for actor in dict.fromkeys(event.actor for event in source.events)],
        "locationReference": _references(involved["location"]),
        "personReference": _references(involved["person"]),
        "dispositionComponent": _disposition(source, ids),
        "notesReference": _references(note for note in notes if note["$id"] != ids.component("callernote")),
    }
    component.update({key: value for key, value in references.items() if value})
    return component


def _agency(ids: _Ids, updated_at: dt.datetime) -> dict[str, Any]:
    return {
        **ids.prologue(ids.agency_id, updated_at, None),
        "agencyRoleDescriptionRegistryText": list(AGENCY_ROLES),
        "agencyType": list(AGENCY_TYPES),
        "incidentOwningAgencyIndicator": True,
    }


def agent_role(actor: str, roles: dict[str, str]) -> str:
    """The Agent Role of an audit event's actor."""
    if actor.startswith("system:"):
        return "Automaton"
    return AGENT_ROLES.get(roles.get(actor, ""), "Unknown")


def _agents(source: IncidentDetail, ids: _Ids) -> list[dict[str, Any]]:
    """One Agent component per actor in the history, in the order they first acted."""
    last_acted: dict[str, dt.datetime] = {}
    for event in source.events:
        last_acted[event.actor] = _at(event)
    return [
        {
            **ids.prologue(ids.agent(actor)["$ref"], at, None),
            "agentRoleRegistryText": [agent_role(actor, source.actor_roles)],
            "agencyReference": {"$ref": ids.agency_id},
        }
        for actor, at in last_acted.items()
    ]


def _disposition(source: IncidentDetail, ids: _Ids) -> list[dict[str, Any]]:
    """A closed incident's disposition, when it has a common code."""
    close = _last_event(source.events, ["close", "merge"])
    if source.status != "closed" or close is None:
        return []
    disposition = str((close.after or {}).get("disposition", ""))
    code = DISPOSITION_CODES.get(disposition)
    if code is None:
        return []
    return [
        {
            **ids.prologue(ids.component("disposition"), _at(close), close.actor),
            "dispositionCommonRegistryCode": code,
            "dispositionPrimaryIndicator": True,
            "dispositionDescriptionText": disposition,
        }
    ]


def _intake_actor(source: IncidentDetail) -> str | None:
    received = next((event for event in source.events if event.action == "received"), None)
    return received.actor if received else None


def _caller(source: IncidentDetail, ids: _Ids) -> list[dict[str, Any]]:
    """The caller as a Person (role Caller) with the call's identifier; their name or number is a note."""
    incident = source
    if not incident.caller and not incident.call_id:
        return []
    person: dict[str, Any] = {
        **ids.prologue(ids.component("caller"), _accepted(incident), _intake_actor(source)),
        "personIncidentRoleRegistryText": ["Caller"],
    }
    if incident.call_id:
        person["callIdentifier"] = [incident.call_id]
    if incident.caller:
        person["notesReference"] = [{"$ref": ids.component("callernote")}]
    return [person]


def _location(source: IncidentDetail, ids: _Ids) -> list[dict[str, Any]]:
    """The location as given at intake (free text): a PIDF-LO whose civic address holds it as `LOC`, and the text."""
    incident = source
    if not incident.location:
        return []
    text = _NOT_XML.sub("", incident.location)
    pidf_lo = (
        '<presence xmlns="urn:ietf:params:xml:ns:pidf" xmlns:gp="urn:ietf:params:xml:ns:pidf:geopriv10" '
        'xmlns:ca="urn:ietf:params:xml:ns:pidf:geopriv10:civicAddr" '
        f'entity="pres:{ids.unique}@{html.escape(ids.agency_id)}"><tuple id="location"><status><gp:geopriv>'
        f"<gp:location-info><ca:civicAddress><ca:LOC>{html.escape(text, quote=False)}</ca:LOC></ca:civicAddress>"
        "</gp:location-info><gp:usage-rules/><gp:method>Manual</gp:method></gp:geopriv></status></tuple></presence>"
    )
    return [
        {
            **ids.prologue(ids.component("location"), _accepted(incident), _intake_actor(source)),
            "locationTypeDescriptionRegistryText": "CurrentIncident",
            "locationByValue": pidf_lo,
            "locationDescriptionText": incident.location,
        }
    ]


def html_text(text: str) -> str:
    """Plain text as HTML element content: `&`, `<` and `>` escaped, its line breaks kept."""
    return "<br>".join(html.escape(line, quote=False) for line in text.split("\n"))


def _note(ids: _Ids, kind: str, at: dt.datetime, actor: str | None, paragraphs: Iterable[str]) -> dict[str, Any]:
    note = {
        **ids.prologue(ids.component(kind), at, actor),
        "notesActionComments": "".join(f"<p>{paragraph}</p>" for paragraph in paragraphs),
    }
    if actor is not None:
        note["agentReference"] = ids.agent(actor)
    return note


def _notes(source: IncidentDetail, ids: _Ids) -> list[dict[str, Any]]:
    """The Notes: the message as received, the caller, the acuity, the protocol card, the guidance, then every audit
    event in order."""
    incident, accepted = source, _accepted(source)
    intake = _intake_actor(source)
    received_at = incident.timings.received_at
    received = "" if received_at is None else f" (call received {iso(received_at)})"
    notes = [_note(ids, "message", accepted, intake, [f"Message as received{received}", html_text(incident.text)])]
    if incident.caller:
        notes.append(_note(ids, "callernote", accepted, intake, [f"Caller: {html_text(incident.caller)}"]))
    acuity = _acuity_note(source, ids)
    if acuity is not None:
        notes.append(acuity)
    if source.protocol_card is not None:
        notes.append(_card_note(source, source.protocol_card, ids))
    if source.guidance is not None:
        notes.append(_guidance_note(source.guidance, incident.guidance_state, ids))
    notes.extend(_event_note(event, ids, source.user_names) for event in source.events)
    return notes


def _acuity_note(source: IncidentDetail, ids: _Ids) -> dict[str, Any] | None:
    """The acuity: the effective ESI level, the model's, a dispatcher's override with its reason, the review flag."""
    incident, classification = source, source.classification
    if incident.esi_level is None:
        return None
    override = _last_event(source.events, ["override"]) if incident.override_level is not None else None
    origin = "dispatcher override" if override is not None else "model"
    lines = [f"Acuity: ESI {incident.esi_level} ({origin})"]
    if classification is not None:
        lines.append(
            f"Model: ESI {incident.model_level} ({html_text(classification.model_version)}, decision point "
            f"{html_text(classification.decision_point)}, classifier ESI {classification.classifier_level})"
        )
    if override is not None:
        reason = html_text(override.reason or "")
        lines.append(f"Override: ESI {incident.override_level} by {html_text(override.actor)}: {reason}")
    if incident.needs_review:
        state = "resolved by the override" if incident.override_level is not None else "pending"
        lines.append(f"Needs review ({state}): {html_text(incident.review_reason)}")
    decided = _last_event(source.events, ["classified", "override"])
    at = _at(decided) if decided else incident.timings.classified_at or _accepted(incident)
    return _note(ids, "acuity", at, decided.actor if decided else None, lines)


def _card_note(source: IncidentDetail, card: ProtocolCardView, ids: _Ids) -> dict[str, Any]:
    """The protocol card read to the caller: which card (id, version, language, title), its review state and the
    steps the dispatcher marked done; by whoever last changed it (triage picks it)."""
    done = ", ".join(str(step) for step in card.steps_done) or "none"
    lines = [
        f"Protocol card: {html_text(card.id)} version {html_text(card.version)} ({html_text(card.language)}): "
        f"{html_text(card.title)}",
        f"Steps done: {done} (of {len(card.steps)})",
        f"Card {html_text(card.review_state)}",
    ]
    changed = _last_event(source.events, ["card_switch", "card_step", "classified"])
    at = _at(changed) if changed else source.timings.classified_at or _accepted(source)
    return _note(ids, "card", at, changed.actor if changed else None, lines)


def _guidance_note(guidance: GuidanceView, state: str, ids: _Ids) -> dict[str, Any]:
    header = (
        f"Guidance ({html_text(state)}; model {html_text(guidance.model)}, prompt "
        f"{html_text(guidance.prompt_version)}, {guidance.tokens} tokens)"
    )
    assert guidance.updated_at is not None  # a stored guidance row has one
    return _note(ids, "guidance", guidance.updated_at, None, [header, html_text(guidance.text)])


def _named(change: dict[str, object] | None, user_names: Mapping[str, str]) -> dict[str, object]:
    """The change with each user id replaced by the user's name (an id no user has any more stays as it is)."""
    change = dict(change or {})
    for key in USER_ID_FIELDS:
        if change.get(key):
            change[key] = user_names.get(str(change[key]), change[key])
    return change


def event_changes(
    before: dict[str, object] | None, after: dict[str, object] | None, user_names: Mapping[str, str] | None = None
) -> str:
    """An audit event's state change as text: `key: before → after` for each key that changed or was set; users
    by name (`claimed_by: null → "dana"`)."""
    before, after = _named(before, user_names or {}), _named(after, user_names or {})
    changes = []
    for key in [*before, *(key for key in after if key not in before)]:
        old, new = before.get(key), after.get(key)
        if key not in after:
            changes.append(f"{key}: {json.dumps(old, ensure_ascii=False)} → (removed)")
        elif key not in before:
            changes.append(f"{key}: {json.dumps(new, ensure_ascii=False)}")
        elif old != new:
            changes.append(f"{key}: {json.dumps(old, ensure_ascii=False)} → {json.dumps(new, ensure_ascii=False)}")
    return "; ".join(changes)


def _event_note(event: EventView, ids: _Ids, user_names: Mapping[str, str]) -> dict[str, Any]:
    """One audit event as a Note by its actor, at its time: the action, the reason and the change."""
    paragraphs = [f"{html_text(event.action)} by {html_text(event.actor)}"]
    if event.reason:
        paragraphs.append(f"Reason: {html_text(event.reason)}")
    changes = event_changes(event.before, event.after, user_names)
    if changes:
        paragraphs.append(html_text(changes))
    return _note(ids, f"event{event.id}", _at(event), event.actor, paragraphs)
