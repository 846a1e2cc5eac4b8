"""Request body limits, enforced before any route reads the body (so before authentication): 413 past the limit."""

from __future__ import annotations

import json
from collections.abc import Sequence

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONSOLE_MAX_BODY_BYTES = 1_048_576
"""The console's Gradio events are small JSON (a message is at most 8,000 characters) and it takes no uploads."""


class BodyTooLargeError(Exception):
    """The body went past the limit while streaming in (no Content-Length, or a wrong one)."""


def limit_for(path: str, limits: Sequence[tuple[str, int | None]], default: int) -> int | None:
    """The limit of the first prefix `path` starts with, else `default`; None: the route enforces its own."""
    for prefix, limit in limits:
        if path == prefix.rstrip("/") or path.startswith(prefix):
            return limit
    return default


def _declared_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            return int(value) if value.isdigit() else None
    return None


async def refuse(send: Send, limit: int) -> None:
    """413 with the reason as JSON, like the routes' own refusals."""
    body = json.dumps({"detail": f"body over {limit} bytes"}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 413, "headers": [*headers, (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class BodyLimitMiddleware:
    """Refuses a declared Content-Length over the path's limit before the app runs, and counts the bytes of a
    streamed body, answering 413 instead of whatever the app would have answered once they pass the limit."""

    def __init__(self, app: ASGIApp, *, default: int, limits: Sequence[tuple[str, int | None]] = ()) -> None:
        self.app = app
        self.default = default
        self.limits = tuple(limits)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        limit = limit_for(scope["path"], self.limits, self.default) if scope["type"] == "http" else None
        if limit is None:
            await self.app(scope, receive, send)
            return
        declared = _declared_length(scope)
        if declared is not None and declared > limit:
            await refuse(send, limit)
            return
        received, over, started, refused = 0, False, False, False

        async def counted() -> Message:
            nonlocal received, over
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    over = True
                    raise BodyTooLargeError
            return message

        async def checked(message: Message) -> None:
            nonlocal started, refused
            if over and not started:  # the app caught the error and answered anyway: the 413 replaces its answer
                started = refused = True
                await refuse(send, limit)
            if refused:
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, checked)
        except BodyTooLargeError:
            if refused:
                return
            if started:  # part of an answer already went out: only closing the connection is left
                raise
            await refuse(send, limit)
