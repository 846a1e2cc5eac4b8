"""The incident API's and the health routes' request and response bodies (pydantic)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class ProtocolCardBrief(BaseModel):
    """The protocol card in a list of incidents (`app.guidance.incident_card.card_brief`)."""

    id: str
    version: str
    title: str
    language: str
    """ "en" or "es": the call's language when the card is translated, else English."""
    label: str
    """The short name the console's queue row shows ("CPR adult")."""


class IncidentSummary(BaseModel):
    """One incident in a list (and the head of its detail)."""

    id: str
    source: str
    status: str
    esi_level: int | None
    model_level: int | None
    override_level: int | None
    chief_complaint: str | None
    guidance_state: str
    accepted_at: str | None
    language: str | None = None
    """The call's language as triage read it ("en", "es"; another code or "und" means an interpreter is needed)."""
    protocol_card: ProtocolCardBrief | None = None
    """The protocol card (null when no card applies or the call is not classified yet); in full in the detail."""


class IncidentList(BaseModel):
    incidents: list[IncidentSummary]


class ClassificationView(BaseModel):
    """The latest classification, as `app.incidents.classification_view` reads it."""

    esi_level: int
    classifier_level: int
    decision_point: str
    probabilities: dict[str, Any]
    evidence: list[dict[str, Any]]
    predicted_output_tokens: int
    model_version: str
    needs_review: bool
    review_reason: str
    resources: list[dict[str, Any]]
    resource_count: int
    language: str


class GuidanceView(BaseModel):
    text: str
    tokens: int
    model: str
    prompt_version: str
    check_passed: bool | None = None
    """The guidance checker's verdict on the finished guidance (None while it is written); refused: read the card."""
    check: str | None = None
    """The verdict in words: "checker: contradicts the card: says 'stop pushing', ..." (None until checked)."""
    label: str | None = None
    """ "test model: not real guidance" when a test model (the built-in tiny Llama) wrote it."""


class Timings(BaseModel):
    received_at: str | None
    accepted_at: str | None
    classified_at: str | None
    queued_at: str | None
    queue_wait_s: float | None
    ttft_s: float | None
    total_s: float | None
    finished_at: str | None


class OutcomeView(BaseModel):
    tokens: int
    evictions: int
    deliveries: int
    engine: str
    model: str
    error: str | None
    label: str | None = None
    """ "test model: not real guidance" when a test model served the incident."""


class EventView(BaseModel):
    """One audit event: who did what, the state before and after, and why."""

    at: str | None
    actor: str
    action: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    reason: str | None


class ProtocolCardView(ProtocolCardBrief):
    """The protocol card on the incident (`app.guidance.incident_card.card_view`): what the dispatcher reads."""

    steps: list[str]
    reviewed: bool
    """False until a centre's medical director has reviewed the card (the screen says so)."""
    review_state: str
    key_questions: list[str]
    do_not: list[str]
    steps_done: list[int]
    """Step numbers (from 1) the dispatcher has marked done."""


class IncidentDetail(IncidentSummary):
    text: str
    caller: str | None
    location: str | None
    call_id: str | None
    classification: ClassificationView | None
    guidance: GuidanceView | None
    timings: Timings
    outcome: OutcomeView | None
    events: list[EventView]
    protocol_card: ProtocolCardView | None = None
    """None when no card applies (a minor call) or the call is not classified yet."""


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
