"""How uvicorn serves the web app for `serve`: no forwarded header believed by uvicorn itself (the app decides, from
TRIAGE_TRUSTED_PROXIES)."""

from __future__ import annotations

import uvicorn
from starlette.types import ASGIApp

from app.settings import Settings

GRACEFUL_SHUTDOWN_S = 3
"""Open queue streams end when the graceful shutdown runs out (browsers reconnect to the next server)."""


def uvicorn_config(app: ASGIApp, settings: Settings, host: str, port: int) -> uvicorn.Config:
    """The server's configuration. uvicorn's own proxy headers are off: by default it believes X-Forwarded-For from
    127.0.0.1, so anyone on the host could pick the address the sign-in throttle counts; `create_app` applies
    TRIAGE_TRUSTED_PROXIES instead, whatever server runs it."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="info",
        proxy_headers=False,
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
    )
