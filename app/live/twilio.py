"""Twilio Real-Time Transcription status callbacks: the signature (`X-Twilio-Signature`, checked by the `twilio`
package's `RequestValidator`) and the form's fields read as a call event.

Twilio posts one form-encoded callback per event: `TranscriptionEvent` (transcription-started, -content, -stopped,
-error), `CallSid`, `SequenceId` (1, 2, ... per transcription), `Timestamp` (ISO 8601, UTC), and for content `Track`
(inbound_track: the caller's audio on a call to the centre; outbound_track: the call-taker's), `TranscriptionData`
(JSON: `transcript`, `confidence`), `Final` ("true"/"false"), `LanguageCode`; for an error `TranscriptionError` and
`TranscriptionErrorCode`. It retries a 5xx, 408, 425 or 429 answer up to three times, nothing else.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping

from twilio.request_validator import RequestValidator, get_signature_algorithm

from app.intake.cleaning import storable
from app.live.events import CallEvent, EventKind, Track

EVENT_KINDS = {
    "transcription-started": EventKind.STARTED,
    "transcription-content": EventKind.UTTERANCE,
    "transcription-stopped": EventKind.STOPPED,
    "transcription-error": EventKind.ERROR,
}
TRACKS = {"inbound_track": Track.CALLER, "outbound_track": Track.CALL_TAKER}
MAX_TEXT_CHARS = 8_000


class TwilioSignatureError(Exception):
    """The callback is not Twilio's for this source (answered 403, which Twilio does not retry)."""


class TwilioEventError(ValueError):
    """The callback's fields do not make an event (answered 400 with the reason, not retried)."""


def verify_signature(
    token: str, url: str, params: Mapping[str, str], signature: str | None, settings_header: str | None
) -> None:
    """Raise `TwilioSignatureError` unless `signature` is Twilio's for `url` and `params` with this Auth Token (the
    algorithm named by `X-Twilio-Webhooks-Signature-Settings`, HMAC-SHA1 without it)."""
    if not signature:
        raise TwilioSignatureError("missing X-Twilio-Signature")
    validator = RequestValidator(token)
    if not validator.validate(url, dict(params), signature, get_signature_algorithm(settings_header)):
        raise TwilioSignatureError("X-Twilio-Signature does not match this source's Auth Token and URL")


def signed_url(reached: str, path_and_query: str, public_url: str | None) -> str:
    """The URL Twilio signed: the one the request reached, or behind a proxy the configured public scheme and host
    with the request's path and query."""
    return reached if public_url is None else public_url + path_and_query


def _timestamp(params: Mapping[str, str]) -> dt.datetime:
    raw = params.get("Timestamp", "")
    try:
        value = dt.datetime.fromisoformat(raw)
    except ValueError:
        raise TwilioEventError(f"Timestamp is not an ISO 8601 time: {raw[:40]!r}") from None
    return value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)


def _utterance(params: Mapping[str, str]) -> tuple[Track, str, float | None]:
    track = TRACKS.get(params.get("Track", ""))
    if track is None:
        raise TwilioEventError("Track must be inbound_track or outbound_track on transcription-content")
    try:
        data = json.loads(params.get("TranscriptionData", ""))
    except ValueError:
        raise TwilioEventError("TranscriptionData is not JSON") from None
    if not isinstance(data, dict) or not isinstance(data.get("transcript"), str):
        raise TwilioEventError("TranscriptionData has no transcript")
    confidence = data.get("confidence")
    confidence = float(confidence) if isinstance(confidence, int | float) and 0 <= confidence <= 1 else None
    return track, storable(data["transcript"].strip())[:MAX_TEXT_CHARS], confidence


def read_event(source: str, params: Mapping[str, str]) -> CallEvent:
    """The call event a verified callback carries; `TwilioEventError` names what is missing or wrong."""
    kind = EVENT_KINDS.get(params.get("TranscriptionEvent", ""))
    if kind is None:
        raise TwilioEventError(f"unknown TranscriptionEvent {params.get('TranscriptionEvent', '')[:40]!r}")
    call_id = storable(params.get("CallSid", ""))
    if not call_id or len(call_id) > 255:
        raise TwilioEventError("CallSid is missing or longer than 255 characters")
    sequence = params.get("SequenceId", "")
    if not sequence.isdigit() or int(sequence) >= 2**31:
        raise TwilioEventError("SequenceId must be a whole number")
    at = _timestamp(params)
    event = CallEvent(source=source, vendor="twilio", call_id=call_id, sequence=int(sequence), kind=kind, spoken_at=at)
    if kind is EventKind.STARTED:
        return _replace(event, answered_at=at, language=params.get("LanguageCode") or None)
    if kind is EventKind.ERROR:
        detail = f"{params.get('TranscriptionErrorCode', '')} {params.get('TranscriptionError', '')}".strip()
        return _replace(event, detail=storable(detail)[:200] or "transcription error")
    if kind is EventKind.UTTERANCE:
        track, text, confidence = _utterance(params)
        final = params.get("Final", "true").lower() == "true"
        language = (params.get("LanguageCode") or None) and params["LanguageCode"][:16]
        return _replace(event, track=track, text=text, final=final, confidence=confidence, language=language)
    return event


def _replace(event: CallEvent, **changes: object) -> CallEvent:
    import dataclasses

    return dataclasses.replace(event, **changes)  # type: ignore[arg-type]
