"""Cross-origin refusal: a state-changing request a cookie authenticates must come from the console's own origin."""

from __future__ import annotations

import json
from collections.abc import Sequence
from http.cookies import CookieError, SimpleCookie
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
DEFAULT_PORTS = {"http": 80, "https": 443}
Origin = tuple[str, str, int]
"""(scheme, host, port), lower case, the port written out: how two origins are compared."""


def parse_origin(value: str) -> Origin | None:
    """The origin of an `Origin` header or a `Referer` URL; None for `null`, a path or anything unparsable."""
    try:
        parts = urlsplit(value.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return scheme, parts.hostname.lower(), port or DEFAULT_PORTS[scheme]


def own_origin(scope: Scope, headers: Headers) -> Origin | None:
    """This request's own origin: its scheme (https behind a trusted TLS proxy) and its `Host`."""
    return parse_origin(f"{scope.get('scheme', 'http')}://{headers.get('host', '')}")


def show(origin: Origin | None) -> str:
    if origin is None:
        return "none"
    scheme, host, port = origin
    return f"{scheme}://{host}" + ("" if DEFAULT_PORTS[scheme] == port else f":{port}")


def cross_origin_reason(scope: Scope, headers: Headers, *, with_session: bool = True) -> str | None:
    """Why the request does not come from the console's own pages (None: it does). The `Origin` header decides;
    without one, the `Referer`'s origin. With neither (every browser sends `Origin` on a POST: not a browser) it is
    refused only `with_session`: a request carrying the session cookie must show where it comes from."""
    own = own_origin(scope, headers)
    if "origin" in headers:
        sent, named = parse_origin(headers["origin"]), f"Origin {headers['origin']!r}"
    elif "referer" in headers:
        sent, named = parse_origin(headers["referer"]), f"Referer origin {show(parse_origin(headers['referer']))}"
    elif with_session:
        return (
            "cross-origin check: a state-changing request with the console's session needs an Origin or Referer "
            "header (a browser sends one; a script should use an API token instead)"
        )
    else:
        return None
    if sent is not None and sent == own:
        return None
    reason = f"cross-origin request refused: {named} is not this console's origin {show(own)}"
    if sent is not None and own is not None and sent[1] == own[1] and sent[0] != own[0]:
        reason += " (behind a TLS proxy: list the proxy in TRIAGE_TRUSTED_PROXIES, so the app sees https)"
    return reason


def bearer_token(headers: Headers) -> str | None:
    """The credentials of an `Authorization: Bearer ...` header ("" when it has none); None without one."""
    scheme, _, credentials = headers.get("authorization", "").strip().partition(" ")
    return credentials.strip() if scheme.lower() == "bearer" else None


def without_cookie(raw: str, name: str) -> str:
    """A `Cookie` header with every `name=...` pair removed (split as Starlette's own parser splits it)."""
    kept = [pair for pair in raw.split(";") if pair.split("=", 1)[0].strip() != name]
    return ";".join(kept).strip()


def carries_cookie(headers: Headers, name: str) -> bool:
    raw = headers.get("cookie", "")
    if name not in raw:
        return False
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(raw)
    except CookieError:
        return True  # unparsable: treat as present, so the check runs
    return name in jar


class CrossOriginRefusalMiddleware:
    """403 (with the reason) for a POST, PUT, PATCH or DELETE that a browser could send on the user's behalf from
    another origin: one carrying the session cookie (which must also name its origin), and one from another origin to
    the sign-in paths (login and logout CSRF, the first run's setup) or, while the development open API needs no
    credentials, to any path. A bearer-token request, and the webhook paths (signed bodies), are not checked: a browser
    never adds those credentials by itself. A bearer request loses the session cookie here, so the exemption cannot
    carry a session: behind this middleware, a request with a bearer header is its token's or no one's."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        cookie: str,
        always: Sequence[str],
        exempt_prefixes: Sequence[str],
        check_all: bool = False,
    ) -> None:
        self.app = app
        self.cookie = cookie
        self.always = frozenset(always)
        self.exempt_prefixes = tuple(exempt_prefixes)
        self.check_all = check_all

    def reason(self, scope: Scope, headers: Headers) -> str | None:
        """Why this request is refused; None when it passes or is not checked."""
        path: str = scope["path"]
        if scope["method"] in SAFE_METHODS or path.startswith(self.exempt_prefixes):
            return None
        if bearer_token(headers) is not None:
            return None
        with_session = carries_cookie(headers, self.cookie)
        if not (with_session or self.check_all or path in self.always):
            return None
        return cross_origin_reason(scope, headers, with_session=with_session)

    def _drop_session(self, scope: Scope, headers: Headers) -> Scope:
        """The scope of a bearer request with the session cookie removed (the same scope otherwise)."""
        if bearer_token(headers) is None or not carries_cookie(headers, self.cookie):
            return scope
        kept = [(key, value) for key, value in scope["headers"] if key != b"cookie"]
        cookie = without_cookie(headers.get("cookie", ""), self.cookie)
        if cookie:
            kept.append((b"cookie", cookie.encode("latin-1")))
        return {**scope, "headers": kept}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            scope = self._drop_session(scope, Headers(scope=scope))
        if scope["type"] == "http":
            reason = self.reason(scope, Headers(scope=scope))
            if reason is not None:
                body = json.dumps({"detail": reason}).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 403,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"vary", b"Origin"),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
