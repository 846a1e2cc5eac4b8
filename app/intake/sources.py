"""Intake sources as intake sees them: TRIAGE_WEBHOOK_SECRETS' sources with the state supervisors set in the
database (suspended, rotated secrets), and the supervisors' actions on them."""

from __future__ import annotations

import base64
import datetime as dt
import functools
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import IntakeSource, SourceSecret, utcnow
from app.db.session import session_scope
from app.redis.shared_value import SharedValue
from app.settings import Settings, secret_key, secret_problem

log = logging.getLogger(__name__)

SUSPENDED_RETRY_AFTER_S = 60
"""A suspended source's sender is told to retry after this long: it keeps the call and delivers it once resumed."""
STATE_TTL_S = 2.0
"""Each web process reads the sources' state at most this often: a suspension holds everywhere within 2 s."""


class UnknownSourceError(LookupError):
    """A source TRIAGE_WEBHOOK_SECRETS does not name."""


class SecretRefusedError(ValueError):
    """A secret a source cannot take: malformed, or another source's (the message says which, never the secret)."""


SHARED_SECRET_WHY = "a signature does not cover the source it is posted to, so each could send as the other"
_reported_shared: set[frozenset[str]] = set()
"""Sources already logged as sharing a secret (logged once per process, not at every read)."""


@dataclass(frozen=True, slots=True)
class SourceState:
    """What intake accepts from a source now."""

    name: str
    secrets: tuple[str, ...]
    """Every secret a signature may match: the configured ones (until a rotation's grace ends) and rotated ones."""
    suspended_at: dt.datetime | None = None
    suspended_reason: str = ""
    rotated_secrets: int = 0
    """Secrets made by `sources rotate-secret` that are still accepted."""

    @property
    def suspended(self) -> bool:
        return self.suspended_at is not None

    def refusal(self) -> str:
        """Why a suspended source's call is refused, and what the sender should do."""
        why = f": {self.suspended_reason}" if self.suspended_reason else ""
        return (
            f"source {self.name!r} is suspended by a supervisor{why}; nothing was stored: send the same message "
            "again after Retry-After, it is accepted once the source is resumed"
        )


def source_states(session: Session, settings: Settings, now: dt.datetime | None = None) -> dict[str, SourceState]:
    """Every configured source's state at `now`: two small reads, whatever the number of sources."""
    now = now or utcnow()
    rows = {row.name: row for row in session.scalars(select(IntakeSource))}
    rotated: dict[str, list[str]] = {}
    for secret in session.scalars(select(SourceSecret).order_by(SourceSecret.id.desc())):
        if secret.retired_at is None or secret.retired_at > now:
            rotated.setdefault(secret.source, []).append(secret.secret)
    held = {
        name: (rotated.get(name, []), _kept(rows.get(name), configured, now))
        for name, configured in settings.webhook_secrets.items()
    }
    shared = _shared_keys({name: [*own, *kept] for name, (own, kept) in held.items()})
    states = {}
    for name, (own, kept) in held.items():
        row = rows.get(name)
        states[name] = SourceState(
            name=name,
            secrets=tuple(secret for secret in (*own, *kept) if secret_key(secret) not in shared),
            suspended_at=row.suspended_at if row is not None else None,
            suspended_reason=(row.suspended_reason or "") if row is not None else "",
            rotated_secrets=len(own),
        )
    return states


def _kept(row: IntakeSource | None, configured: list[str], now: dt.datetime) -> list[str]:
    """The configured secrets still accepted: all of them until a rotation's grace ends."""
    until = row.configured_secrets_until if row is not None else None
    return list(configured) if until is None or until > now else []


