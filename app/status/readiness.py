"""Readiness checks (database, Redis, worker and engine heartbeats) on connections of their own, cached briefly."""

from __future__ import annotations

import asyncio
import copy
import functools
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

import redis
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from app.db.session import HIDE_PARAMETERS
from app.redis import keys
from app.redis.queueing import side_redis_client
from app.settings import Settings
from app.status.engine import engine_reports, engine_status

log = logging.getLogger(__name__)

READINESS_TTL_S = 2.0
"""How long one check's answer is served to every caller: N concurrent probes cost one check."""

CHECK_TIMEOUT_S = 1.0
"""The bound on each wait of a check (a connection, an answer); a check that hits it reports an error."""

READINESS_CLIENT_NAME = "triage-readyz"
"""The name readiness's Redis connections carry (`CLIENT LIST` tells them from the pipeline's)."""

CHECKS = ("database", "redis", "workers", "engine")

T = TypeVar("T")


@functools.cache
def readiness_redis(url: str) -> redis.Redis:
    """Readiness's own Redis client, not the pipeline's nor the Celery broker's pool, every wait bounded by
    `CHECK_TIMEOUT_S`."""
    return side_redis_client(url, CHECK_TIMEOUT_S, client_name=READINESS_CLIENT_NAME)


@functools.cache
def readiness_engine(database_url: str) -> Engine:
    """Readiness's own database engine: no pool to wait for (one short connection per check), connecting and the
    query bounded."""
    url = make_url(database_url)
    connect_args: dict[str, Any] = {}
    if url.get_backend_name() == "sqlite":
        connect_args = {"timeout": CHECK_TIMEOUT_S}
    elif url.get_backend_name() == "postgresql":
        # libpq's connect_timeout counts whole seconds, 2 at least.
        connect_args = {"connect_timeout": 2, "options": f"-c statement_timeout={int(CHECK_TIMEOUT_S * 1000)}"}
    return create_engine(url, poolclass=NullPool, connect_args=connect_args, hide_parameters=HIDE_PARAMETERS)


def check_readiness(settings: Settings) -> dict[str, str]:
    """Every check by name: "ok" or "error: ..." (the worker and engine checks only when Redis answers)."""
    checks = {"database": database_check(settings.database_url)}
    if settings.redis_url is None:
        checks["redis"] = "error: TRIAGE_REDIS_URL is not set"
        return checks
    client = readiness_redis(settings.redis_url)
    try:
        client.ping()
        checks["redis"] = "ok"
        checks["workers"] = worker_check(client, settings.queue_prefix)
        checks["engine"] = engine_check(client, settings.queue_prefix)
    except Exception as error:
        checks["redis"] = _unanswered("redis", error)
    return checks


def engines_in_force(settings: Settings) -> list[dict[str, Any]]:
    """Each live engine worker's engine, model and the scheduling its scheduler reports back (`/readyz`'s
    `engines`); empty when Redis is not set or does not answer (the checks say why)."""
    if settings.redis_url is None:
        return []
    try:
        return engine_reports(readiness_redis(settings.redis_url), settings.queue_prefix)
    except Exception as error:
        log.warning("readiness: engine reports unavailable: %s", error)
        return []


def _unanswered(what: str, error: Exception) -> str:
    """The check's public answer names the kind of error only (the probe is unauthenticated: no host or user names);
    the details go to the log."""
    log.warning("readiness: %s check failed: %s", what, error)
    return f"error: {type(error).__name__}"


def is_ready(checks: dict[str, str]) -> bool:
    return set(checks) == set(CHECKS) and all(value == "ok" for value in checks.values())


def database_check(database_url: str) -> str:
    try:
        with readiness_engine(database_url).connect() as connection:
            connection.execute(text("SELECT 1"))
        return "ok"
    except Exception as error:
        return _unanswered("database", error)


def worker_check(client: Any, prefix: str) -> str:
    """A Celery worker is there when its heartbeat key is (a beat expires unless renewed; shutdown deletes it)."""
    if _keys(client, keys.worker_heartbeat_pattern(prefix)):
        return "ok"
    return "error: no Celery worker heartbeat"


def engine_check(client: Any, prefix: str) -> str:
    """ "ok" while an engine worker serves; else what is wrong and what to set (`app.status.engine`)."""
    return engine_status(client, prefix).to_check()


def _keys(client: Any, pattern: str) -> list[Any]:
    # SCAN walks the whole keyspace: large batches keep that to a few round trips.
    return list(client.scan_iter(match=pattern, count=1000))


@dataclass
class CachedCheck(Generic[T]):
    """One check for many callers: an answer younger than `ttl_s` is served as is; otherwise one caller runs
    `check` in a thread (off the event loop and off the request threadpool) while the others await its answer."""

    check: Callable[[], T]
    ttl_s: float = READINESS_TTL_S
    clock: Callable[[], float] = time.monotonic
    _answer: T | None = field(default=None, init=False)
    _at: float = field(default=-math.inf, init=False)
    _lock: asyncio.Lock | None = field(default=None, init=False)
    _loop: asyncio.AbstractEventLoop | None = field(default=None, init=False)

    async def get(self) -> T:
        if self._fresh():
            return copy.copy(cast(T, self._answer))
        async with self._loop_lock():
            if not self._fresh():  # else another caller refreshed it while this one waited
                answer = await asyncio.to_thread(self.check)
                self._answer, self._at = answer, self.clock()
            return copy.copy(cast(T, self._answer))

    def _fresh(self) -> bool:
        return self.clock() - self._at < self.ttl_s

    def _loop_lock(self) -> asyncio.Lock:
        # An asyncio lock belongs to one event loop; a test client may run the app on a new one.
        loop = asyncio.get_running_loop()
        if self._lock is None or self._loop is not loop:
            self._lock, self._loop = asyncio.Lock(), loop
        return self._lock
