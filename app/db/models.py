"""SQLAlchemy 2 typed models: incidents and everything recorded about them, users and their tokens."""

from __future__ import annotations

import datetime as dt
import enum
import uuid
from typing import Any, ClassVar

from sqlalchemy import JSON, DateTime, Dialect, ForeignKey, Index, MetaData, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship
from sqlalchemy.types import TypeDecorator

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def new_id() -> str:
    return str(uuid.uuid4())


class UTCDateTime(TypeDecorator[dt.datetime]):
    """Aware UTC datetimes on every database (SQLite keeps no zone: stored as naive UTC, read back as UTC)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: dt.datetime | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetimes are ambiguous; use aware UTC datetimes")
        value = value.astimezone(dt.UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> dt.datetime | None:
        if value is None:
            return None
        result: dt.datetime = value
        return result.replace(tzinfo=dt.UTC) if result.tzinfo is None else result.astimezone(dt.UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {dt.datetime: UTCDateTime()}


class Role(enum.StrEnum):
    """What a user may do: call-takers enter calls, dispatchers act on incidents, supervisors also audit."""

    CALL_TAKER = "call-taker"
    DISPATCHER = "dispatcher"
    SUPERVISOR = "supervisor"


class IncidentStatus(enum.StrEnum):
    NEW = "new"
    CLAIMED = "claimed"
    DISPATCHED = "dispatched"
    CLOSED = "closed"


class UnitStatus(enum.StrEnum):
    """Where a unit is, as a CAD keeps it; "back in service" is the change that ends an assignment (the unit is then
    available again)."""

    AVAILABLE = "available"
    DISPATCHED = "dispatched"
    EN_ROUTE = "en route"
    ON_SCENE = "on scene"
    TRANSPORTING = "transporting"
    AT_HOSPITAL = "at hospital"


class GuidanceState(enum.StrEnum):
    """Where the engine is with an incident's guidance."""

    PENDING = "pending"  # stored, not yet classified
    QUEUED = "queued"  # classified, waiting in the semantic heap
    PREFILLING = "prefilling"  # in the engine, no token yet
    GENERATING = "generating"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"  # the incident was closed before its guidance was done: the engine leaves it


FINAL_GUIDANCE_STATES = (GuidanceState.DONE, GuidanceState.FAILED, GuidanceState.CANCELLED)
"""No engine works on an incident in one of these states again (guidance_state is a plain string column: a new state
needs no migration)."""


