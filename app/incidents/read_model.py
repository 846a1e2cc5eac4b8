"""The incident read model: one typed view of an incident, serialised by the API, rendered by the console and mapped
by the EIDO export (`app.incidents.reading` builds it from the database rows, once per read).

It is made of parts, each a small frozen model with one job: the head (`IncidentSummary`: what a list shows), the call
as received, its triage (`ClassificationView`), its protocol card, its guidance, the machine's timings and outcome,
and a page of its history. Times are aware UTC datetimes in Python and ISO 8601 strings in JSON (`IsoTime`).

Extension points. A later part of the call (the live call's growing transcript of utterances by track, its level
history with the words that raised each level, the chief complaint's key questions, the telecommunicator-CPR times)
is added the same way, without reshaping what is here: a frozen part model in this module, one optional field for it
on `IncidentDetail` (default empty, so the API only grows), and its loader in `app.incidents.reading.PART_LOADERS`.
Renderers read the parts they know and ignore the rest.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer

from app.engine_worker.builtin_models import TEST_MODEL_LABEL, is_test_model
from app.guidance.templates import TEMPLATE_ENGINE


def _iso(value: dt.datetime) -> str:
    return value.isoformat()


IsoTime = Annotated[dt.datetime, PlainSerializer(_iso, return_type=str, when_used="json")]
"""An aware UTC time: a datetime in Python, `datetime.isoformat()` in JSON ("2026-11-21T12:00:00+00:00")."""


class Part(BaseModel):
    """A part of the read model: immutable once read."""

    model_config = ConfigDict(frozen=True)


class ProtocolCardBrief(Part):
    """The protocol card in a list of incidents (`app.guidance.incident_card.card_brief`)."""

    id: str
    version: str
    title: str
    language: str
    """ "en" or "es": the call's language when the card is translated, else English."""
    label: str
    """The short name the console's queue row shows ("CPR adult")."""


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


class ClassificationView(Part):
    """The latest classification, as `app.incidents.queries.classification_view` reads it."""

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
    protocol: str | None = None
    """The chief-complaint protocol the call was read by (`triage protocols show ID`); None when it names none."""
    key_questions: list[dict[str, Any]] = Field(default_factory=list)
    """The protocol's key questions: {"id", "en", "es", "answered"} each, answered when the call-taker asked it and
    the caller answered (or the caller already said what an answer would)."""
    non_medical: bool = False
    """The call names no medical problem (a ride, a noise, a pet): ESI 5, and the console says so."""


class GuidanceView(Part):
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
    updated_at: IsoTime | None = None
    """When the engine last wrote it."""

    @property
    def template(self) -> str:
        """The template kind when overload shedding wrote it (its model is `"template:<kind>"`), else empty."""
        return template_kind(self.model)

    @property
    def refused(self) -> bool:
        """The checker refused it: the dispatcher reads the protocol card alone."""
        return self.check_passed is False


class Timings(Part):
    received_at: IsoTime | None
    """When the call was received, as its sender says (the call's answer, when the sender knows it)."""
    accepted_at: IsoTime | None
    classified_at: IsoTime | None
    queued_at: IsoTime | None
    queue_wait_s: float | None
    ttft_s: float | None
    total_s: float | None
    finished_at: IsoTime | None


class OutcomeView(Part):
    tokens: int
    evictions: int
    deliveries: int
    engine: str
    model: str
    error: str | None
    label: str | None = None
    """ "test model: not real guidance" when a test model served the incident."""


class EventView(Part):
    """One audit event: who did what, the state before and after, and why."""

    id: int
    """The event's number (ascending in time): the history's pages are cut at one."""
    at: IsoTime | None
    actor: str
    action: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    reason: str | None


class HistoryPage(Part):
    """Which part of the history `IncidentDetail.events` holds: the newest events (before a cursor, when paging)."""

    total: int
    """Events the incident has in all."""
    older_than: int | None = None
    """The first shown event's id when older events exist (ask for the page before it), else None."""


