"""Gradio's routes under /console held to the console session: every one needs it, its Gradio sessions and events are
its own (`gradio_sessions`), and its streams (heartbeat, queue messages, event results, the console's queue) end with
it or their lifetime, a bounded number at a time."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.auth.accounts import Principal
from app.console.gradio_sessions import (
    CARRIES_SESSION,
    EVENT_RESULTS,
    GRADIO_API,
    HEARTBEAT,
    MAKES_EVENT,
    MEDIA_STREAMS,
    EventOwners,
    heartbeat_path,
    namespaced_body,
    namespaced_query,
    session_tag,
)
from app.console.queue_stream import STREAM_PATH
from app.console.sessions import SESSION_HOURS

STREAM_LIFETIME_S = SESSION_HOURS * 3600.0
"""A Gradio stream ends after this long at the latest (a shift, the longest a session lives); before that, as soon as
the console session that opened it has ended (checked at each message: a heartbeat's every 15 s)."""
MAX_STREAMS_PER_SESSION = 16
"""Streams one console session may hold open at once: a tab holds its queue stream, Gradio's heartbeat and, while an
event runs, its queue messages, so five tabs at least."""
STREAM_RETRY_AFTER_S = 30
STREAMS = (f"{GRADIO_API}/queue/data", STREAM_PATH)
"""Streams counted and ended here besides the heartbeats and event results: Gradio's queue messages, and the
console's own queue stream (which also ends itself: `queue_stream.py`)."""


class GradioSessionGuard:
    """ASGI middleware for every path under /console/ but the page itself (which sends a signed-out visitor to sign
    in): 401 without a live console session; Gradio's session hashes namespaced per console session, its event ids
    answered to their maker only (404 otherwise), its media streams refused (the console has none); its streams ended
    with the session or after `STREAM_LIFETIME_S`, at most `MAX_STREAMS_PER_SESSION` at once (429)."""

    def __init__(self, app: ASGIApp, *, cookie: str, principal_for: Callable[[str], Principal | None]) -> None:
        self.app = app
        self.cookie = cookie
        self.principal_for = principal_for
        """The signed-in user of a session token (None: no live session); blocking, run in a worker thread."""
        self.events = EventOwners()
        self.open_streams: dict[str, int] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope.get("path", "")
        if scope["type"] != "http" or not path.startswith("/console/") or path == "/console/":
            await self.app(scope, receive, send)
            return
        token = _cookie(scope, self.cookie)
        if token is None or await run_in_threadpool(self.principal_for, token) is None:
            await _answer(send, 401, "sign in to the console first")
            return
        if path.startswith(MEDIA_STREAMS):
            await _answer(send, 404, "the console streams no media")
            return
        tag = session_tag(token)
        scope = _namespaced_scope(scope, tag)
        if scope["method"] == "POST" and CARRIES_SESSION.match(path):
            body, refusal = await self._namespaced_body(scope, receive, tag)
            if refusal is not None:
                await _answer(send, *refusal)
                return
            receive = _replay(body, receive)
        if (
            scope["method"] == "GET"
            and (found := EVENT_RESULTS.match(path))
            and not self.events.owned(found["event"], tag)
        ):
            await _answer(send, 404, "no such event for this console session")
            return
        if scope["method"] == "GET" and (HEARTBEAT.match(path) or path in STREAMS or EVENT_RESULTS.match(path)):
            await self._stream(scope, receive, send, token, tag)
        elif scope["method"] == "POST" and MAKES_EVENT.match(path):
            await self.app(scope, receive, _recording_events(send, self.events, tag))
        else:
            await self.app(scope, receive, send)

    async def _namespaced_body(self, scope: Scope, receive: Receive, tag: str) -> tuple[bytes, tuple[int, str] | None]:
        """The request's JSON body with its Gradio session namespaced, or why it is refused."""
        raw = await _read_body(receive)
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            return raw, (415, "the console's Gradio routes take a JSON body")
        if not isinstance(body, dict):
            return raw, (422, "the console's Gradio routes take a JSON object")
        if scope["path"] == f"{GRADIO_API}/cancel" and not self.events.owned(str(body.get("event_id")), tag):
            return raw, (404, "no such event for this console session")
        return json.dumps(namespaced_body(body, tag, bool(MAKES_EVENT.match(scope["path"])))).encode(), None

    async def _stream(self, scope: Scope, receive: Receive, send: Send, token: str, tag: str) -> None:
        """Run a Gradio stream, counted against the session's streams and ended with the session or its lifetime."""
        if self.open_streams.get(tag, 0) >= MAX_STREAMS_PER_SESSION:
            await _answer(
                send,
                429,
                f"this console session already holds {MAX_STREAMS_PER_SESSION} of the console's streams (open tabs): "
                "close a tab, or try again later",
                {"retry-after": str(STREAM_RETRY_AFTER_S)},
            )
            return
        self.open_streams[tag] = self.open_streams.get(tag, 0) + 1
        life = _StreamLife(time.monotonic(), lambda: self.principal_for(token) is not None)
        try:
            await self.app(scope, life.receive(receive), life.send(send))
        finally:
            self.open_streams[tag] -= 1
            if not self.open_streams[tag]:
                del self.open_streams[tag]


@dataclass
class _StreamLife:
    """One stream's end: once its session has ended or its lifetime is over, the client gets the end of the body,
    and the app is told the client has gone (so Gradio cleans up as after a disconnect)."""

    began: float
    session_live: Callable[[], bool]
    over: asyncio.Event = field(default_factory=asyncio.Event)

    def send(self, send: Send) -> Send:
        async def ending(message: Message) -> None:
            if self.over.is_set():
                return
            if message["type"] == "http.response.body" and message.get("more_body"):
                expired = time.monotonic() - self.began > STREAM_LIFETIME_S
                if expired or not await run_in_threadpool(self.session_live):
                    self.over.set()
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
                    return
            await send(message)

        return ending

    def receive(self, receive: Receive) -> Receive:
        async def until_over() -> Message:
            if self.over.is_set():
                return {"type": "http.disconnect"}
            message = asyncio.ensure_future(receive())
            over = asyncio.ensure_future(self.over.wait())
            await asyncio.wait({message, over}, return_when=asyncio.FIRST_COMPLETED)
            if message.done():
                over.cancel()
                return message.result()
            message.cancel()
            return {"type": "http.disconnect"}

        return until_over


def _namespaced_scope(scope: Scope, tag: str) -> Scope:
    """The scope with the session hash of a heartbeat's path, or of a `session_hash` query parameter, namespaced."""
    path = heartbeat_path(scope["path"], tag)
    if path is not None:
        scope = {**scope, "path": path, "raw_path": path.encode()}
    query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
    if any(key == "session_hash" for key, _ in query):
        scope = {**scope, "query_string": urlencode(namespaced_query(query, tag)).encode("latin-1")}
    return scope


def _recording_events(send: Send, events: EventOwners, tag: str) -> Send:
    """`send`, noting the id of the event an answer names (`{"event_id": ...}`) as this session's."""
    chunks: list[bytes] = []

    async def recording(message: Message) -> None:
        if message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                try:
                    answer: Any = json.loads(b"".join(chunks))
                except ValueError:
                    answer = None
                if isinstance(answer, dict) and isinstance(answer.get("event_id"), str):
                    events.record(answer["event_id"], tag)
        await send(message)

    return recording


async def _read_body(receive: Receive) -> bytes:
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return bytes(body)
        body.extend(message.get("body", b""))
        if not message.get("more_body"):
            return bytes(body)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A receive that gives `body` first, then whatever the client sends next (its disconnect)."""
    sent = False

    async def replaying() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replaying


def _cookie(scope: Scope, name: str) -> str | None:
    """The cookie as the routes behind read it (Starlette's parser)."""
    return cookie_parser(Headers(scope=scope).get("cookie", "")).get(name) or None


async def _answer(send: Send, status: int, detail: str, headers: dict[str, str] | None = None) -> None:
    body = json.dumps({"detail": detail}).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(key.encode(), value.encode()) for key, value in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
