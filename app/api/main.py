"""The FastAPI application assembled: state, the reconciler's lifespan, the routers and the console at /console."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import anyio
from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from prometheus_client import CollectorRegistry
from starlette.middleware.trustedhost import TrustedHostMiddleware
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from app.api.headers import SecurityHeadersMiddleware
from app.api.hosts import ForwardedHostRemovalMiddleware
from app.api.limits import CONSOLE_MAX_BODY_BYTES, BodyLimitMiddleware
from app.api.origins import CrossOriginRefusalMiddleware
from app.api.routes import health, incidents, intake, live, live_calls, units
from app.console.first_run import SETUP_PATH
from app.console.sessions import cookie_name
from app.incidents.pipeline import run_reconciler
from app.intake.limits import source_limits_for
from app.intake.sources import source_state_cache
from app.live.admission import LiveAdmission
from app.live.handover import hand_over_to
from app.live.sweep import sweep_live_calls
from app.live.writer import EventWriter
from app.redis.queueing import settings_heap
from app.settings import Settings, get_settings
from app.status.metrics import IntakeMetrics, RedisMetricsCollector
from app.worker.publish import publish_classify, publish_retriage
from scheduler.redis_heap import RedisSemanticHeap

ADMISSION_THREADS = 8
"""Threads for intake's short blocking admission steps (Redis limit checks, the cached source state), apart from the
request threadpool so that a refusal never waits behind stored work."""

if TYPE_CHECKING:
    from app.console.first_run import SetupLink

SIGN_IN_PATHS = ("/login", "/logout", SETUP_PATH)
"""Checked for their origin even without a session cookie: a forged sign-in (into the attacker's account), sign-out
or first-run setup."""


def create_app(
    settings: Settings | None = None,
    *,
    reconciler: bool = True,
    console: bool = True,
    setup_link: SetupLink | None = None,
) -> FastAPI:
    """The web app for these settings; `reconciler` runs the outbox/heap reconciler beside it, `console` mounts
    the dispatcher console at /console (with the first run's `/setup` when `setup_link` is given)."""
    settings = settings or get_settings()
    registry = CollectorRegistry()
    heap = settings_heap(settings) if settings.redis_url else None
    if heap is not None:
        registry.register(RedisMetricsCollector(heap))

    writer = live_writer(settings, heap)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        stop = threading.Event()
        thread = None
        if reconciler and heap is not None:
            client = heap.client

            def live_sweep() -> object:
                return sweep_live_calls(settings, client, publish_retriage)

            args = (settings, heap, stop, publish_classify, live_sweep)
            thread = threading.Thread(target=run_reconciler, args=args, daemon=True)
            thread.start()
        yield
        stop.set()
        if thread is not None:
            thread.join(timeout=10)
        writer.close()

    docs = settings.api_docs  # off in production: the schema maps every route for whoever asks
    app = FastAPI(
        title="triage-dispatch",
        version="0.1.0",
        lifespan=lifespan,
        docs_url="/docs" if docs else None,
        redoc_url="/redoc" if docs else None,
        openapi_url="/openapi.json" if docs else None,
    )
    app.state.settings = settings
    app.state.registry = registry
    app.state.intake_metrics = IntakeMetrics(registry)
    app.state.heap = heap
    app.state.source_states = source_state_cache(settings)
    app.state.source_limits = source_limits_for(
        settings.intake_limits, settings.intake_limit, heap.client if heap is not None else None, settings.queue_prefix
    )
    app.state.live_writer = writer
    app.state.live_admission = LiveAdmission(
        app.state.source_limits,
        settings.live_call_limit,
        heap.client if heap is not None else None,
        settings.queue_prefix,
    )
    app.state.admission_limiter = anyio.CapacityLimiter(ADMISSION_THREADS)
    app.include_router(intake.router)
    app.include_router(live.router)
    app.include_router(live_calls.router)
    app.include_router(incidents.router)
    app.include_router(units.router)
    app.include_router(health.router)
    if console:
        from app.console.ui import install_console

        install_console(app, settings, setup_link)
    add_middleware(app, settings)
    return app


def live_writer(settings: Settings, heap: RedisSemanticHeap | None) -> EventWriter:
    """The live path's group-commit writer; after each commit the calls with new final words go to triage
    (coalesced per call, `app.live.handover`)."""
    if heap is None:
        return EventWriter(settings.database_url)
    return EventWriter(settings.database_url, hand_over_to(heap.client, heap.prefix, publish_retriage))


def add_middleware(app: FastAPI, settings: Settings) -> None:
    """The checks every request passes before any route (each added wraps the ones before; from the outermost):
    forwarded headers from trusted proxies, no forwarded host, security headers, the allowed hosts, the cross-origin
    refusal, CORS, the body limits. Called after the console is installed, so all of them wrap its own."""
    # Outside the console's session check: the limit holds before any route or that check reads a byte, and
    # every answer (the 413 included) carries the headers. Intake reads its body under the same limit itself,
    # before the signature check, and counts its refusals in its metrics.
    limits = [("/console/", CONSOLE_MAX_BODY_BYTES), ("/v1/intake/", None)]
    app.add_middleware(
        BodyLimitMiddleware, default=settings.max_body_bytes, limits=limits, timeout_s=settings.client_body_timeout_s
    )
    # No other origin may read or drive the console or the API: with a CORSMiddleware on the parent app, Gradio's
    # own (which reflects any Origin, with credentials, on a host that is not localhost) stands aside.
    app.add_middleware(CORSMiddleware, allow_origins=[], allow_credentials=False)
    # CORS stops another origin reading answers, not sending requests: a page on another port or a sibling
    # subdomain is the same site, so the SameSite=Lax cookie goes along. This refuses such a request before it runs.
    app.add_middleware(
        CrossOriginRefusalMiddleware,
        cookie=cookie_name(settings.session_cookie_secure),
        always=SIGN_IN_PATHS,
        exempt_prefixes=("/v1/intake/",),
        check_all=settings.api_open,
    )
    # Any other Host gets 400 (with the headers below): it would end up in the console's own links.
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(settings.allowed_hosts))
    app.add_middleware(SecurityHeadersMiddleware, hsts=settings.hsts)
    app.add_middleware(ForwardedHostRemovalMiddleware)
    if settings.trusted_proxies:
        # Outermost: every check above sees the client's own address and scheme. Only these peers are believed.
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=list(settings.trusted_proxies))
