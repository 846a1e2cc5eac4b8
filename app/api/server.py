"""How uvicorn serves the web app for `serve`: no forwarded header believed by uvicorn itself (the app decides, from
TRIAGE_TRUSTED_PROXIES), and deadlines for slow clients."""

from __future__ import annotations

import uvicorn
from starlette.types import ASGIApp

from app.api.slow_clients import head_deadline_protocol
from app.settings import Settings

GRACEFUL_SHUTDOWN_S = 3
"""Open queue streams end when the graceful shutdown runs out (browsers reconnect to the next server)."""
KEEP_ALIVE_S = 5
"""An idle kept-alive connection is closed after this long (uvicorn's default, said here)."""
MAX_HEAD_BYTES = 64 * 1024
"""A request head larger than this is refused (400) by h11 before it is complete."""


def uvicorn_config(app: ASGIApp, settings: Settings, host: str, port: int) -> uvicorn.Config:
    """The server's configuration. uvicorn's own proxy headers are off: by default it believes X-Forwarded-For from
    127.0.0.1, so anyone on the host could pick the address the sign-in throttle counts; `create_app` applies
    TRIAGE_TRUSTED_PROXIES instead, whatever server runs it. uvicorn has no read timeout: the head's deadline is
    its h11 protocol with one (`app.api.slow_clients`), the body's the app's (`app.api.limits`)."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="info",
        proxy_headers=False,
        http=head_deadline_protocol(settings.client_header_timeout_s),
        timeout_keep_alive=KEEP_ALIVE_S,
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
    )
