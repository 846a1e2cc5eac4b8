"""Which host the app answers as: only the allowed `Host` names, and no forwarded host reaching the console's links."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

FORWARDED_HOST_HEADERS = frozenset({b"x-forwarded-host", b"x-forwarded-proto", b"x-gradio-server"})
"""Gradio builds the console's root URL from these before `Host`; the proxy keeps `Host` as the browser sent it, and
the scheme a trusted proxy forwards is already in the request's scope (`TRIAGE_TRUSTED_PROXIES`)."""


class ForwardedHostRemovalMiddleware:
    """Removes `FORWARDED_HOST_HEADERS` from every request, so the console's links come from the checked `Host` and
    the request's own scheme, never from a header any client can send."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            headers = [(name, value) for name, value in scope["headers"] if name not in FORWARDED_HOST_HEADERS]
            scope = {**scope, "headers": headers}
        await self.app(scope, receive, send)