def _shared_keys(secrets: dict[str, list[str]]) -> set[bytes]:
    """The keys more than one source holds (a rotated secret copied by hand into another source's configuration):
    verification uses a secret only for the one source that holds it, so these verify no one's calls; logged."""
    holders: dict[bytes, set[str]] = {}
    for name, held in secrets.items():
        for secret in held:
            holders.setdefault(secret_key(secret), set()).add(name)
    shared = {key: names for key, names in holders.items() if len(names) > 1}
    for names in shared.values():
        if frozenset(names) not in _reported_shared:
            _reported_shared.add(frozenset(names))
            log.error(
                "intake: a secret is held by sources %s: refused for both until one gets its own (%s; "
                "`sources rotate-secret` gives one a new secret)",
                " and ".join(sorted(names)),
                SHARED_SECRET_WHY,
            )
    return set(shared)


def secret_holder(session: Session, settings: Settings, secret: str, now: dt.datetime | None = None) -> str | None:
    """The source that holds `secret` now, configured or rotated and not yet retired; None if no source does."""
    now = now or utcnow()
    key = secret_key(secret)
    for name, configured in settings.webhook_secrets.items():
        if any(secret_key(held) == key for held in configured):
            return name
    for row in session.scalars(select(SourceSecret)):
        if (row.retired_at is None or row.retired_at > now) and secret_key(row.secret) == key:
            return row.source
    return None


def _read_states(settings: Settings) -> dict[str, SourceState]:
    with session_scope(settings.database_url) as session:
        return source_states(session, settings)


def source_state_cache(
    settings: Settings, clock: Callable[[], float] | None = None
) -> SharedValue[dict[str, SourceState]]:
    """The sources' state, read at most every `STATE_TTL_S` for all of a process's requests."""
    read = functools.partial(_read_states, settings)
    return SharedValue(read, STATE_TTL_S) if clock is None else SharedValue(read, STATE_TTL_S, clock)


def _row(session: Session, settings: Settings, source: str) -> IntakeSource:
    if source not in settings.webhook_secrets:
        known = ", ".join(sorted(settings.webhook_secrets))
        raise UnknownSourceError(f"no source {source!r} in TRIAGE_WEBHOOK_SECRETS (sources: {known})")
    row = session.get(IntakeSource, source)
    if row is None:
        row = IntakeSource(name=source)
        session.add(row)
        session.flush()
    return row


def suspend_source(session: Session, settings: Settings, source: str, reason: str) -> bool:
    """Refuse the source's calls (503 with the reason) until resumed; False if it already was suspended."""
    row = _row(session, settings, source)
    if row.suspended_at is not None:
        return False
    row.suspended_at, row.suspended_reason = utcnow(), reason[:255] or None
    return True


def resume_source(session: Session, settings: Settings, source: str) -> bool:
    """Accept the source's calls again; False if it was not suspended."""
    row = _row(session, settings, source)
    if row.suspended_at is None:
        return False
    row.suspended_at, row.suspended_reason = None, None
    return True


def new_secret() -> str:
    """A `whsec_` secret of 32 random bytes."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


def rotate_secret(
    session: Session, settings: Settings, source: str, grace: dt.timedelta, secret: str | None = None
) -> str:
    """A new secret for the source (`secret`, the sender's own, or a random one), accepted from now on; the secrets
    it had stay accepted for `grace`. `SecretRefusedError` for a malformed one, or one another source holds."""
    row = _row(session, settings, source)
    secret = secret or new_secret()
    if problem := secret_problem(secret):
        raise SecretRefusedError(problem)
    holder = secret_holder(session, settings, secret)
    if holder is not None and holder != source:
        raise SecretRefusedError(
            f"this secret is already a secret of source {holder!r}; a secret belongs to one source only "
            f"({SHARED_SECRET_WHY}): leave out --secret for a new one, or ask the sender for another"
        )
    now = utcnow()
    ends = now + grace
    if row.configured_secrets_until is None or row.configured_secrets_until > ends:
        row.configured_secrets_until = ends
    for current in session.scalars(select(SourceSecret).where(SourceSecret.source == source)):
        if current.retired_at is None or current.retired_at > ends:
            current.retired_at = ends
    session.add(SourceSecret(source=source, secret=secret, created_at=now))
    return secret