class Incident(Base):
    """One call: the message as received, its effective acuity, and where it stands."""

    __tablename__ = "incidents"
    __table_args__ = (
        UniqueConstraint("source", "webhook_id", name="uq_incidents_source_webhook_id"),
        Index("ix_incidents_open_order", "status", "esi_level", "accepted_at"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    source: Mapped[str] = mapped_column(String(64))
    webhook_id: Mapped[str] = mapped_column(String(255))
    call_id: Mapped[str | None] = mapped_column(String(255))
    caller: Mapped[str | None] = mapped_column(String(255))
    location: Mapped[str | None] = mapped_column(String(1024))
    text: Mapped[str] = mapped_column(Text)
    received_at: Mapped[dt.datetime | None]
    accepted_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    status: Mapped[str] = mapped_column(String(16), default=IncidentStatus.NEW.value)
    esi_level: Mapped[int | None]
    """The effective level: the dispatcher's override if any, else the classifier's."""
    model_level: Mapped[int | None]
    override_level: Mapped[int | None]
    predicted_output_tokens: Mapped[int | None]
    chief_complaint: Mapped[str | None] = mapped_column(String(255))
    classified_at: Mapped[dt.datetime | None]
    queued_at: Mapped[dt.datetime | None]
    guidance_state: Mapped[str] = mapped_column(String(16), default=GuidanceState.PENDING.value)
    engine_seen_at: Mapped[dt.datetime | None]
    """Last time an engine worker said it is serving this incident (renewed with its lease)."""
    claimed_by: Mapped[str | None] = mapped_column(ForeignKey("users.id"))
    needs_review: Mapped[bool] = mapped_column(default=False, server_default="0")
    """The latest classification could not separate two levels (the more urgent was taken): a person should look.
    A dispatcher's override resolves it (see `app.incidents.review_pending`)."""
    review_reason: Mapped[str] = mapped_column(String(255), default="", server_default="")
    language: Mapped[str | None] = mapped_column(String(8))
    """The language triage read the call in (ISO 639-1; "und" when it could not be named); set by classification."""
    card_id: Mapped[str | None] = mapped_column(String(64))
    """The protocol card the dispatcher reads to the caller (`app.guidance.cards`), picked at classification from the
    floor rules, the age and the language, or switched by a dispatcher; None when no card applies (a minor call)."""
    card_version: Mapped[str | None] = mapped_column(String(32))
    card_language: Mapped[str | None] = mapped_column(String(8))
    """The card's language: the call's when the card is translated, else English."""
    card_steps_done: Mapped[list[int]] = mapped_column(JSON, default=list, server_default="[]")
    """The step numbers (from 1) the dispatcher has marked done, in ascending order."""
    dispatched_at: Mapped[dt.datetime | None]
    """When the first unit was dispatched: the call's wait clock stops there (NFPA 1225's answer to dispatch)."""
    callback_number: Mapped[str | None] = mapped_column(String(32))
    """The number to call back, as entered (or read from the caller field when it is a phone number)."""
    callback_key: Mapped[str | None] = mapped_column(String(16), index=True)
    """The call-back number's last ten digits: calls from one number compare equal (`app.incidents.duplicates`)."""
    address_key: Mapped[str | None] = mapped_column(String(255), index=True)
    """The location folded for comparison (case, punctuation, street-word abbreviations)."""
    patient_age_years: Mapped[int | None]
    """The patient's age as the call-taker entered it (triage reads it with the call)."""
    possible_duplicate_of: Mapped[str | None] = mapped_column(String(36))
    """An open incident at the same address or from the same number, within 30 minutes before this one arrived (an
    incident id; no foreign key, so that migrations add and drop it in place on SQLite: incidents are never deleted)."""
    merged_into: Mapped[str | None] = mapped_column(String(36))
    """The incident this duplicate was merged into (it is closed as "duplicate call")."""
    text_revision: Mapped[int] = mapped_column(default=0, server_default="0")
    """How many times the call's text was corrected: each revision is classified once (per model version)."""

    classifications: Mapped[list[Classification]] = relationship(
        back_populates="incident", order_by="Classification.id"
    )
    guidance: Mapped[Guidance | None] = relationship(back_populates="incident")
    outcome: Mapped[Outcome | None] = relationship(back_populates="incident")


class Classification(Base):
    """Every classification made, with the model that made it (one per incident and model version)."""

    __tablename__ = "classifications"
    __table_args__ = (
        UniqueConstraint("incident_id", "model_version", "text_revision", name="uq_classifications_incident_model"),
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    incident_id: Mapped[str] = mapped_column(ForeignKey("incidents.id"), index=True)
    esi_level: Mapped[int]
    classifier_level: Mapped[int]
    decision_point: Mapped[str] = mapped_column(String(8))
    probabilities: Mapped[dict[str, float]] = mapped_column(JSON)
    evidence: Mapped[list[dict[str, object]]] = mapped_column(JSON)
    predicted_output_tokens: Mapped[int]
    model_version: Mapped[str] = mapped_column(String(128))
    backend: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    needs_review: Mapped[bool] = mapped_column(default=False, server_default="0")
    """The models could not separate two levels: the more urgent one was taken and a person should look."""
    review_reason: Mapped[str] = mapped_column(String(255), default="", server_default="")
    resources: Mapped[list[dict[str, object]]] = mapped_column(JSON, default=list, server_default="[]")
    """Predicted ESI resources: {"kind", "weight", "span": [start, end], "text"} each."""
    resource_count: Mapped[int] = mapped_column(default=0, server_default="0")
    language: Mapped[str] = mapped_column(String(8), default="en", server_default="en")
    """The call's language as triage read it: "en" and "es" are read; any other needs an interpreter (flagged)."""
    text_revision: Mapped[int] = mapped_column(default=0, server_default="0")
    """The incident's text revision this classification read (`Incident.text_revision`)."""
    protocol: Mapped[str | None] = mapped_column(String(64))
    """The chief-complaint protocol the call was read by (`triage protocols list`); None when it names none."""
    key_questions: Mapped[list[dict[str, object]]] = mapped_column(JSON, default=list, server_default="[]")
    """The protocol's key questions: {"id", "en", "es", "answered"} each (asked and answered, or already said)."""
    non_medical: Mapped[bool] = mapped_column(default=False, server_default="0")
    """The call names no medical problem (a ride, a noise): ESI 5, said so on the console."""

    incident: Mapped[Incident] = relationship(back_populates="classifications")


class Guidance(Base):
    """The engine's guidance for an incident, as far as it has been written."""

    __tablename__ = "guidance"

    incident_id: Mapped[str] = mapped_column(ForeignKey("incidents.id"), primary_key=True)
    text: Mapped[str] = mapped_column(Text, default="")
    tokens: Mapped[int] = mapped_column(default=0)
    model: Mapped[str] = mapped_column(String(255))
    prompt_version: Mapped[str] = mapped_column(String(64))
    updated_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    check_passed: Mapped[bool | None]
    """The guidance checker's verdict on the finished guidance (`app.guidance.checker`); None until it is finished."""
    check_failures: Mapped[list[dict[str, str]] | None] = mapped_column(JSON)
    """Why the checker refused it: {"kind", "detail"} each (a contradiction of the card, a dose, a section...)."""

    incident: Mapped[Incident] = relationship(back_populates="guidance")


class Outcome(Base):
    """How the incident went through the machine: waits, times, tokens, cache losses."""

    __tablename__ = "outcomes"

    incident_id: Mapped[str] = mapped_column(ForeignKey("incidents.id"), primary_key=True)
    esi_level: Mapped[int]
    queue_wait_s: Mapped[float]
    """From queued in the semantic heap to handed to the engine."""
    ttft_s: Mapped[float | None]
    """From handed to the engine to the first token."""
    total_s: Mapped[float]
    """From accepted at intake to the guidance finished."""
    tokens: Mapped[int]
    evictions: Mapped[int] = mapped_column(default=0)
    deliveries: Mapped[int] = mapped_column(default=1)
    """How many times an engine worker took the incident (more than 1 after a crash or lease expiry)."""
    engine: Mapped[str] = mapped_column(String(32))
    model: Mapped[str] = mapped_column(String(255))
    error: Mapped[str | None] = mapped_column(Text)
    finished_at: Mapped[dt.datetime] = mapped_column(default=utcnow)

    incident: Mapped[Incident] = relationship(back_populates="outcome")


class IncidentEvent(Base):
    """Append-only audit log: who did what to which incident, the state before and after."""

    __tablename__ = "incident_events"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    incident_id: Mapped[str | None] = mapped_column(ForeignKey("incidents.id"), index=True)
    actor: Mapped[str] = mapped_column(String(128))
    """A user name, or `system:<component>`."""
    action: Mapped[str] = mapped_column(String(32), index=True)
    before: Mapped[dict[str, object] | None] = mapped_column(JSON)
    after: Mapped[dict[str, object] | None] = mapped_column(JSON)
    reason: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow, index=True)


class Unit(Base):
    """An ambulance, engine or other unit the centre dispatches (`triage-dispatch units`), and where it is now."""

    __tablename__ = "units"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    """The call sign the floor uses ("M12", "E4")."""
    kind: Mapped[str] = mapped_column(String(16))
    """ambulance, medic, engine, ... (`app.units.roster.UNIT_KINDS`)."""
    station: Mapped[str] = mapped_column(String(64), default="", server_default="")
    status: Mapped[str] = mapped_column(String(16), default=UnitStatus.AVAILABLE.value)
    status_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    """When the status last changed."""
    incident_id: Mapped[str | None] = mapped_column(ForeignKey("incidents.id"), index=True)
    """The incident it is assigned to now (None while available)."""
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)


class UnitAssignment(Base):
    """One unit on one incident, and when it reached each status (the NFPA 1225 intervals are read from these)."""

    __tablename__ = "unit_assignments"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    incident_id: Mapped[str] = mapped_column(ForeignKey("incidents.id"), index=True)
    unit_name: Mapped[str] = mapped_column(ForeignKey("units.name"), index=True)
    dispatched_by: Mapped[str] = mapped_column(String(128))
    dispatched_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    en_route_at: Mapped[dt.datetime | None]
    on_scene_at: Mapped[dt.datetime | None]
    transporting_at: Mapped[dt.datetime | None]
    at_hospital_at: Mapped[dt.datetime | None]
    cleared_at: Mapped[dt.datetime | None]
    """Back in service: the assignment ended."""


class Outbox(Base):
    """Stored messages owed to the pipeline, written in the intake transaction; done when the guidance is."""

    __tablename__ = "outbox"

    incident_id: Mapped[str] = mapped_column(ForeignKey("incidents.id"), primary_key=True)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    published_at: Mapped[dt.datetime | None]
    attempts: Mapped[int] = mapped_column(default=0)
    done_at: Mapped[dt.datetime | None] = mapped_column(index=True)


class User(Base):
    __tablename__ = "users"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(128), unique=True)
    role: Mapped[str] = mapped_column(String(16))
    password_hash: Mapped[str | None] = mapped_column(String(255))
    active: Mapped[bool] = mapped_column(default=True)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    disabled_at: Mapped[dt.datetime | None]
    """Set by `users disable`: no sign-in, no token, no session from then on (`active` is cleared with it)."""


