"""Operations: liveness (/healthz), readiness (/readyz: database, Redis, a Celery worker, an engine) and /metrics."""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Response
from fastapi.responses import PlainTextResponse
from prometheus_client import generate_latest
from sqlalchemy import text

from app.api.deps import RegistryDep, SettingsDep
from app.api.schemas import HealthStatus, Readiness
from app.db.session import session_scope
from app.queueing import redis_client

ENGINE_HEARTBEAT = "engine:heartbeat"
"""The Redis key (after the queue prefix, before the consumer) where each engine worker writes its health."""

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=HealthStatus)
def healthz() -> HealthStatus:
    return HealthStatus(status="ok")


@router.get("/readyz", response_model=Readiness, responses={503: {"model": Readiness}})
def readyz(settings: SettingsDep, response: Response) -> Readiness:
    """Ready when the database, Redis, a Celery worker and an engine worker all answer; else 503 with the checks."""
    checks: dict[str, str] = {}
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
    response.status_code = 200 if ready else 503
    return Readiness(ready=ready, checks=checks)


@router.get("/metrics", response_class=PlainTextResponse)
def metrics(registry: RegistryDep) -> PlainTextResponse:
    """Prometheus text: intake counters, and the queue and engine figures kept in Redis."""
    return PlainTextResponse(generate_latest(registry).decode(), media_type="text/plain; version=0.0.4")


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
