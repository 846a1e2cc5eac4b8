"""User administration: the list an operator sees (never a hash), and disabling a user with everything they hold."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.auth.accounts import live_token_count, revoke_tokens
from app.console.sessions import end_sessions, live_session_count
from app.db.models import User, utcnow


class UnknownUserError(LookupError):
    """No user has that name."""


@dataclass(frozen=True, slots=True)
class UserSummary:
    """One user as `users list` shows it."""

    name: str
    role: str
    disabled_at: dt.datetime | None
    live_tokens: int
    """API tokens not revoked."""
    live_sessions: int
    """Console sessions neither ended nor expired."""


@dataclass(frozen=True, slots=True)
class Disabled:
    """What disabling a user did."""

    already: bool
    tokens_revoked: int
    sessions_ended: int


def find_user(session: Session, name: str) -> User:
    user = session.scalar(select(User).where(User.name == name))
    if user is None:
        raise UnknownUserError(f"no user {name!r}")
    return user


def list_users(session: Session) -> list[UserSummary]:
    """Every user, by name."""
    return [
        UserSummary(
            user.name, user.role, user.disabled_at, live_token_count(session, user), live_session_count(session, user)
        )
        for user in session.scalars(select(User).order_by(User.name))
    ]


def disable_user(session: Session, user: User) -> Disabled:
    """No sign-in, token or session for the user from now on: their tokens are revoked and sessions ended (again,
    harmlessly, when already disabled)."""
    already = user.disabled_at is not None
    if not already:
        user.disabled_at = utcnow()
    user.active = False
    return Disabled(already, revoke_tokens(session, user), end_sessions(session, user))


def enable_user(user: User) -> bool:
    """Let a disabled user sign in again (their old tokens stay revoked); whether they were disabled."""
    was_disabled = user.disabled_at is not None
    user.disabled_at = None
    user.active = True
    return was_disabled
