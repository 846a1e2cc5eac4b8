"""The intake message body and what intake answers."""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, ConfigDict, Field, field_validator

from triage_models.text import MAX_MESSAGE_CHARS


class IntakeMessage(BaseModel):
    """A call transcript (or typed message) as a transcription system or the console sends it."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    text: str = Field(min_length=1, max_length=MAX_MESSAGE_CHARS)
    caller: str | None = Field(default=None, max_length=255)
    location: str | None = Field(default=None, max_length=1024)
    received_at: dt.datetime | None = None
    call_id: str | None = Field(default=None, max_length=255)

    @field_validator("received_at")
    @classmethod
    def _aware(cls, value: dt.datetime | None) -> dt.datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError("received_at needs a time zone (e.g. 2026-11-21T06:00:00Z)")
        return value


class IntakeAccepted(BaseModel):
    incident_id: str
    duplicate: bool
    """True when this webhook-id was already accepted: nothing new was created."""
