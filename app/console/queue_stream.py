"""The queue pushed to each open console as Server-Sent Events: a row is sent when it changes, never the whole queue
every second; the page counts the wait clocks up itself."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import re
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.responses import PlainTextResponse, StreamingResponse
from starlette.concurrency import run_in_threadpool

from app.auth.accounts import Principal
from app.console.render import (
    DEFAULT_DEADLINES,
    EMPTY_QUEUE_ROW,
    QUEUE_HEAD,
    LevelDeadlines,
    render_engine_banner,
    render_intake_banner,
    render_row,
    urgent_ids,
)
from app.console.service import open_queue
from app.console.take_overs import TAKE_OVER_NOTICE_S, TakeOver, recent_take_overs, render_take_over
from app.db.models import Role
from app.db.session import session_scope
from app.intake.limits import SourceCounts
from app.redis.shared_value import SharedValue
from app.status.engine import EngineStatusCache

STREAM_PATH = "/console/stream/queue"
SESSION_PATH = "/console/stream/session"
"""204 while the caller's console session is live, else 401: asked by the page when its queue stream is refused."""
TICK_S = 1.0
"""How often a stream looks for changes (one shared read of the queue per tick, whatever the number of consoles)."""
KEEPALIVE_S = 15.0
"""A comment line this often keeps proxies from closing a quiet stream."""
STREAM_LIFETIME_S = 600.0
"""A stream ends after this long and the browser reconnects at once (a fresh full view; no connection held for
ever across a restart or a proxy)."""
QUEUE_SHELL = f'<div id="queue" data-urgent="" data-count="0">{QUEUE_HEAD}</tbody></table></div>'
ENGINE_BANNER_SLOT = '<div id="engine-banner-slot"></div>'
"""Above the tabs: the page's script puts the stream's banner here, so that every tab shows it."""
SEE_QUEUE = (Role.CALL_TAKER, Role.DISPATCHER, Role.SUPERVISOR)
_SINCE = re.compile(r'data-since="([^"]*)"')


@dataclass(frozen=True, slots=True)
class QueueView:
    """The queue as every console sees it at one moment: each row's HTML in order, the banner, the urgent ids."""

    order: tuple[str, ...]
    rows: dict[str, str]
    banner: str
    urgent: tuple[str, ...]
    now_s: float
    stable: dict[str, str]
    """Each row without what moves with the clock alone (`_without_clock`): what a patch compares, made once per
    view for every console."""
    intake_banner: str = ""
    """For supervisors only: the sources over their intake limit (`render_intake_banner`)."""
    supervisor_banner: str = ""
    """The engine banner with its cause and the setting that fixes it (`render_engine_banner` for a supervisor)."""
    taken_over: tuple[TakeOver, ...] = ()
    """Calls taken over in the last `TAKE_OVER_NOTICE_S`: each user who lost one is told (`banner_for`)."""

    def banner_for(self, supervisor: bool, user: str = "") -> str:
        """The banner a user sees: the engine's (with its cause for a supervisor), the intake flood (supervisors),
        and the calls another dispatcher took over from this user."""
        notices = "".join(render_take_over(item) for item in self.taken_over if item.from_user == user)
        if supervisor:
            return (self.supervisor_banner or self.banner) + self.intake_banner + notices
        return self.banner + notices


def read_view(
    database_url: str,
    engine: EngineStatusCache | None,
    now_s: float | None = None,
    over_limit: Callable[[], Mapping[str, SourceCounts]] | None = None,
    deadlines: LevelDeadlines = DEFAULT_DEADLINES,
) -> QueueView:
    """The queue now, rendered row by row (the wait cells carry the arrival time and their level's target among
    `deadlines`: the page counts and recolours), with the sources `over_limit` names (for the supervisors' banner)."""
    status = engine.get() if engine is not None else None
    now_s = time.time() if now_s is None else now_s
    with session_scope(database_url) as session:
        rows = open_queue(session, dt.datetime.fromtimestamp(now_s, dt.UTC))
        taken_over = recent_take_overs(session, dt.datetime.fromtimestamp(now_s - TAKE_OVER_NOTICE_S, dt.UTC))
    rendered = {row.incident_id: render_row(row, engine=status, live_clock=True, deadlines=deadlines) for row in rows}
    return QueueView(
        order=tuple(row.incident_id for row in rows),
        rows=rendered,
        banner=render_engine_banner(status),
        urgent=tuple(urgent_ids(rows)),
        now_s=now_s,
        stable={row_id: _without_clock(row_html) for row_id, row_html in rendered.items()},
        intake_banner=render_intake_banner(over_limit() if over_limit is not None else {}),
        supervisor_banner=render_engine_banner(status, supervisor=True),
        taken_over=tuple(taken_over),
    )


