"""The FastAPI application: webhook intake, the incident API, health, readiness and metrics."""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from collections.abc import AsyncIterator
from typing import Any

from fastapi import BackgroundTasks, Depends, FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from prometheus_client import CollectorRegistry, generate_latest
from pydantic import ValidationError
from sqlalchemy import select, text
from sqlalchemy.orm import Session

from app.auth import Principal, principal_for_token
from app.console.sessions import COOKIE as SESSION_COOKIE
from app.console.sessions import principal_for_session
from app.db.models import Incident, IncidentStatus, Outcome, Role
from app.db.session import session_factory, session_scope
from app.incidents import URGENCY_ORDER, classification_view, event_view, incident_events, latest_classification
from app.intake.schemas import IntakeAccepted, IntakeMessage
from app.intake.signatures import SignatureError, verify
from app.metrics import IntakeMetrics, RedisMetricsCollector
from app.overrides import propagate_override, record_override
from app.pipeline import run_reconciler, store_message, try_hand_over
from app.queueing import heap_for, redis_client
from app.settings import Settings, get_settings
from scheduler.request import ESI_LEVELS

log = logging.getLogger(__name__)

ENGINE_HEARTBEAT = "engine:heartbeat"


class BodyTooLargeError(Exception):
    pass


async def _read_limited(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BodyTooLargeError
    body = bytearray()
    async for chunk in request.stream():
        body.extend(chunk)
        if len(body) > limit:
            raise BodyTooLargeError
    return bytes(body)


def create_app(settings: Settings | None = None, *, reconciler: bool = True, console: bool = True) -> FastAPI:
    """The web app for these settings; `reconciler` runs the outbox/heap reconciler beside it, `console` mounts
    the dispatcher console at /console."""
    settings = settings or get_settings()
    registry = CollectorRegistry()
    intake_metrics = IntakeMetrics(registry)
    heap = heap_for(settings.redis_url, settings.queue_prefix) if settings.redis_url else None
    if heap is not None:
        registry.register(RedisMetricsCollector(heap))

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        stop = threading.Event()
        thread = None
        if reconciler and heap is not None:
            thread = threading.Thread(target=run_reconciler, args=(settings, heap, stop), daemon=True)
            thread.start()
        yield
        stop.set()
        if thread is not None:
            thread.join(timeout=10)

    app = FastAPI(title="triage-dispatch", version="0.1.0", lifespan=lifespan)
    app.state.settings = settings

    def db() -> Any:
        session = session_factory(settings.database_url)()
        try:
            yield session
        finally:
            session.close()

    def reader(request: Request, session: Session = Depends(db)) -> Principal:  # noqa: B008
        """Someone allowed to read incidents: a bearer token's user, the console's session, or the dev open API."""
        header = request.headers.get("authorization", "")
        if header.lower().startswith("bearer "):
            principal = principal_for_token(session, header[7:].strip())
            if principal is not None:
                return principal
        console_user = principal_for_session(session, request.cookies.get(SESSION_COOKIE))
        if console_user is not None:
            return console_user
        if settings.api_open:
            return Principal("dev-open-api", Role.SUPERVISOR)
        raise HTTPException(401, "authentication required: a bearer API token or a console session")

    def dispatcher(principal: Principal = Depends(reader)) -> Principal:  # noqa: B008
        if principal.role not in (Role.DISPATCHER, Role.SUPERVISOR):
            raise HTTPException(403, f"a {principal.role.value} may not change an incident's acuity")
        return principal

    # ----- intake -----------------------------------------------------------------------------------------

    @app.post("/v1/intake/{source}", status_code=202, response_model=IntakeAccepted)
    async def intake(source: str, request: Request, background: BackgroundTasks) -> Any:
        secrets = settings.webhook_secrets.get(source)
        if secrets is None:
            intake_metrics.rejected.labels("unknown_source").inc()
            raise HTTPException(404, f"unknown source {source!r}")
        try:
            body = await _read_limited(request, settings.max_body_bytes)
        except BodyTooLargeError:
            intake_metrics.rejected.labels("too_large").inc()
            raise HTTPException(413, f"body over {settings.max_body_bytes} bytes") from None
        webhook_id = request.headers.get("webhook-id")
        try:
            verify(
                secrets,
                webhook_id,
                request.headers.get("webhook-timestamp"),
                request.headers.get("webhook-signature"),
                body,
                settings.webhook_tolerance_s,
            )
        except SignatureError as error:
            intake_metrics.rejected.labels(error.reason).inc()
            raise HTTPException(401, str(error)) from None
        assert webhook_id is not None
        if len(webhook_id) > 255:
            intake_metrics.rejected.labels("invalid").inc()
            raise HTTPException(422, "webhook-id longer than 255 characters")
        try:
            message = IntakeMessage.model_validate_json(body)
        except ValidationError as error:
            intake_metrics.rejected.labels("invalid").inc()
            reasons = [
                {"field": ".".join(str(part) for part in item["loc"]) or "body", "reason": item["msg"]}
                for item in error.errors()
            ]
            return JSONResponse({"detail": "invalid message", "errors": reasons}, status_code=422)

        def store() -> tuple[str, bool]:
            with session_scope(settings.database_url) as session:
                return store_message(session, source, webhook_id, message)

        from starlette.concurrency import run_in_threadpool

        incident_id, duplicate = await run_in_threadpool(store)
        if duplicate:
            intake_metrics.duplicates.labels(source).inc()
        else:
            intake_metrics.accepted.labels(source).inc()
            if heap is not None:
                background.add_task(try_hand_over, incident_id)
        return IntakeAccepted(incident_id=incident_id, duplicate=duplicate)

    # ----- incidents --------------------------------------------------------------------------------------

    @app.get("/v1/incidents")
    def list_incidents(
        status: str = "open",
        limit: int = 100,
        session: Session = Depends(db),  # noqa: B008
        _: Principal = Depends(reader),  # noqa: B008
    ) -> dict[str, Any]:
        """Incidents, most urgent first (unclassified ones last), then by arrival."""
        query = select(Incident)
        if status == "open":
            query = query.where(Incident.status != IncidentStatus.CLOSED.value)
        elif status != "all":
            if status not in {s.value for s in IncidentStatus}:
                raise HTTPException(422, f"status must be open, all or one of {[s.value for s in IncidentStatus]}")
            query = query.where(Incident.status == status)
        query = query.order_by(*URGENCY_ORDER)
        incidents = session.scalars(query.limit(max(1, min(limit, 1000)))).all()
        return {"incidents": [_summary(incident) for incident in incidents]}

    @app.get("/v1/incidents/{incident_id}")
    def get_incident(
        incident_id: str,
        session: Session = Depends(db),  # noqa: B008
        _: Principal = Depends(reader),  # noqa: B008
    ) -> dict[str, Any]:
        incident = session.get(Incident, incident_id)
        if incident is None:
            raise HTTPException(404, "no such incident")
        outcome = session.get(Outcome, incident_id)
        return {
            **_summary(incident),
            "text": incident.text,
            "caller": incident.caller,
            "location": incident.location,
            "call_id": incident.call_id,
            "classification": classification_view(latest_classification(session, incident_id)),
            "guidance": None
            if incident.guidance is None
            else {
                "text": incident.guidance.text,
                "tokens": incident.guidance.tokens,
                "model": incident.guidance.model,
                "prompt_version": incident.guidance.prompt_version,
            },
            "timings": {
                "received_at": _iso(incident.received_at),
                "accepted_at": _iso(incident.accepted_at),
                "classified_at": _iso(incident.classified_at),
                "queued_at": _iso(incident.queued_at),
                "queue_wait_s": outcome.queue_wait_s if outcome else None,
                "ttft_s": outcome.ttft_s if outcome else None,
                "total_s": outcome.total_s if outcome else None,
                "finished_at": _iso(outcome.finished_at) if outcome else None,
            },
            "outcome": None
            if outcome is None
            else {
                "tokens": outcome.tokens,
                "evictions": outcome.evictions,
                "deliveries": outcome.deliveries,
                "engine": outcome.engine,
                "model": outcome.model,
                "error": outcome.error,
            },
            "events": [
                {**event_view(event), "at": _iso(event.created_at)} for event in incident_events(session, incident_id)
            ],
        }

    @app.post("/v1/incidents/{incident_id}/override")
    def override(
        incident_id: str,
        payload: dict[str, Any],
        session: Session = Depends(db),  # noqa: B008
        principal: Principal = Depends(dispatcher),  # noqa: B008
    ) -> dict[str, Any]:
        """Set an incident's ESI level (a reason is required): re-keyed in the heap and the engine at once."""
        level, reason = payload.get("esi_level"), str(payload.get("reason") or "").strip()
        if level not in ESI_LEVELS:
            raise HTTPException(422, "esi_level must be 1..5")
        if not reason:
            raise HTTPException(422, "an override needs a reason")
        incident = session.get(Incident, incident_id)
        if incident is None:
            raise HTTPException(404, "no such incident")
        record_override(session, incident, int(level), reason, principal.name)
        session.commit()  # the database first: a worker that loads the incident from now on sees the new level
        return {
            "incident_id": incident_id,
            "esi_level": level,
            "heap": propagate_override(settings, incident_id, level),
        }

    # ----- operations -------------------------------------------------------------------------------------

    @app.get("/healthz")
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/readyz")
    def readyz() -> JSONResponse:
        checks: dict[str, Any] = {}
        try:
            with session_scope(settings.database_url) as session:
                session.execute(text("SELECT 1"))
            checks["database"] = "ok"
        except Exception as error:
            checks["database"] = f"error: {error}"
        if settings.redis_url is None:
            checks["redis"] = "error: TRIAGE_REDIS_URL is not set"
        else:
            client = redis_client(settings.redis_url)
            try:
                client.ping()
                checks["redis"] = "ok"
                checks["workers"] = _worker_check()
                checks["engine"] = _engine_check(client, settings.queue_prefix)
            except Exception as error:
                checks["redis"] = f"error: {error}"
        ready = all(value == "ok" for value in checks.values()) and len(checks) == 4
        return JSONResponse({"ready": ready, "checks": checks}, status_code=200 if ready else 503)

    @app.get("/metrics")
    def metrics() -> PlainTextResponse:
        return PlainTextResponse(generate_latest(registry).decode(), media_type="text/plain; version=0.0.4")

    if console:
        from app.console.ui import install_console

        install_console(app, settings)
    return app


def _worker_check() -> str:
    from app.worker.celery_app import celery_app

    replies = celery_app.control.ping(timeout=1.0)
    return "ok" if replies else "error: no Celery worker answered"


def _engine_check(client: Any, prefix: str) -> str:
    keys = list(client.scan_iter(f"{prefix}:{ENGINE_HEARTBEAT}:*"))
    if not keys:
        return "error: no engine worker heartbeat"
    healths = [json.loads(raw) for raw in client.mget(keys) if raw]
    if any(health.get("ok") for health in healths):
        return "ok"
    return "error: " + "; ".join(str(health.get("detail")) for health in healths)


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def _summary(incident: Incident) -> dict[str, Any]:
    return {
        "id": incident.id,
        "source": incident.source,
        "status": incident.status,
        "esi_level": incident.esi_level,
        "model_level": incident.model_level,
        "override_level": incident.override_level,
        "chief_complaint": incident.chief_complaint,
        "guidance_state": incident.guidance_state,
        "accepted_at": _iso(incident.accepted_at),
    }
