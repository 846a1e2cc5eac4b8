"""Live-call intake: Twilio Real-Time Transcription callbacks (`X-Twilio-Signature`) and the vendor-neutral segment
webhook (Standard Webhooks), each event stored with the call's others by group commit before it is answered.

Answers fit the senders' retries: Twilio retries a 5xx, 408, 425 or 429 (up to three times) and nothing else, so a
forged or stale callback is 403 and a malformed one 400 (never retried), a call over its limit 429 with Retry-After
and a database away 503; a Standard Webhooks sender retries anything but a 2xx."""

from __future__ import annotations

import datetime as dt
import logging
from typing import TypeVar
from urllib.parse import parse_qsl

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ValidationError

from app.api.deps import IntakeMetricsDep, SettingsDep
from app.api.routes.intake import (
    DATABASE_AWAY,
    BodyTooLargeError,
    admission_thread,
    database_away,
    read_limited,
    rejected,
)
from app.db.models import utcnow
from app.intake.signatures import SignatureError, verify
from app.intake.sources import SUSPENDED_RETRY_AFTER_S, SourceState
from app.live.admission import LiveAdmission
from app.live.events import CallEvent, SegmentMessage
from app.live.store import Recorded
from app.live.twilio import TwilioEventError, TwilioSignatureError, read_event, signed_url, verify_signature
from app.live.writer import EventWriter
from app.redis.shared_value import SharedValue
from app.status.metrics import IntakeMetrics

log = logging.getLogger(__name__)
router = APIRouter(tags=["intake"])
T = TypeVar("T")


class LiveAccepted(BaseModel):
    incident_id: str
    duplicate: bool
    """True when the event changed nothing: seen before (same call and sequence), or a partial older than one in."""


async def _admit(request: Request, source: str, call_id: str, metrics: IntakeMetrics) -> None:
    """429 for a call over its limit (remembered here: answered on the event loop, no Redis) or, after the Redis
    checks on an admission thread, for a new call over its source's limit or a call that just went over its own."""
    admission: LiveAdmission = request.app.state.live_admission
    refusal = admission.refused_now(source, call_id)
    if refusal is None:
        refusal = await admission_thread(request, lambda: admission.admit(source, call_id))
    if refusal is not None:
        metrics.rejected.labels("rate_limited").inc()
        metrics.refused.labels(source, "rate_limited").inc()
        raise HTTPException(429, refusal.reason, headers={"Retry-After": str(refusal.retry_after_s)})


async def _store(request: Request, event: CallEvent, metrics: IntakeMetrics) -> LiveAccepted:
    writer: EventWriter = request.app.state.live_writer
    try:
        recorded: Recorded = await writer.write(event)
    except DATABASE_AWAY as error:
        raise database_away(event.source, f"{event.call_id}#{event.sequence}", metrics, error) from None
    metrics.live_events.labels(event.source, "duplicate" if recorded.duplicate else "stored").inc()
    return LiveAccepted(incident_id=recorded.incident_id, duplicate=recorded.duplicate)


async def _body(request: Request, limit: int, metrics: IntakeMetrics) -> bytes:
    try:
        return await read_limited(request, limit)
    except BodyTooLargeError:
        metrics.rejected.labels("too_large").inc()
        raise HTTPException(413, f"body over {limit} bytes") from None