class AssignedUnit(Part):
    """A unit dispatched to the incident, and when it reached each status on it."""

    name: str
    kind: str
    station: str
    status: str
    """Its status on this call now: dispatched ... at hospital, or "back in service" once its assignment ended."""
    status_at: IsoTime
    """When it reached `status`."""
    dispatched_at: IsoTime
    en_route_at: IsoTime | None = None
    on_scene_at: IsoTime | None = None
    transporting_at: IsoTime | None = None
    at_hospital_at: IsoTime | None = None
    cleared_at: IsoTime | None = None


class FloorIntervals(Part):
    """The call's NFPA 1225 intervals (`app.units.intervals`): the first unit's times from the call's answer."""

    answered_at: IsoTime
    dispatched_at: IsoTime | None = None
    en_route_at: IsoTime | None = None
    on_scene_at: IsoTime | None = None
    answer_to_dispatch_s: float | None = None
    dispatch_to_en_route_s: float | None = None
    en_route_to_on_scene_s: float | None = None


class Utterance(Part):
    """One utterance of a live call: its track ("caller" or "call_taker"), its words, seconds from the answer."""

    sequence: int
    track: str
    text: str
    offset_s: float
    promoted: bool = False
    """A partial kept as final when its stream ended (no final came for it)."""


class LevelChange(Part):
    """A level change of a live call (or a lower reading offered): when, who, from and to, and the words behind it."""

    at: IsoTime
    actor: str
    action: str
    from_level: int | None
    esi_level: int | None
    words: list[str] = Field(default_factory=list)
    reason: str | None = None


class TcprClock(Part):
    """The call's telecommunicator-CPR times (`app.live.tcpr.call_clock`), seconds from the answer (None: not yet)."""

    arrest: bool
    recognised: bool
    arrest_rule: str | None = None
    address_s: float | None = None
    recognised_by_product_s: float | None = None
    recognised_by_dispatcher_s: float | None = None
    card_on_screen_s: float | None = None
    first_compression_s: float | None = None
    compression_step: int | None = None

    @property
    def recognised_s(self) -> float | None:
        """The earlier recognition, the product's or the dispatcher's (as the monthly figures count it)."""
        times = [t for t in (self.recognised_by_product_s, self.recognised_by_dispatcher_s) if t is not None]
        return min(times) if times else None


class CallFact(Part):
    """An address or call-back number read from a call's words, until a dispatcher confirms it."""

    value: str
    offset_s: float | None = None
    """Seconds from the call's answer to the words it was read from."""
    confirmed_by: str | None = None


class LiveCallView(Part):
    """A live call (`app.live.views.live_view`): its transcript so far by track, each track's partial, the level's
    history with the words that moved it, and its T-CPR clock."""

    answered_at: IsoTime
    ended_at: IsoTime | None = None
    end_reason: str | None = None
    transcript: list[Utterance] = Field(default_factory=list)
    partials: list[Utterance] = Field(default_factory=list)
    """Each track's utterance still being spoken (its words may change)."""
    levels: list[LevelChange] = Field(default_factory=list)
    tcpr: TcprClock
    address: CallFact | None = None
    callback_number: CallFact | None = None


class TranscriptFacts(Part):
    """The address and call-back number a posted transcript's caller gave in answer to the call-taker ("CT: where are
    you? C: 41 Birch Lane"), read for the dispatcher to confirm (a live call's are read as it goes, in `live`)."""

    address: CallFact | None = None
    callback_number: CallFact | None = None


class IncidentLink(Part):
    """Another incident, as a link names it: a possible duplicate's original, or a merged call's target."""

    id: str
    status: str
    esi_level: int | None
    chief_complaint: str | None
    location: str | None
    accepted_at: IsoTime


