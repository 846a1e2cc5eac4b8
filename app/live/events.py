"""A live call's events as intake reads them, whatever the sender: the call starts, an utterance (partial or final) on
one track, the stream stops or fails."""

from __future__ import annotations

import datetime as dt
import enum
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from app.intake.cleaning import storable


class Track(enum.StrEnum):
    """Whose words: the caller's, or the call-taker's (the centre's side of the call)."""

    CALLER = "caller"
    CALL_TAKER = "call_taker"


class EventKind(enum.StrEnum):
    STARTED = "started"
    UTTERANCE = "utterance"
    STOPPED = "stopped"
    ERROR = "error"


@dataclass(frozen=True, slots=True)
class CallEvent:
    """One event of a live call. `spoken_at` is on the call's clock (when the words were said, or the event
    happened); `answered_at` when the sender says when the call was answered."""

    source: str
    vendor: str
    call_id: str
    sequence: int
    kind: EventKind
    spoken_at: dt.datetime
    track: Track | None = None
    text: str = ""
    final: bool = False
    language: str | None = None
    confidence: float | None = None
    answered_at: dt.datetime | None = None
    detail: str = ""
    """Why the transcription failed (an error event)."""
    offset_s: float | None = None
    """Seconds since the call was answered, when the sender says so (the segment webhook): the stored time is then
    the call's own answer time plus this."""


class SegmentMessage(BaseModel):
    """The vendor-neutral segment webhook's body (`POST /v1/intake/{source}/segments`): one utterance, or the
    start or stop of a call's stream. `offset_s` is seconds since the call was answered."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    call_id: str = Field(min_length=1, max_length=255)
    sequence: int = Field(ge=0, lt=2**31)
    event: Literal["started", "utterance", "stopped"] = "utterance"
    offset_s: float = Field(default=0.0, ge=0, le=86_400)
    track: Track | None = None
    text: str = Field(default="", max_length=8_000)
    final: bool = True
    language: str | None = Field(default=None, max_length=16)
    confidence: float | None = Field(default=None, ge=0, le=1)
    answered_at: dt.datetime | None = None

    @field_validator("call_id", "text")
    @classmethod
    def _storable(cls, value: str) -> str:
        return storable(value)

    @field_validator("answered_at")
    @classmethod
    def _aware(cls, value: dt.datetime | None) -> dt.datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError("answered_at needs a time zone (e.g. 2026-11-21T06:00:00Z)")
        return value

    @model_validator(mode="after")
    def _utterance_has_words(self) -> SegmentMessage:
        if self.event == "utterance" and (self.track is None or not self.text):
            raise ValueError("an utterance needs a track (caller or call_taker) and its text")
        return self

    def to_event(self, source: str, answered_at: dt.datetime) -> CallEvent:
        """The event, `answered_at` being the call's clock zero (the body's, or received time less the offset)."""
        answered = self.answered_at or answered_at
        return CallEvent(
            source=source,
            vendor="segments",
            call_id=self.call_id,
            sequence=self.sequence,
            kind=EventKind(self.event),
            spoken_at=answered + dt.timedelta(seconds=self.offset_s),
            track=self.track,
            text=self.text,
            final=self.final,
            language=self.language,
            confidence=self.confidence,
            answered_at=answered,
            offset_s=self.offset_s,
        )
