"""Console sign-in sessions: a random cookie token, stored as its SHA-256 with an expiry; sign-out ends it."""

from __future__ import annotations

import datetime as dt
import secrets
import time

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.auth import Principal, token_sha256, verify_password
from app.db.models import ConsoleSession, Role, User, utcnow

COOKIE = "triage_session"
SESSION_HOURS = 12
"""A shift."""
_CACHE_S = 2.0
_cache: dict[str, tuple[float, Principal | None]] = {}


def sign_in(session: Session, name: str, password: str) -> str | None:
    """A new session token for a valid active user's name and password; None otherwise."""
    user = session.scalar(select(User).where(User.name == name, User.active.is_(True)))
    if user is None or user.password_hash is None or not verify_password(password, user.password_hash):
        return None
    token = secrets.token_urlsafe(32)
    session.add(
        ConsoleSession(
            token_sha256=token_sha256(token), user_id=user.id, expires_at=utcnow() + dt.timedelta(hours=SESSION_HOURS)
        )
    )
    return token


def sign_out(session: Session, token: str) -> None:
    row = session.get(ConsoleSession, token_sha256(token))
    if row is not None and row.ended_at is None:
        row.ended_at = utcnow()
    # Cached as signed out (not just forgotten): a poll racing the commit cannot cache the user again.
    _cache[token] = (time.monotonic() + 3600.0, None)


def principal_for_session(session: Session, token: str | None) -> Principal | None:
    """The signed-in user of a session token (cached for 2 s: the console polls every second)."""
    if not token:
        return None
    cached = _cache.get(token)
    now = time.monotonic()
    if cached is not None and now - cached[0] < _CACHE_S:  # a signed-out token's entry is dated an hour ahead
        return cached[1]
    row = session.execute(
        select(User)
        .join(ConsoleSession, ConsoleSession.user_id == User.id)
        .where(
            ConsoleSession.token_sha256 == token_sha256(token),
            ConsoleSession.ended_at.is_(None),
            ConsoleSession.expires_at > utcnow(),
            User.active.is_(True),
        )
    ).scalar_one_or_none()
    principal = Principal(row.name, Role(row.role)) if row is not None else None
    _cache[token] = (now, principal)
    if len(_cache) > 10_000:
        _cache.clear()
    return principal
