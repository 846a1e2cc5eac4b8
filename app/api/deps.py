"""The web app's dependencies as `Annotated` aliases: settings, a session, who is calling and what they may do.

Those that only read `app.state` are `async def`: FastAPI runs a plain `def` dependency on its threadpool, a
thread hop per dependency per request that cost intake about a tenth of its event loop (issue 31)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from prometheus_client import CollectorRegistry
from sqlalchemy.orm import Session

from app.api.origins import bearer_token
from app.auth.accounts import Principal, principal_for_token
from app.console.sessions import cookie_name, principal_for_session
from app.db.models import Role
from app.db.session import session_factory
from app.incidents.actions import DISPATCH_ROLES
from app.intake.limits import SourceLimits
from app.settings import Settings
from app.status.metrics import IntakeMetrics
from scheduler.redis_heap import RedisSemanticHeap


async def get_settings(request: Request) -> Settings:
    """The settings the app was built with."""
    settings: Settings = request.app.state.settings
    return settings


SettingsDep = Annotated[Settings, Depends(get_settings)]


def get_session(settings: SettingsDep) -> Iterator[Session]:
    """A session for the request, closed after it (routes that change something commit themselves)."""
    session = session_factory(settings.database_url)()
    try:
        yield session
    finally:
        session.close()


SessionDep = Annotated[Session, Depends(get_session)]


async def get_registry(request: Request) -> CollectorRegistry:
    registry: CollectorRegistry = request.app.state.registry
    return registry


async def get_intake_metrics(request: Request) -> IntakeMetrics:
    metrics: IntakeMetrics = request.app.state.intake_metrics
    return metrics


async def get_heap(request: Request) -> RedisSemanticHeap | None:
    """The Redis semantic heap, or None without `TRIAGE_REDIS_URL`."""
    heap: RedisSemanticHeap | None = request.app.state.heap
    return heap


async def get_source_limits(request: Request) -> SourceLimits:
    """Every source's intake limit (in Redis when the app has one)."""
    limits: SourceLimits = request.app.state.source_limits
    return limits


RegistryDep = Annotated[CollectorRegistry, Depends(get_registry)]
IntakeMetricsDep = Annotated[IntakeMetrics, Depends(get_intake_metrics)]
HeapDep = Annotated[RedisSemanticHeap | None, Depends(get_heap)]
SourceLimitsDep = Annotated[SourceLimits, Depends(get_source_limits)]


def current_principal(request: Request, session: SessionDep, settings: SettingsDep) -> Principal:
    """Someone allowed to read incidents: a bearer token's user, the console's session, or the dev open API. A bearer
    header decides alone: a token that is not valid is a 401, whatever cookie comes with it (the origin check lets
    bearer calls through because a browser never adds one itself; a fallback to the cookie would carry a session
    past it)."""
    token = bearer_token(request.headers)
    if token is not None:
        principal = principal_for_token(session, token) if token else None
        if principal is None:
            raise HTTPException(401, "this API token is not valid (revoked, of a disabled user, or never issued)")
        return principal
    console_user = principal_for_session(session, request.cookies.get(cookie_name(settings.session_cookie_secure)))
    if console_user is not None:
        return console_user
    if settings.api_open:
        return Principal("dev-open-api", Role.SUPERVISOR)
    raise HTTPException(401, "authentication required: a bearer API token or a console session")


CurrentPrincipal = Annotated[Principal, Depends(current_principal)]
"""Any signed-in user (a reader): call-taker, dispatcher or supervisor."""


def dispatcher_principal(principal: CurrentPrincipal) -> Principal:
    """A dispatcher or supervisor; anyone else gets 403."""
    if principal.role not in DISPATCH_ROLES:
        raise HTTPException(403, f"a {principal.role.value} may not change an incident (dispatchers and supervisors)")
    return principal


DispatcherPrincipal = Annotated[Principal, Depends(dispatcher_principal)]
