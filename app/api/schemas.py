"""The incident API's and the health routes' request and response bodies (pydantic); an incident itself is the read
model (`app.incidents.read_model`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from app.incidents.read_model import IncidentSummary


class IncidentList(BaseModel):
    incidents: list[IncidentSummary]


class OverrideRequest(BaseModel):
    """An override: the level is checked by `app.incidents.actions` (a strict integer 1..5: not 2.0, true or "2")."""

    esi_level: Any = Field(default=None, description="the new ESI level, an integer 1..5")
    reason: str = Field(default="", description="why (required)")


class OverrideDone(BaseModel):
    incident_id: str
    esi_level: int
    heap: str
    """Where the incident was in the Redis heap when it was re-keyed ("not queued" without Redis)."""


class CardSwitchRequest(BaseModel):
    """Another protocol card for the incident (`app.incidents.actions.switch_card`)."""

    card_id: str = Field(description="a card id of the library (`triage-dispatch cards list`)")
    reason: str = Field(default="", description="why (required)")


class CardStepRequest(BaseModel):
    """A card step marked done or not (checked by `app.incidents.actions.mark_card_step`: strict int and bool)."""

    step: Any = Field(default=None, description="the step's number, from 1")
    done: Any = Field(default=True, description="true: done; false: not done")


class CloseRequest(BaseModel):
    disposition: str = Field(description="transported, treated on scene, no patient found, refused care, ...")


class NoteRequest(BaseModel):
    note: str


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
