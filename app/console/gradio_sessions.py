"""Each console session's Gradio sessions and events are its own: the session hashes its page sends are put in a
namespace of that console session, and an event's results are answered only to the console session that made it."""

from __future__ import annotations

import hashlib
import re
import uuid
from collections import OrderedDict
from typing import Any

GRADIO_API = "/console/gradio_api"
HEARTBEAT = re.compile(r"^/console/gradio_api/heartbeat/(?P<hash>[^/]+)$")
EVENT_RESULTS = re.compile(r"^/console/gradio_api/call/(?:v2/)?[^/]+/(?P<event>[^/]+)$")
"""`GET /call/{api_name}/{event_id}`: an event's results, streamed."""
MAKES_EVENT = re.compile(r"^/console/gradio_api/(?:queue/join|call/(?:v2/)?[^/]+)/?$")
"""POSTs that put an event in Gradio's queue and answer its id."""
CARRIES_SESSION = re.compile(
    r"^/console/gradio_api/(?:queue/join|call/(?:v2/)?[^/]+|run/[^/]+|api/[^/]+|cancel|component_server)/?$"
)
"""POSTs whose JSON body names a Gradio session (`session_hash`)."""
MEDIA_STREAMS = "/console/gradio_api/stream/"
"""Gradio's media streaming routes, by session hash or event id: the console has no streaming component."""
MAX_EVENTS = 50_000
"""Event owners remembered (the oldest forgotten first: its results are then no one's, 404)."""


def session_tag(token: str) -> str:
    """A console session's namespace: derived from its cookie token (which nobody else holds), not the token."""
    return hashlib.sha256(b"gradio-session\0" + token.encode()).hexdigest()[:24]


def namespaced(tag: str, session_hash: str) -> str:
    """A Gradio session hash in a console session's namespace: another console session sending the same hash gets
    its own namespace's, so it never reaches this one's state, queue messages or results."""
    return f"{tag}-{session_hash}"


def heartbeat_path(path: str, tag: str) -> str | None:
    """A heartbeat's path with its session hash namespaced (None: not a heartbeat)."""
    found = HEARTBEAT.match(path)
    return None if found is None else f"{GRADIO_API}/heartbeat/{namespaced(tag, found['hash'])}"


def namespaced_query(query: list[tuple[str, str]], tag: str) -> list[tuple[str, str]]:
    """Query parameters with every `session_hash` namespaced (`GET queue/data?session_hash=...`)."""
    return [(key, namespaced(tag, value) if key == "session_hash" else value) for key, value in query]


def namespaced_body(body: dict[str, Any], tag: str, makes_event: bool) -> dict[str, Any]:
    """A JSON body with its `session_hash` namespaced; one that makes an event without naming a session (Gradio's
    `call` API) gets a new session in the namespace, since Gradio would otherwise use the event id as its session."""
    session_hash = body.get("session_hash")
    if isinstance(session_hash, str):
        return {**body, "session_hash": namespaced(tag, session_hash)}
    if makes_event:
        return {**body, "session_hash": namespaced(tag, uuid.uuid4().hex)}
    return body


class EventOwners:
    """Which console session made each event (by its tag), for the routes that take an event id."""

    def __init__(self, limit: int = MAX_EVENTS) -> None:
        self._owners: OrderedDict[str, str] = OrderedDict()
        self._limit = limit

    def record(self, event_id: str, tag: str) -> None:
        self._owners[event_id] = tag
        while len(self._owners) > self._limit:
            self._owners.popitem(last=False)

    def owned(self, event_id: str, tag: str) -> bool:
        """Whether the console session of `tag` made the event (an unknown or forgotten one is no one's)."""
        return self._owners.get(event_id) == tag
