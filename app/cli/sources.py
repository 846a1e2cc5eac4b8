"""`triage-dispatch sources list | suspend | resume | rotate-secret`: the webhook sources' limits and state."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated

import typer
from sqlalchemy.orm import Session

from app.settings import Settings

if TYPE_CHECKING:
    from app.intake.limits import SourceLimits

sources_app = typer.Typer(help="Webhook sources: limits, suspension, secrets.", no_args_is_help=True)


@contextmanager
def _session() -> Iterator[tuple[Session, Settings]]:
    """A session (committed on leaving) and the settings; an unknown source is a usage error (exit code 2)."""
    from app.cli.ops import checked_settings
    from app.db.session import session_scope
    from app.intake.sources import UnknownSourceError

    settings = checked_settings()
    try:
        with session_scope(settings.database_url) as session:
            yield session, settings
    except UnknownSourceError as error:
        raise typer.BadParameter(str(error), param_hint="SOURCE") from None


def _limits(settings: Settings) -> SourceLimits:
    """The sources' limits, on the shared windows in Redis when the settings name one."""
    from app.intake.limits import source_limits_for
    from app.redis.queueing import redis_client

    client = redis_client(settings.redis_url) if settings.redis_url is not None else None
    return source_limits_for(settings.intake_limits, settings.intake_limit, client, settings.queue_prefix)


@sources_app.command("list")
def sources_list() -> None:
    """Every source: its limit, state, calls in its first window and refusals in the last minute (from the shared
    windows in Redis; "-" without it, each web process then counting its own), secrets accepted (never a secret)."""
    from app.intake.sources import source_states

    with _session() as (session, settings):
        states = source_states(session, settings)
    limits = _limits(settings)
    rows = [("SOURCE", "LIMIT", "STATE", "CALLS", "REFUSED/MIN", "SECRETS")]
    for name, state in sorted(states.items()):
        status = "active"
        if state.suspended_at is not None:
            status = f"suspended {state.suspended_at:%Y-%m-%d %H:%M} UTC"
            status += f" ({state.suspended_reason})" if state.suspended_reason else ""
        calls, refused = "-", "-"
        if settings.redis_url is not None:
            counts = limits.counts(name)
            calls, refused = str(counts.calls), str(counts.refused)
        rows.append((name, limits.describe(name), status, calls, refused, str(len(state.secrets))))
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    for row in rows:
        typer.echo("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())


@sources_app.command("suspend")
def sources_suspend(
    source: str, reason: Annotated[str, typer.Option(help="Why: the sender is told, in every refusal.")] = ""
) -> None:
    """Refuse a source's calls (503 with the reason and Retry-After: its sender keeps them and retries) until
    `sources resume`; every web process follows within 2 s."""
    from app.intake.sources import suspend_source

    with _session() as (session, settings):
        done = suspend_source(session, settings, source, reason)
    typer.echo(f"source {source} suspended" if done else f"source {source} was already suspended")


@sources_app.command("resume")
def sources_resume(source: str) -> None:
    """Accept a suspended source's calls again (its sender's retries are then stored)."""
    from app.intake.sources import resume_source

    with _session() as (session, settings):
        done = resume_source(session, settings, source)
    typer.echo(f"source {source} resumed" if done else f"source {source} was not suspended")


@sources_app.command("rotate-secret")
def sources_rotate_secret(
    source: str,
    grace_hours: Annotated[
        float | None, typer.Option(help="How long its current secrets stay accepted (default TRIAGE_SECRET_GRACE_S).")
    ] = None,
    secret: Annotated[
        str | None,
        typer.Option(
            help="The sender's own new `whsec_` secret, for senders that make it themselves (else a new one)."
        ),
    ] = None,
) -> None:
    """A new signing secret for a source, printed once (give it to the sender); its current secrets stay accepted
    for the grace period, then only the new one is. A secret another source holds is refused: a secret belongs to one
    source only."""
    from app.intake.sources import SecretRefusedError, rotate_secret

    with _session() as (session, settings):
        grace = (
            dt.timedelta(hours=grace_hours)
            if grace_hours is not None
            else dt.timedelta(seconds=settings.secret_grace_s)
        )
        if grace <= dt.timedelta(0):
            raise typer.BadParameter("the grace must be positive", param_hint="--grace-hours")
        try:
            secret = rotate_secret(session, settings, source, grace, secret)
        except SecretRefusedError as error:
            raise typer.BadParameter(str(error), param_hint="--secret") from None
    typer.echo(secret)