class ApiToken(Base):
    """A per-user bearer token; only its SHA-256 is stored."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    token_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    label: Mapped[str] = mapped_column(String(128), default="")
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    revoked_at: Mapped[dt.datetime | None]


class ConsoleSession(Base):
    """A signed-in console session; the cookie holds the token, the database only its SHA-256."""

    __tablename__ = "console_sessions"

    token_sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[dt.datetime]
    ended_at: Mapped[dt.datetime | None]


class IntakeSource(Base):
    """A webhook source's state set by supervisors (`triage-dispatch sources`); its name and first secrets come
    from TRIAGE_WEBHOOK_SECRETS, a source without a row is active with those secrets."""

    __tablename__ = "intake_sources"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    suspended_at: Mapped[dt.datetime | None]
    """Set by `sources suspend`: its calls get 503 with the reason until `sources resume`."""
    suspended_reason: Mapped[str | None] = mapped_column(String(255))
    configured_secrets_until: Mapped[dt.datetime | None]
    """Set by the first `sources rotate-secret`: TRIAGE_WEBHOOK_SECRETS' secrets are accepted until then only."""


class SourceSecret(Base):
    """A secret made by `sources rotate-secret`, kept in clear: HMAC verification needs the key itself."""

    __tablename__ = "source_secrets"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    source: Mapped[str] = mapped_column(ForeignKey("intake_sources.name"), index=True)
    secret: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    retired_at: Mapped[dt.datetime | None]
    """Accepted until then (the grace after the next rotation); None: the source's current secret."""


