"""Webhook intake: `POST /v1/intake/{source}`, signed with Standard Webhooks, stored before the 202."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

import anyio
from fastapi import APIRouter, BackgroundTasks, HTTPException, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ValidationError
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from starlette.concurrency import run_in_threadpool

from app.api.deps import HeapDep, IntakeMetricsDep, SettingsDep, SourceLimitsDep
from app.db.session import session_scope
from app.incidents.pipeline import store_message
from app.intake.limits import SourceLimits
from app.intake.schemas import IntakeAccepted, IntakeMessage, refusals
from app.intake.signatures import SignatureError, verify
from app.intake.sources import SUSPENDED_RETRY_AFTER_S, SourceState
from app.redis.shared_value import SharedValue
from app.status.metrics import IntakeMetrics
from app.worker.publish import try_hand_over

log = logging.getLogger(__name__)
T = TypeVar("T")
router = APIRouter(tags=["intake"])

DATABASE_AWAY = (OperationalError, InterfaceError, PoolTimeoutError)
"""The database cannot take the message now (down, restarting, its connections lost or all taken): nothing was
stored, or what was is found by its webhook-id when the sender retries."""
DATABASE_RETRY_AFTER_S = 1


class FieldError(BaseModel):
    field: str
    reason: str


class IntakeRejected(BaseModel):
    """422: the body is not a valid message."""

    detail: str
    errors: list[FieldError]


class BodyTooLargeError(Exception):
    pass


async def read_limited(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BodyTooLargeError
    body = bytearray()
    async for chunk in request.stream():
        body.extend(chunk)
        if len(body) > limit:
            raise BodyTooLargeError
    return bytes(body)


def why(error: Exception) -> str:
    """The driver's first line, never SQLAlchemy's whole message (it quotes the statement's parameters: the call)."""
    cause = getattr(error, "orig", None) or error
    lines = str(cause).splitlines()
    return f"{type(cause).__name__}: {lines[0] if lines else ''}"


def rejected(error: ValidationError) -> JSONResponse:
    errors = [FieldError(field=field, reason=reason) for field, reason in refusals(error)]
    body = IntakeRejected(detail="invalid message", errors=errors)
    return JSONResponse(body.model_dump(), status_code=422)


def database_away(source: str, webhook_id: str | None, metrics: IntakeMetrics, error: Exception) -> HTTPException:
    metrics.rejected.labels("database_unavailable").inc()
    log.warning("intake: source=%s webhook_id=%s not stored, the database is away: %s", source, webhook_id, why(error))
    return HTTPException(
        503, "the database is unavailable; retry the same message", headers={"Retry-After": str(DATABASE_RETRY_AFTER_S)}
    )


async def source_state(request: Request, source: str, metrics: IntakeMetrics) -> SourceState:
    """The source's state (secrets, suspension) as this process last read it (at most `STATE_TTL_S` old)."""
    states: SharedValue[dict[str, SourceState]] = request.app.state.source_states
    fresh = states.peek()  # the usual case: no thread taken for a value read less than a few seconds ago
    try:
        return (fresh if fresh is not None else await admission_thread(request, states.get))[source]
    except DATABASE_AWAY as error:
        raise database_away(source, request.headers.get("webhook-id"), metrics, error) from None


async def admission_thread(request: Request, step: Callable[[], T]) -> T:
    """Run a short blocking step of admission (the cached source state, a Redis limit check) on threads of its own
    (`app.state.admission_limiter`), apart from the request threadpool: under a flood that pool fills with stored calls
    waiting on the database, and a refusal waiting behind them took seconds (issue 31: 429 p99 9.7 s)."""
    limiter: anyio.CapacityLimiter = request.app.state.admission_limiter
    return await anyio.to_thread.run_sync(step, limiter=limiter)


async def _admit(
    request: Request, source: str, state: SourceState, webhook_id: str, metrics: IntakeMetrics, limits: SourceLimits
) -> None:
    """Refuse an authenticated call of a suspended source (503) or of one over its limit (429), both with
    Retry-After: nothing is stored, and the sender's retry is accepted once the source may send again."""
    if state.suspended:
        metrics.rejected.labels("suspended").inc()
        metrics.refused.labels(source, "suspended").inc()
        log.warning("intake: source=%s webhook_id=%s refused, the source is suspended", source, webhook_id)
        raise HTTPException(503, state.refusal(), headers={"Retry-After": str(SUSPENDED_RETRY_AFTER_S)})
    # Counted once authenticated: a sender without the secret cannot use up a source's room.
    over = await admission_thread(request, lambda: limits.hit(source))
    if over is not None:
        metrics.rejected.labels("rate_limited").inc()
        metrics.refused.labels(source, "rate_limited").inc()
        log.warning("intake: source=%s webhook_id=%s refused, over its limit %s", source, webhook_id, over.limit)
        raise HTTPException(429, over.reason, headers={"Retry-After": str(over.retry_after_s)})


@router.post(
    "/v1/intake/{source}",
    status_code=202,
    response_model=IntakeAccepted,
    responses={
        422: {"model": IntakeRejected},
        429: {"description": "the source is over its limit: nothing stored; retry the same message after Retry-After"},
        503: {
            "description": "the database is away, or the source is suspended: nothing stored; retry the same message "
            "after Retry-After"
        },
    },
)
async def intake(
    source: str,
    request: Request,
    background: BackgroundTasks,
    settings: SettingsDep,
    metrics: IntakeMetricsDep,
    heap: HeapDep,
    limits: SourceLimitsDep,
) -> IntakeAccepted | JSONResponse:
    """Verify the signature on the raw bytes, admit the source's call, store the message with its outbox entry,
    answer 202, hand over."""
    if source not in settings.webhook_secrets:
        metrics.rejected.labels("unknown_source").inc()
        raise HTTPException(404, f"unknown source {source!r}")
    try:
        body = await read_limited(request, settings.max_body_bytes)
    except BodyTooLargeError:
        metrics.rejected.labels("too_large").inc()
        raise HTTPException(413, f"body over {settings.max_body_bytes} bytes") from None
    state = await source_state(request, source, metrics)
    webhook_id = request.headers.get("webhook-id")
    try:
        verify(
            state.secrets,
            webhook_id,
            request.headers.get("webhook-timestamp"),
            request.headers.get("webhook-signature"),
            body,
            settings.webhook_tolerance_s,
        )
    except SignatureError as error:
        metrics.rejected.labels(error.reason).inc()
        raise HTTPException(401, str(error)) from None
    assert webhook_id is not None
    if len(webhook_id) > 255:
        metrics.rejected.labels("invalid").inc()
        raise HTTPException(422, "webhook-id longer than 255 characters")
    await _admit(request, source, state, webhook_id, metrics, limits)
    try:
        message = IntakeMessage.model_validate_json(body)
    except ValidationError as error:
        metrics.rejected.labels("invalid").inc()
        return rejected(error)

    def store() -> tuple[str, bool]:
        with session_scope(settings.database_url) as session:
            return store_message(session, source, webhook_id, message)

    try:
        incident_id, duplicate = await run_in_threadpool(store)
    except DATABASE_AWAY as error:
        raise database_away(source, webhook_id, metrics, error) from None
    if duplicate:
        metrics.duplicates.labels(source).inc()
    else:
        metrics.accepted.labels(source).inc()
        if heap is not None:
            background.add_task(try_hand_over, incident_id, message.text)
    return IntakeAccepted(incident_id=incident_id, duplicate=duplicate)
