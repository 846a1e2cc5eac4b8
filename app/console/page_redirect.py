"""The console page sends a signed-out visitor to sign in: plain ASGI, so every other path (intake's) passes through
at the cost of one comparison."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from app.auth.accounts import Principal

CONSOLE_PAGES = frozenset({"/console", "/console/"})
SIGN_IN_URL = f"/login?next={quote('/console/')}"


class ConsolePageRedirect:
    """`GET /console` or `/console/` without a live session: 303 to the sign-in page. Replaces a
    `BaseHTTPMiddleware` that ran (a task and a stream per request) for every request, intake's included."""

    def __init__(self, app: ASGIApp, *, cookie: str, principal_for: Callable[[str | None], Principal | None]) -> None:
        self.app = app
        self.cookie = cookie
        self.principal_for = principal_for
        """The signed-in user of a session token (None: no live session); blocking, run in a worker thread."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET" or scope["path"] not in CONSOLE_PAGES:
            await self.app(scope, receive, send)
            return
        token = Request(scope).cookies.get(self.cookie)
        if await run_in_threadpool(self.principal_for, token) is None:
            await RedirectResponse(SIGN_IN_URL, status_code=303)(scope, receive, send)
            return
        await self.app(scope, receive, send)
