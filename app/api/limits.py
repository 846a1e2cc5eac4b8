"""Request body limits, enforced before any route reads the body (so before authentication): 413 past the size
limit, 408 past the deadline for the whole body."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONSOLE_MAX_BODY_BYTES = 1_048_576
"""The console's Gradio events are small JSON (a message is at most 8,000 characters) and it takes no uploads."""


class BodyTooLargeError(Exception):
    """The body went past the limit while streaming in (no Content-Length, or a wrong one)."""


class BodyTooSlowError(Exception):
    """The body was not all in by its deadline (a client sending a byte now and then holds a connection)."""


Refusal = tuple[int, str]
"""A status and its reason."""


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


async def refuse(send: Send, refusal: Refusal) -> None:
    """The refusal's status with its reason as JSON, like the routes' own refusals; the connection is closed after."""
    status, reason = refusal
    body = json.dumps({"detail": reason}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": [*headers, (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


def too_large(limit: int) -> Refusal:
    return 413, f"body over {limit} bytes"


class BodyLimitMiddleware:
    """Refuses a declared Content-Length over the path's limit before the app runs, and counts the bytes of a
    streamed body, answering 413 instead of whatever the app would have answered once they pass the limit. The client
    has `timeout_s` (None: no deadline) in all to send the body, counted only while the app waits for it (every path,
    intake too), else 408: a slow sender is let go, while a call the server is slow to read (a busy machine, a full
    thread pool) is never refused for the server's own delay."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        default: int,
        limits: Sequence[tuple[str, int | None]] = (),
        timeout_s: float | None = None,
    ) -> None:
        self.app = app
        self.default = default
        self.limits = tuple(limits)
        self.timeout_s = timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = limit_for(scope["path"], self.limits, self.default)
        declared = _declared_length(scope)
        if limit is not None and declared is not None and declared > limit:
            await refuse(send, too_large(limit))
            return
        timeout_s = self.timeout_s
        waited = 0.0
        received, refusal, body_done, started, refused = 0, None, False, False, False

        async def counted() -> Message:
            nonlocal received, refusal, body_done, waited
            if body_done or timeout_s is None:  # after the body only a disconnect can come: not bounded
                message = await receive()
            else:
                clock = asyncio.get_running_loop().time
                began = clock()
                try:
                    message = await asyncio.wait_for(receive(), max(timeout_s - waited, 0))
                except TimeoutError:
                    refusal = 408, f"body not received within {timeout_s:g} s"
                    raise BodyTooSlowError from None
                finally:
                    waited += clock() - began
            if message["type"] == "http.request" and not body_done:
                received += len(message.get("body", b""))
                body_done = not message.get("more_body", False)
                if limit is not None and received > limit:
                    refusal = too_large(limit)
                    raise BodyTooLargeError
            return message

        async def checked(message: Message) -> None:
            nonlocal started, refused
            if refusal is not None and not started:  # the app caught the error and answered anyway: replaced
                started = refused = True
                await refuse(send, refusal)
            if refused:
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, checked)
        except Exception:  # ours, or what the app made of it (a BaseHTTPMiddleware wraps it in an ExceptionGroup)
            if refusal is None:
                raise
            if refused:
                return
            if started:  # part of an answer already went out: only closing the connection is left
                raise
            await refuse(send, refusal)