def queue_patch(
    before: QueueView | None, after: QueueView, supervisor: bool = False, user: str = ""
) -> dict[str, Any] | None:
    """What a console showing `before` needs to show `after` (None: nothing changed; everything when `before` is
    None). Wait clocks are not changes: the page counts them from `data-since`. A supervisor's banner carries the
    engine's cause and the intake banner too; `user`'s banner the calls taken over from them."""
    if before is None:
        return {
            "shell": QUEUE_SHELL,
            "empty": EMPTY_QUEUE_ROW,
            "order": list(after.order),
            "rows": after.rows,
            "removed": [],
            "banner": after.banner_for(supervisor, user),
            "urgent": list(after.urgent),
            "now": after.now_s,
        }
    changed = {
        row_id: row_html for row_id, row_html in after.rows.items() if before.stable.get(row_id) != after.stable[row_id]
    }
    removed = [row_id for row_id in before.order if row_id not in after.rows]
    patch: dict[str, Any] = {}
    if changed:
        patch["rows"] = changed
    if removed:
        patch["removed"] = removed
    if after.order != before.order:
        patch["order"] = list(after.order)
    if after.banner_for(supervisor, user) != before.banner_for(supervisor, user):
        patch["banner"] = after.banner_for(supervisor, user)
    if after.urgent != before.urgent:
        patch["urgent"] = list(after.urgent)
    if not patch:
        return None
    patch["now"] = after.now_s
    return patch


def _without_clock(row_html: str) -> str:
    """A row's HTML with its wait cell reduced to the arrival time (the cell's class and text move with the clock
    alone: the page counts them)."""
    start = row_html.find('<td class="wait-')
    if start < 0:
        return row_html
    end = row_html.find("</td>", start) + len("</td>")
    since = _SINCE.search(row_html, start, end)
    return row_html[:start] + (since.group(1) if since else "") + row_html[end:]


async def queue_events(
    request: Request,
    shared: SharedValue[QueueView],
    still_allowed: Callable[[], bool],
    lifetime_s: float = STREAM_LIFETIME_S,
    supervisor: bool = False,
    user: str = "",
) -> AsyncIterator[str]:
    """The stream: the whole view first, then a patch whenever something changed, and a keep-alive comment. It ends
    as soon as `still_allowed` says no (the session ended, the user was disabled or changed role): the browser's
    reconnection then meets the new answer (401, or the new role's rights)."""
    yield "retry: 1000\n\n"
    shown: QueueView | None = None
    began = quiet_since = time.monotonic()
    while time.monotonic() - began < lifetime_s and not await request.is_disconnected():
        if not await run_in_threadpool(still_allowed):
            return
        view = await run_in_threadpool(shared.get)
        patch = queue_patch(shown, view, supervisor, user)
        if patch is not None:
            yield f"event: queue\ndata: {json.dumps(patch, separators=(',', ':'))}\n\n"
            shown, quiet_since = view, time.monotonic()
        elif time.monotonic() - quiet_since >= KEEPALIVE_S:
            yield ": keep-alive\n\n"
            quiet_since = time.monotonic()
        await asyncio.sleep(TICK_S)


def add_queue_stream(
    app: FastAPI, shared: SharedValue[QueueView], current: Callable[[Request], Principal | None]
) -> None:
    """`GET /console/stream/queue`: the queue's events for a signed-in console user; `GET /console/stream/session`:
    whether the caller's session is still live."""

    @app.get(SESSION_PATH, include_in_schema=False)
    async def session_live(request: Request) -> Response:
        principal = await run_in_threadpool(current, request)
        return Response(status_code=204 if principal is not None else 401, headers={"Cache-Control": "no-store"})

    @app.get(STREAM_PATH, include_in_schema=False)
    async def queue_stream(request: Request) -> Response:
        principal = await run_in_threadpool(current, request)
        if principal is None:
            return PlainTextResponse("sign in first", status_code=401)
        if principal.role not in SEE_QUEUE:
            return PlainTextResponse("your role may not see the queue", status_code=403)

        def still_allowed() -> bool:  # checked every tick: the session cache makes it a query per 2 s per stream
            return current(request) == principal

        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        supervisor = principal.role == Role.SUPERVISOR
        events = queue_events(
            request, shared, still_allowed, lifetime_s=STREAM_LIFETIME_S, supervisor=supervisor, user=principal.name
        )
        return StreamingResponse(events, media_type="text/event-stream", headers=headers)
