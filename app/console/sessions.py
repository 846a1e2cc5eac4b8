"""Console sign-in sessions: a random cookie token, stored as its SHA-256 with an expiry; sign-out ends it."""

from __future__ import annotations

import datetime as dt
import secrets
import time
from dataclasses import dataclass

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.auth.accounts import DUMMY_PASSWORD_HASH, Principal, token_sha256, verify_password
from app.auth.signin_throttle import SignInThrottle
from app.db.models import ConsoleSession, Role, User, utcnow

COOKIE = "triage_session"
"""The session cookie's name over plain HTTP (development, or a pilot with TRIAGE_COOKIE_SECURE=false)."""
HOST_COOKIE = "__Host-" + COOKIE
"""Its name whenever it is `Secure` (production's default): browsers then hold it to `Secure`, `Path=/` and no
`Domain`, so a sibling subdomain or a plain-HTTP page can neither set nor shadow it."""
SESSION_HOURS = 12
"""A shift."""
_CACHE_S = 2.0
_cache: dict[str, tuple[float, Principal | None]] = {}
"""Token SHA-256 -> (when looked up, the user or None)."""


@dataclass(frozen=True, slots=True)
class SignInResult:
    """A sign-in's outcome: a session token, a refusal (no token), or throttled (`retry_after_s` > 0, not tried)."""

    token: str | None
    retry_after_s: int = 0


def throttled_sign_in(
    session: Session, throttle: SignInThrottle, name: str, password: str, client: str
) -> SignInResult:
    """`sign_in` unless the account or the client has failed too often lately: then refused before the password is
    checked (the right password after too many wrong ones is refused too)."""
    attempt = throttle.begin(name, client)  # counted as a failure until it succeeds: no race past the limit
    if attempt.retry_after_s:
        return SignInResult(None, attempt.retry_after_s)
    token = sign_in(session, name, password)
    if token is not None:
        throttle.succeeded(name, attempt)
    return SignInResult(token)


def sign_in(session: Session, name: str, password: str) -> str | None:
    """A new session token for a valid active user's name and password; None otherwise. One scrypt either way: an
    unknown, password-less or disabled user is checked against a dummy hash, so the time tells nothing."""
    user = session.scalar(select(User).where(User.name == name))
    stored = user.password_hash if user is not None and user.active and user.disabled_at is None else None
    matches = verify_password(password, stored or DUMMY_PASSWORD_HASH)
    if user is None or stored is None or not matches:
        return None
    return open_session(session, user)


def open_session(session: Session, user: User) -> str:
    """A new console session for the user (a shift long): its cookie token, stored only as its hash. The user's
    older sessions end (one live session per user): a console left signed in on a shared or stolen screen stops
    when its user signs in anywhere else, and a user's signing in is the sign that they hold no other screen.
    The screen that lost its session goes to the sign-in page saying why (`page_script.py`), within about 3 s."""
    end_sessions(session, user)
    token = secrets.token_urlsafe(32)
    session.add(
        ConsoleSession(
            token_sha256=token_sha256(token), user_id=user.id, expires_at=utcnow() + dt.timedelta(hours=SESSION_HOURS)
        )
    )
    return token


def cookie_name(secure: bool) -> str:
    """The session cookie's name: `__Host-triage_session` when `Secure`, else `triage_session` (a browser refuses a
    `__Host-` cookie without `Secure`, and a `Secure` one over plain HTTP). Only this name is read."""
    return HOST_COOKIE if secure else COOKIE


def set_session_cookie(response: Response, token: str, secure: bool) -> None:
    """The console's session cookie on a response (a shift long, not readable by scripts, not sent cross-site; for
    the whole site, no `Domain`)."""
    response.set_cookie(
        cookie_name(secure),
        token,
        max_age=SESSION_HOURS * 3600,
        path="/",
        httponly=True,
        samesite="lax",
        secure=secure,
    )


def clear_session_cookie(response: Response, secure: bool) -> None:
    """The session cookie removed (with the attributes it was set with: a `__Host-` one needs `Secure` and `Path=/`
    even to be removed)."""
    response.delete_cookie(cookie_name(secure), path="/", httponly=True, samesite="lax", secure=secure)


def sign_out(session: Session, token: str) -> None:
    digest = token_sha256(token)
    row = session.get(ConsoleSession, digest)
    if row is not None and row.ended_at is None:
        row.ended_at = utcnow()
    _forget(digest)


def _forget(digest: str) -> None:
    # Cached as signed out (not just forgotten): a poll racing the commit cannot cache the user again.
    _cache[digest] = (time.monotonic() + 3600.0, None)


def principal_for_session(session: Session, token: str | None) -> Principal | None:
    """The signed-in user of a session token (cached for 2 s: the console polls every second)."""
    if not token:
        return None
    digest = token_sha256(token)
    cached = _cache.get(digest)
    now = time.monotonic()
    if cached is not None and now - cached[0] < _CACHE_S:  # a signed-out token's entry is dated an hour ahead
        return cached[1]
    row = session.execute(
        select(User)
        .join(ConsoleSession, ConsoleSession.user_id == User.id)
        .where(
            ConsoleSession.token_sha256 == digest,
            ConsoleSession.ended_at.is_(None),
            ConsoleSession.expires_at > utcnow(),
            User.active.is_(True),
            User.disabled_at.is_(None),
        )
    ).scalar_one_or_none()
    principal = Principal(row.name, Role(row.role)) if row is not None else None
    _cache[digest] = (now, principal)
    if len(_cache) > 10_000:
        _cache.clear()
    return principal


def _live(user: User) -> list[ColumnElement[bool]]:
    return [
        ConsoleSession.user_id == user.id,
        ConsoleSession.ended_at.is_(None),
        ConsoleSession.expires_at > utcnow(),
    ]


def live_session_count(session: Session, user: User) -> int:
    """How many of the user's sessions are neither ended nor expired."""
    return session.scalar(select(func.count()).select_from(ConsoleSession).where(*_live(user))) or 0


def end_sessions(session: Session, user: User) -> int:
    """End every live session of the user (this process at once, other web processes within their 2 s cache); how
    many were live."""
    rows = session.scalars(select(ConsoleSession).where(*_live(user))).all()
    for row in rows:
        row.ended_at = utcnow()
        _forget(row.token_sha256)
    return len(rows)