class IncidentSummary(Part):
    """One incident in a list (and the head of its detail)."""

    id: str
    source: str
    status: str
    esi_level: int | None
    model_level: int | None
    override_level: int | None
    chief_complaint: str | None
    guidance_state: str
    accepted_at: IsoTime | None
    language: str | None = None
    """The call's language as triage read it ("en", "es"; another code or "und" means an interpreter is needed)."""
    protocol_card: ProtocolCardBrief | None = None
    """The protocol card (null when no card applies or the call is not classified yet); in full in the detail."""
    state: str = ""
    """The state an action is offered in (`app.incidents.ownership.state_token`): send it back as `expected_state`
    and an action on a call that changed since is refused (409) instead of applied."""
    dispatched_at: IsoTime | None = None
    """When its first unit was dispatched (its wait clock stops there)."""


class IncidentDetail(IncidentSummary):
    """The whole incident as one read: what the API returns, the console shows and EIDO maps."""

    text: str
    caller: str | None
    location: str | None
    call_id: str | None
    classification: ClassificationView | None
    guidance: GuidanceView | None
    timings: Timings
    outcome: OutcomeView | None
    events: list[EventView]
    """A page of the history, oldest first: the newest events (all of them when the read asked for all)."""
    protocol_card: ProtocolCardView | None = None
    """None when no card applies (a minor call) or the call is not classified yet."""
    claimed_by: str | None = None
    """The name of the user who holds the call (None while nobody does)."""
    needs_review: bool = False
    """The latest classification could not separate two levels (the more urgent was taken)."""
    review_reason: str = ""
    review_pending: bool = False
    """Needs review and no dispatcher has set the level yet (an override resolves it)."""
    disposition: str | None = None
    """How a closed incident was closed (its last close's disposition)."""
    history: HistoryPage | None = None
    """Which page of the history `events` is."""
    callback_number: str | None = None
    """The number to call back (entered, or read from `caller` when that is a phone number)."""
    patient_age_years: int | None = None
    """The patient's age, as the call-taker entered it."""
    text_revision: int = 0
    """How many times the call's text was corrected (each correction is audited with its reason)."""
    possible_duplicate_of: IncidentLink | None = None
    """An open incident at the same address or from the same number within 30 minutes before this one."""
    merged_into: IncidentLink | None = None
    """The incident this call was merged into (closed as a duplicate call)."""
    units: list[AssignedUnit] = Field(default_factory=list)
    """The units dispatched to it, in dispatch order."""
    floor: FloorIntervals | None = None
    """Its NFPA 1225 intervals so far."""
    live: LiveCallView | None = None
    """The live call, when the incident is one (streamed utterance by utterance)."""
    transcript_facts: TranscriptFacts | None = None
    """What a posted transcript's caller said the address and call-back number are (None for a live call, and when
    the text has no call-taker's turns or the caller gave neither)."""
    user_names: dict[str, str] = Field(default_factory=dict, exclude=True)
    """User id -> name for the ids the shown events hold (`claimed_by`): histories write names, not ids."""
    actor_roles: dict[str, str] = Field(default_factory=dict, exclude=True)
    """Actor name -> product role, for the actors of the shown events that have a user account (EIDO's agents)."""

    @property
    def test_model(self) -> bool:
        """Its guidance is a test model's (never real)."""
        return self.guidance is not None and self.guidance.label is not None

    @property
    def template(self) -> str:
        return "" if self.guidance is None else self.guidance.template

    @property
    def guidance_check(self) -> str:
        """The checker's refusal in words; empty when it passed or has not run."""
        if self.guidance is None or not self.guidance.refused:
            return ""
        return self.guidance.check or ""


def template_kind(guidance_model: str | None) -> str:
    """The template kind a guidance row's model names (`"template:<kind>"`), else empty."""
    prefix = f"{TEMPLATE_ENGINE}:"
    return guidance_model[len(prefix) :] if guidance_model and guidance_model.startswith(prefix) else ""


def model_label(model: str | None) -> str | None:
    """`TEST_MODEL_LABEL` for a test model's name, else None (what the API's `label` fields hold)."""
    return TEST_MODEL_LABEL if is_test_model(model) else None
