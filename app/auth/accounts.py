"""Users, password hashes (scrypt) and per-user API tokens (only their SHA-256 is stored)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.auth.user_rules import check_new_user
from app.db.models import ApiToken, Role, User, utcnow

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
DUMMY_PASSWORD_HASH = (
    f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${base64.b64encode(b'no-user-salt-16b').decode()}"
    f"${base64.b64encode(bytes(64)).decode()}"
)
"""Checked when there is no real hash to check (an unknown, password-less or disabled user), at the same cost as a
real one, so the time a refusal takes does not tell whether the user exists."""


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling: a user (by name and role), or the development-only open API."""

    name: str
    role: Role


def hash_password(password: str) -> str:
    """The scrypt hash stored for a password (`add_user` checks the password against the rule first)."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P)
    encoded = [base64.b64encode(part).decode() for part in (salt, digest)]
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${encoded[0]}${encoded[1]}"


def verify_password(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
    except ValueError:
        return False
    if scheme != "scrypt":
        return False
    computed = hashlib.scrypt(password.encode(), salt=base64.b64decode(salt), n=int(n), r=int(r), p=int(p))
    return hmac.compare_digest(computed, base64.b64decode(digest))


def token_sha256(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def add_user(session: Session, name: str, role: Role | str, password: str | None = None) -> User:
    """A new user: the name and password within the rule (`app.auth.user_rules`, raising `UserRuleError`), the name
    new, in any case (`Dana` and `dana` would be two people in the audit who read alike)."""
    role = Role(role)
    check_new_user(name, password)
    same = session.scalar(select(User.name).where(func.lower(User.name) == name.lower()))
    if same is not None:
        raise ValueError(f"user {name!r} already exists" + (f" as {same!r}" if same != name else ""))
    user = User(name=name, role=role.value, password_hash=hash_password(password) if password else None)
    session.add(user)
    session.flush()
    return user


def issue_token(session: Session, user: User, label: str = "") -> str:
    """A new bearer token for the user; shown once, stored only as its hash."""
    token = "tdk_" + secrets.token_urlsafe(32)
    session.add(ApiToken(user_id=user.id, token_sha256=token_sha256(token), label=label))
    return token


def principal_for_token(session: Session, token: str) -> Principal | None:
    row = session.execute(
        select(User, ApiToken)
        .join(ApiToken, ApiToken.user_id == User.id)
        .where(
            ApiToken.token_sha256 == token_sha256(token),
            ApiToken.revoked_at.is_(None),
            User.active.is_(True),
            User.disabled_at.is_(None),
        )
    ).first()
    if row is None:
        return None
    user, _ = row
    return Principal(user.name, Role(user.role))


def revoke_tokens(session: Session, user: User) -> int:
    """Revoke every live API token of the user; how many were live."""
    tokens = session.scalars(select(ApiToken).where(ApiToken.user_id == user.id, ApiToken.revoked_at.is_(None))).all()
    for token in tokens:
        token.revoked_at = utcnow()
    return len(tokens)


def live_token_count(session: Session, user: User) -> int:
    """How many of the user's API tokens are not revoked."""
    query = select(func.count()).select_from(ApiToken).where(ApiToken.user_id == user.id, ApiToken.revoked_at.is_(None))
    return session.scalar(query) or 0
