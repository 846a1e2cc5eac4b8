"""The incident API's and the health routes' request and response bodies (pydantic); an incident itself is the read
model (`app.incidents.read_model`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from app.incidents.read_model import IncidentSummary


class IncidentList(BaseModel):
    incidents: list[IncidentSummary]


EXPECTED_STATE = Field(
    default=None,
    description="the incident's `state` as the client showed it: an action on a call that changed since is refused"
    " (409) instead of applied; omitted: not checked",
)


class ClaimRequest(BaseModel):
    """A claim; taking over a call another user holds needs a reason (shown to both)."""

    take_over_reason: str | None = Field(default=None, description="why you take over a call someone else holds")
    expected_state: str | None = EXPECTED_STATE


class OverrideRequest(BaseModel):
    """An override: the level is checked by `app.incidents.actions` (a strict integer 1..5: not 2.0, true or "2")."""

    esi_level: Any = Field(default=None, description="the new ESI level, an integer 1..5")
    reason: str = Field(default="", description="why (required)")
    expected_state: str | None = EXPECTED_STATE


class OverrideDone(BaseModel):
    incident_id: str
    esi_level: int
    heap: str
    """Where the incident was in the Redis heap when it was re-keyed ("not queued" without Redis)."""


class DispatchRequest(BaseModel):
    """Units to dispatch to the incident (one or more, available ones: `GET /v1/units`)."""

    units: list[str] = Field(default_factory=list, description='unit names, e.g. ["M12", "E4"]')
    expected_state: str | None = EXPECTED_STATE


class CardSwitchRequest(BaseModel):
    """Another protocol card for the incident (`app.incidents.actions.switch_card`)."""

    card_id: str = Field(description="a card id of the library (`triage-dispatch cards list`)")
    reason: str = Field(default="", description="why (required)")
    expected_state: str | None = EXPECTED_STATE


class CardStepRequest(BaseModel):
    """A card step marked done or not (checked by `app.incidents.actions.mark_card_step`: strict int and bool)."""

    step: Any = Field(default=None, description="the step's number, from 1")
    done: Any = Field(default=True, description="true: done; false: not done")
    expected_state: str | None = EXPECTED_STATE


class CloseRequest(BaseModel):
    disposition: str = Field(description="transported, treated on scene, no patient found, refused care, ...")
    no_unit_reason: str | None = Field(
        default=None, description="required to close an ESI 1-2 call no unit reached: the confirmation, and why"
    )
    expected_state: str | None = EXPECTED_STATE


class CorrectRequest(BaseModel):
    """A correction of the call (the fields given; a new text is triaged again), with a reason."""

    text: str = Field(default="", description="the call's text, corrected")
    location: str = Field(default="", description="the address, corrected")
    callback_number: str = Field(default="", description="the call-back number, corrected")
    reason: str = Field(default="", description="why (required)")
    expected_state: str | None = EXPECTED_STATE


class CorrectDone(BaseModel):
    incident_id: str
    esi_level: int | None
    retriaged: bool
    """The text changed and triage read it again."""
    heap: str
    """What re-keying a changed level in the heap found ("unchanged" when the level stayed)."""


class MergeRequest(BaseModel):
    """Merge this possible duplicate into the open call it repeats (closed as a duplicate call, linked)."""

    reason: str = Field(default="", description="why (required)")
    expected_state: str | None = EXPECTED_STATE


class NoteRequest(BaseModel):
    note: str


class UnitView(BaseModel):
    """A unit and where it is now."""

    name: str
    kind: str
    station: str
    status: str
    status_at: str
    incident_id: str | None


class UnitList(BaseModel):
    units: list[UnitView]


class UnitStatusRequest(BaseModel):
    """A unit's new status: a later one on its call, or "back in service"."""

    status: str = Field(description="en route, on scene, transporting, at hospital or back in service")
    expected_status: str | None = Field(
        default=None, description="the unit's status as the client showed it (a unit changed since is refused, 409)"
    )


class HealthStatus(BaseModel):
    status: str


class EngineInForce(BaseModel):
    """One engine worker and the scheduling its scheduler reports back (policy, options, cost model)."""

    worker: str
    engine: str | None = None
    model: str | None = None
    scheduling: dict[str, Any] | None = None


class Readiness(BaseModel):
    ready: bool
    checks: dict[str, str]
    engines: list[EngineInForce] = []