class LiveCall(Base):
    """A call streamed utterance by utterance (`app.live`): its incident, its clock and the facts read from it as it
    went (the address and call-back number the caller gave, a lower reading offered to the dispatcher, the
    telecommunicator-CPR times)."""

    __tablename__ = "live_calls"
    __table_args__ = (UniqueConstraint("source", "call_id", name="uq_live_calls_source_call_id"),)

    incident_id: Mapped[str] = mapped_column(ForeignKey("incidents.id"), primary_key=True)
    source: Mapped[str] = mapped_column(String(64))
    call_id: Mapped[str] = mapped_column(String(255))
    """The transcription system's id of the call (Twilio's CallSid)."""
    vendor: Mapped[str] = mapped_column(String(16))
    """"twilio" or "segments" (the vendor-neutral segment webhook)."""
    answered_at: Mapped[dt.datetime]
    """The call's clock zero: when it was answered (the transcription's start), as the sender says."""
    last_event_at: Mapped[dt.datetime] = mapped_column(index=True)
    """When this server last received an event of the call (the stream timeout counts from it)."""
    ended_at: Mapped[dt.datetime | None]
    end_reason: Mapped[str | None] = mapped_column(String(255))
    """"stopped" (the sender said so), "stream ended" (nothing came for `TRIAGE_LIVE_STREAM_TIMEOUT_S`), or
    "error: ..." (the transcription failed)."""
    finals: Mapped[int] = mapped_column(default=0)
    """Final utterances stored."""
    triaged_finals: Mapped[int] = mapped_column(default=0)
    """Final utterances the latest classification read."""
    lower_level: Mapped[int | None]
    """A lower ESI level the latest reading gave while the held level stayed: offered to the dispatcher, who decides."""
    lower_words: Mapped[list[str] | None] = mapped_column(JSON)
    address: Mapped[str | None] = mapped_column(String(1024))
    """The address the caller gave in answer to the call-taker, as read (for the dispatcher to confirm)."""
    address_at: Mapped[dt.datetime | None]
    address_confirmed_by: Mapped[str | None] = mapped_column(String(128))
    callback_number: Mapped[str | None] = mapped_column(String(32))
    """The call-back number the caller gave (E.164), as read (for the dispatcher to confirm)."""
    callback_at: Mapped[dt.datetime | None]
    callback_confirmed_by: Mapped[str | None] = mapped_column(String(128))
    arrest_recognised_at: Mapped[dt.datetime | None]
    """When the product recognised a cardiac arrest, on the call's clock: the time of the last utterance the
    classification that first gave the CPR card (or an ESI 1 arrest rule) read."""
    arrest_rule: Mapped[str | None] = mapped_column(String(64))
    card_on_screen_at: Mapped[dt.datetime | None]
    """When a CPR card was first put on the incident (this server's clock)."""
    dispatcher_arrest: Mapped[bool | None]
    """The dispatcher's word: an arrest (True), not one (False), or not said (None)."""
    dispatcher_arrest_at: Mapped[dt.datetime | None]
    dispatcher_recognised_on_call: Mapped[bool | None]
    """False when the dispatcher confirms an arrest only after the call (not recognised while it went on)."""
    first_compression_at: Mapped[dt.datetime | None]
    """When the call-taker first told the caller to push on the chest (the words, on the call's clock)."""


