"""Security headers on every response: a content security policy the console works under, no framing, no referrer
to other origins."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; "
    # Gradio's page boots from inline scripts and compiles some of its components at run time.
    "script-src 'self' 'unsafe-inline' 'unsafe-eval'; "
    "style-src 'self' 'unsafe-inline'; "
    # The dashboard's plot arrives as a data: URL.
    "img-src 'self' data: blob:; "
    "font-src 'self' data:; "
    "connect-src 'self' ws: wss:; "
    "frame-ancestors 'none'; "
    "base-uri 'self'; "
    "form-action 'self'"
)
SECURITY_HEADERS = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-frame-options": "DENY",
    # Not `no-referrer`: under it a browser sends `Origin: null` with the console's own POSTs, and the cross-origin
    # check (`app.api.origins`) needs their real origin. Other origins still get no referrer.
    "referrer-policy": "same-origin",
    "x-content-type-options": "nosniff",
}


HSTS = {"strict-transport-security": "max-age=31536000"}
"""Behind TLS only (`Settings.hsts`): the browser uses HTTPS for this host for a year. No includeSubDomains: the
site's siblings are not ours to decide for."""


def with_security_headers(
    headers: list[tuple[bytes, bytes]], wanted: dict[str, str] = SECURITY_HEADERS
) -> list[tuple[bytes, bytes]]:
    """`headers` with each `wanted` header the response has not set itself (a route's own stricter one stays)."""
    present = {name.lower().decode("latin-1") for name, _ in headers}
    added = [(name.encode(), value.encode()) for name, value in wanted.items() if name not in present]
    return [*headers, *added]


class SecurityHeadersMiddleware:
    """Adds `SECURITY_HEADERS` (and `HSTS` with `hsts`) to every HTTP response: the API, intake, the sign-in pages
    and the console."""

    def __init__(self, app: ASGIApp, *, hsts: bool = False) -> None:
        self.app = app
        self.wanted = {**SECURITY_HEADERS, **(HSTS if hsts else {})}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": with_security_headers(list(message.get("headers", [])), self.wanted)}
            await send(message)

        await self.app(scope, receive, send_with_headers)
