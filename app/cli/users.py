"""`triage-dispatch users add | token | list | disable | enable | revoke-tokens | end-sessions`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

import typer
from rich.console import Console
from sqlalchemy.orm import Session

from app.db.models import Role, User

_out = Console()
users_app = typer.Typer(help="Users, their API tokens and console sessions.", no_args_is_help=True)


def _database_url() -> str:
    from app.cli.ops import checked_settings

    return checked_settings().database_url


@contextmanager
def _user(name: str) -> Iterator[tuple[Session, User]]:
    """A session and the named user, committed on leaving; an unknown name is a usage error (exit code 2)."""
    from app.auth.users import UnknownUserError, find_user
    from app.db.session import session_scope

    with session_scope(_database_url()) as session:
        try:
            user = find_user(session, name)
        except UnknownUserError as error:
            raise typer.BadParameter(str(error), param_hint="NAME") from None
        yield session, user


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


@users_app.command("add")
def users_add(
    name: str,
    role: Annotated[str, typer.Option(help="call-taker, dispatcher or supervisor.")],
    password: Annotated[str | None, typer.Option(help="Console password (prompted if omitted).")] = None,
    no_password: Annotated[bool, typer.Option(help="API-token-only user.")] = False,
) -> None:
    """Add a user (for the console and the API). The name: 1 to 64 letters a-z and A-Z, digits, '.', '_' and '-';
    the password: at least 10 characters, not the name (the rule the first run's /setup holds)."""
    from app.auth.accounts import add_user
    from app.auth.user_rules import UserRuleError, user_name_problem
    from app.db.session import session_scope

    if role not in {r.value for r in Role}:
        raise typer.BadParameter(f"role must be one of {', '.join(r.value for r in Role)}", param_hint="--role")
    if problem := user_name_problem(name):  # before the password is asked for; the name itself is never echoed
        raise typer.BadParameter(problem, param_hint="NAME")
    if password is None and not no_password:
        password = typer.prompt("password", hide_input=True, confirmation_prompt=True)
    url = _database_url()
    try:
        with session_scope(url) as session:
            add_user(session, name, role, password)
    except UserRuleError as error:
        raise typer.BadParameter(str(error), param_hint="--password") from None
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="NAME") from None
    _out.print(f"user {name} ({role}) added")


@users_app.command("token")
def users_token(name: str, label: Annotated[str, typer.Option(help="What the token is for.")] = "") -> None:
    """Issue an API token for a user (printed once; only its hash is stored)."""
    from app.auth.accounts import issue_token

    with _user(name) as (session, user):
        token = issue_token(session, user, label)
    typer.echo(token)


@users_app.command("list")
def users_list() -> None:
    """Every user: role, disabled or not, live API tokens and console sessions (never a password or a token)."""
    from app.auth.users import list_users
    from app.db.session import session_scope

    with session_scope(_database_url()) as session:
        users = list_users(session)
    rows = [("NAME", "ROLE", "STATUS", "TOKENS", "SESSIONS")]
    for user in users:
        status = "active" if user.disabled_at is None else f"disabled {user.disabled_at:%Y-%m-%d %H:%M} UTC"
        rows.append((user.name, user.role, status, str(user.live_tokens), str(user.live_sessions)))
    widths = [max(len(row[column]) for row in rows) for column in range(4)]
    for row in rows:
        typer.echo("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)) + "  " + row[4])


@users_app.command("disable")
def users_disable(name: str) -> None:
    """Disable a user: no sign-in from now on, every API token revoked, every console session ended."""
    from app.auth.users import disable_user

    with _user(name) as (session, user):
        done = disable_user(session, user)
    state = "was already disabled" if done.already else "disabled"
    ended = _count(done.sessions_ended, "console session")
    typer.echo(f"user {name} {state}: {_count(done.tokens_revoked, 'API token')} revoked, {ended} ended")


@users_app.command("enable")
def users_enable(name: str) -> None:
    """Let a disabled user sign in again (revoked tokens stay revoked: issue new ones)."""
    from app.auth.users import enable_user

    with _user(name) as (_, user):
        was_disabled = enable_user(user)
    typer.echo(f"user {name} enabled" if was_disabled else f"user {name} was not disabled")


@users_app.command("revoke-tokens")
def users_revoke_tokens(name: str) -> None:
    """Revoke every API token of a user (they keep their console sign-in)."""
    from app.auth.accounts import revoke_tokens

    with _user(name) as (session, user):
        revoked = revoke_tokens(session, user)
    typer.echo(f"user {name}: {_count(revoked, 'API token')} revoked")


@users_app.command("end-sessions")
def users_end_sessions(name: str) -> None:
    """Sign a user out of every console session (each web process notices within 2 s)."""
    from app.console.sessions import end_sessions

    with _user(name) as (session, user):
        ended = end_sessions(session, user)
    typer.echo(f"user {name}: {_count(ended, 'console session')} ended")