@router.post(
    "/v1/intake/twilio/{source}/transcription",
    response_model=LiveAccepted,
    responses={
        400: {"description": "not a Real-Time Transcription callback (not retried by Twilio)"},
        403: {"description": "X-Twilio-Signature does not match, or the event is stale (not retried)"},
        429: {"description": "the source over its limit of calls, or the call over its own: retry after Retry-After"},
        503: {"description": "the database is away: nothing stored, retried by Twilio"},
    },
)
async def twilio_transcription(
    source: str, request: Request, settings: SettingsDep, metrics: IntakeMetricsDep
) -> LiveAccepted:
    """A Twilio Real-Time Transcription status callback: verified, read, admitted, stored; 200 once committed."""
    token = settings.twilio_auth_tokens.get(source)
    if token is None:
        metrics.rejected.labels("unknown_source").inc()
        raise HTTPException(404, f"unknown Twilio source {source!r}")
    body = await _body(request, settings.max_body_bytes, metrics)
    params = dict(parse_qsl(body.decode("utf-8", errors="replace"), keep_blank_values=True))
    query = f"?{request.url.query}" if request.url.query else ""
    url = signed_url(str(request.url), request.url.path + query, settings.twilio_public_url)
    try:
        verify_signature(
            token.get_secret_value(),
            url,
            params,
            request.headers.get("x-twilio-signature"),
            request.headers.get("x-twilio-webhooks-signature-settings"),
        )
        event = read_event(source, params)
    except TwilioSignatureError as error:
        metrics.rejected.labels("bad_signature").inc()
        raise HTTPException(403, str(error)) from None
    except TwilioEventError as error:
        metrics.rejected.labels("invalid").inc()
        raise HTTPException(400, str(error)) from None
    if abs((utcnow() - event.spoken_at).total_seconds()) > settings.webhook_tolerance_s:
        metrics.rejected.labels("stale_timestamp").inc()
        raise HTTPException(403, f"Timestamp more than {settings.webhook_tolerance_s} s from now: a stale callback")
    await _admit(request, source, event.call_id, metrics)
    return await _store(request, event, metrics)


async def _segment_source(request: Request, source: str, metrics: IntakeMetrics) -> SourceState:
    states: SharedValue[dict[str, SourceState]] = request.app.state.source_states
    fresh = states.peek()  # the usual case: no thread taken for a value read less than a few seconds ago
    try:
        state = (fresh if fresh is not None else await admission_thread(request, states.get))[source]
    except DATABASE_AWAY as error:
        raise database_away(source, request.headers.get("webhook-id"), metrics, error) from None
    if state.suspended:
        metrics.rejected.labels("suspended").inc()
        metrics.refused.labels(source, "suspended").inc()
        raise HTTPException(503, state.refusal(), headers={"Retry-After": str(SUSPENDED_RETRY_AFTER_S)})
    return state


@router.post(
    "/v1/intake/{source}/segments",
    response_model=LiveAccepted,
    responses={
        422: {"description": "not a segment"},
        429: {"description": "the source over its limit of calls, or the call over its own: retry after Retry-After"},
        503: {"description": "the database is away, or the source suspended: retry after Retry-After"},
    },
)
async def segments(
    source: str, request: Request, settings: SettingsDep, metrics: IntakeMetricsDep
) -> LiveAccepted | JSONResponse:
    """One utterance (or the start or stop) of a live call, signed with Standard Webhooks; 200 once committed."""
    if source not in settings.webhook_secrets:
        metrics.rejected.labels("unknown_source").inc()
        raise HTTPException(404, f"unknown source {source!r}")
    body = await _body(request, settings.max_body_bytes, metrics)
    state = await _segment_source(request, source, metrics)
    headers = request.headers
    try:
        verify(
            state.secrets,
            headers.get("webhook-id"),
            headers.get("webhook-timestamp"),
            headers.get("webhook-signature"),
            body,
            settings.webhook_tolerance_s,
        )
    except SignatureError as error:
        metrics.rejected.labels(error.reason).inc()
        raise HTTPException(401, str(error)) from None
    try:
        message = SegmentMessage.model_validate_json(body)
    except ValidationError as error:
        metrics.rejected.labels("invalid").inc()
        return rejected(error)
    await _admit(request, source, message.call_id, metrics)
    # Without the sender's answer time the call's clock starts at this event less its offset (kept from the first).
    answered = message.answered_at or utcnow() - dt.timedelta(seconds=message.offset_s)
    return await _store(request, message.to_event(source, answered), metrics)
