"""The intake message body and what intake answers."""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_core import PydanticCustomError

from app.intake.cleaning import EMPTY_TEXT_REASON, is_triageable, storable
from triage_models.text import MAX_MESSAGE_CHARS


class IntakeMessage(BaseModel):
    """A call transcript (or typed message) as a transcription system or the console sends it."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True, hide_input_in_errors=True)
    """A refusal names the field and the reason, never what was sent: its text can reach a log (a traceback)."""

    text: str = Field(max_length=MAX_MESSAGE_CHARS)
    caller: str | None = Field(default=None, max_length=255)
    location: str | None = Field(default=None, max_length=1024)
    received_at: dt.datetime | None = None
    call_id: str | None = Field(default=None, max_length=255)

    @field_validator("text", "caller", "location", "call_id", mode="before")
    @classmethod
    def _storable(cls, value: object) -> object:
        return storable(value) if isinstance(value, str) else value

    @field_validator("text")
    @classmethod
    def _triageable(cls, value: str) -> str:
        # The classifier's own cleaning decides: a text it would refuse must not be accepted, or its task retries.
        if not is_triageable(value):
            raise PydanticCustomError("empty_text", EMPTY_TEXT_REASON)
        return value

    @field_validator("received_at")
    @classmethod
    def _aware(cls, value: dt.datetime | None) -> dt.datetime | None:
        """A time zone, and a moment UTC can hold: it is stored in UTC (`0001-01-01T00:00:00+01:00` is in year 0
        there). A representable time is kept as sent, even far off: a call is not refused over its sender's clock."""
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("received_at needs a time zone (e.g. 2026-11-21T06:00:00Z)")
        try:
            value.astimezone(dt.UTC)
        except OverflowError:
            raise ValueError(
                "received_at is outside the dates this service can store (years 1 to 9999 once in UTC); send the "
                "time the call was received, with its time zone"
            ) from None
        return value


def refusals(error: ValidationError) -> list[tuple[str, str]]:
    """(field, reason) for each thing wrong with a message, as the API and the console word them."""
    return [(".".join(str(part) for part in item["loc"]) or "body", item["msg"]) for item in error.errors()]


class IntakeAccepted(BaseModel):
    incident_id: str
    duplicate: bool
    """True when this webhook-id was already accepted: nothing new was created."""
