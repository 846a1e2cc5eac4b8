"""Operations: liveness (/healthz), readiness (/readyz: database, Redis, a Celery worker, an engine) and /metrics."""

from __future__ import annotations

import functools
import hmac
from typing import Any

from fastapi import APIRouter, FastAPI, HTTPException, Request, Response
from fastapi.responses import PlainTextResponse
from prometheus_client import generate_latest

from app.api.deps import RegistryDep, SettingsDep
from app.api.schemas import EngineInForce, HealthStatus, Readiness
from app.settings import Settings
from app.status.readiness import CachedCheck, check_readiness, engines_in_force, is_ready

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=HealthStatus)
async def healthz() -> HealthStatus:
    """Alive: answered on the event loop, so it never waits for a thread of the request threadpool."""
    return HealthStatus(status="ok")


@router.get("/readyz", response_model=Readiness, responses={503: {"model": Readiness}})
async def readyz(request: Request, response: Response) -> Readiness:
    """Ready when the database, Redis, a Celery worker's heartbeat and an engine worker's all say so; else 503 with
    the checks. One check per `READINESS_TTL_S` serves every caller; it never touches the Celery broker."""
    checks = await readiness_of(request.app).get()
    engines = await engines_of(request.app).get()
    ready = is_ready(checks)
    response.status_code = 200 if ready else 503
    return Readiness(ready=ready, checks=checks, engines=[EngineInForce(**engine) for engine in engines])


def check_metrics_access(settings: Settings, authorization: str) -> None:
    """/metrics with TRIAGE_METRICS_TOKEN: that bearer token (401 otherwise); without: open in development, 404 in
    production (queue depths and intake counts are no one's business outside)."""
    if settings.metrics_token is None:
        if settings.env == "production":
            raise HTTPException(404, "metrics are off in production without TRIAGE_METRICS_TOKEN")
        return
    offered = authorization[7:].strip() if authorization.lower().startswith("bearer ") else ""
    if not hmac.compare_digest(offered.encode(), settings.metrics_token.get_secret_value().encode()):
        raise HTTPException(401, "metrics need the bearer token TRIAGE_METRICS_TOKEN", {"WWW-Authenticate": "Bearer"})


@router.get("/metrics", response_class=PlainTextResponse)
def metrics(request: Request, registry: RegistryDep, settings: SettingsDep) -> PlainTextResponse:
    """Prometheus text: intake counters, and the queue and engine figures kept in Redis."""
    check_metrics_access(settings, request.headers.get("authorization", ""))
    return PlainTextResponse(generate_latest(registry).decode(), media_type="text/plain; version=0.0.4")


def readiness_of(app: FastAPI) -> CachedCheck[dict[str, str]]:
    """The app's cached readiness check, made on first use (`app.state.readiness`; a test may set its own)."""
    cached: CachedCheck[dict[str, str]] | None = getattr(app.state, "readiness", None)
    if cached is None:
        # The settings from app.state, not `SettingsDep`: a sync dependency would take a threadpool thread per call.
        settings: Settings = app.state.settings
        cached = CachedCheck(functools.partial(check_readiness, settings))
        app.state.readiness = cached
    return cached


def engines_of(app: FastAPI) -> CachedCheck[list[dict[str, Any]]]:
    """The app's cached read of the engine workers' reports (`app.state.engines_in_force`), as `readiness_of`."""
    cached: CachedCheck[list[dict[str, Any]]] | None = getattr(app.state, "engines_in_force", None)
    if cached is None:
        settings: Settings = app.state.settings
        cached = CachedCheck(functools.partial(engines_in_force, settings))
        app.state.engines_in_force = cached
    return cached