class CallSegment(Base):
    """A final utterance of a live call, on one track; idempotent by (call, sequence)."""

    __tablename__ = "call_segments"
    __table_args__ = (UniqueConstraint("incident_id", "sequence", name="uq_call_segments_incident_id"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    incident_id: Mapped[str] = mapped_column(ForeignKey("incidents.id"), index=True)
    sequence: Mapped[int]
    track: Mapped[str] = mapped_column(String(16))
    """"caller" (Twilio's inbound track) or "call_taker" (the centre's side, Twilio's outbound track)."""
    text: Mapped[str] = mapped_column(Text)
    spoken_at: Mapped[dt.datetime]
    """When it was said, on the call's clock (answered_at + the sender's offset, or Twilio's Timestamp)."""
    language: Mapped[str | None] = mapped_column(String(16))
    confidence: Mapped[float | None]
    received_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    promoted: Mapped[bool] = mapped_column(default=False)
    """A partial kept as final because the stream ended before its final came."""


class CallPartial(Base):
    """The latest partial (not yet final) result of a live call's track: what is being said now."""

    __tablename__ = "call_partials"

    incident_id: Mapped[str] = mapped_column(ForeignKey("incidents.id"), primary_key=True)
    track: Mapped[str] = mapped_column(String(16), primary_key=True)
    sequence: Mapped[int]
    text: Mapped[str] = mapped_column(Text)
    spoken_at: Mapped[dt.datetime]
    received_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
