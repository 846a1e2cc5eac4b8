"""`triage-dispatch serve | worker | db | users`: run the product and administer it."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from typing import Annotated

import typer
from rich.console import Console

from app.db.models import Role

_out = Console()
db_app = typer.Typer(help="The database: migrations.", no_args_is_help=True)
users_app = typer.Typer(help="Users and their API tokens.", no_args_is_help=True)


def _settings() -> object:
    from pydantic import ValidationError

    from app.settings import get_settings

    try:
        return get_settings()
    except ValidationError as error:
        raise typer.BadParameter(str(error)) from error


@db_app.command("upgrade")
def db_upgrade() -> None:
    """Migrate TRIAGE_DATABASE_URL to the newest schema."""
    from app.db.migrate import upgrade
    from app.settings import get_settings

    _settings()
    upgrade(get_settings().database_url)
    _out.print("database is at the newest schema")


@users_app.command("add")
def users_add(
    name: str,
    role: Annotated[str, typer.Option(help="call-taker, dispatcher or supervisor.")],
    password: Annotated[str | None, typer.Option(help="Console password (prompted if omitted).")] = None,
    no_password: Annotated[bool, typer.Option(help="API-token-only user.")] = False,
) -> None:
    """Add a user (for the console and the API)."""
    from app.auth import add_user
    from app.db.session import session_scope
    from app.settings import get_settings

    if role not in {r.value for r in Role}:
        raise typer.BadParameter(f"role must be one of {', '.join(r.value for r in Role)}", param_hint="--role")
    if password is None and not no_password:
        password = typer.prompt("password", hide_input=True, confirmation_prompt=True)
    _settings()
    try:
        with session_scope(get_settings().database_url) as session:
            add_user(session, name, role, password)
    except ValueError as error:
        raise typer.BadParameter(str(error)) from error
    _out.print(f"user {name} ({role}) added")


@users_app.command("token")
def users_token(name: str, label: Annotated[str, typer.Option(help="What the token is for.")] = "") -> None:
    """Issue an API token for a user (printed once; only its hash is stored)."""
    from sqlalchemy import select

    from app.auth import issue_token
    from app.db.models import User
    from app.db.session import session_scope
    from app.settings import get_settings

    _settings()
    with session_scope(get_settings().database_url) as session:
        user = session.scalar(select(User).where(User.name == name))
        if user is None:
            raise typer.BadParameter(f"no user {name!r}")
        token = issue_token(session, user, label)
    typer.echo(token)


def worker() -> None:
    """Run a Celery worker (classification), connected to TRIAGE_REDIS_URL."""
    _settings()
    from app.worker.celery_app import celery_app

    celery_app.worker_main(["worker", "--loglevel=INFO", "--concurrency=1", "--without-gossip", "--without-mingle"])


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
) -> None:
    """Run everything one machine needs: Redis (started if TRIAGE_REDIS_URL is unset), migrations, a Celery
    worker, the engine worker and the web app."""
    import uvicorn

    from app.db.migrate import upgrade
    from app.local_redis import start_redis_server
    from app.settings import DATA_DIR, get_settings

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = _settings()
    children: list[subprocess.Popen[bytes]] = []
    env = dict(os.environ)
    if get_settings().redis_url is None:
        process, url = start_redis_server(DATA_DIR / "redis")
        children.append(process)
        env["TRIAGE_REDIS_URL"] = url
        os.environ["TRIAGE_REDIS_URL"] = url
        get_settings.cache_clear()
        _out.print(f"started redis-server at {url} (data in {DATA_DIR / 'redis'})")
    settings = get_settings()
    upgrade(settings.database_url)
    _out.print(f"database: {settings.database_url}")
    cli = [sys.executable, "-m", "app.cli.main"]
    children.append(subprocess.Popen([*cli, "worker"], env=env))
    children.append(subprocess.Popen([*cli, "engine", "run"], env=env))
    _out.print(f"engine: {settings.engine} serving {settings.model}")
    _out.print(f"[bold]open http://{host}:{port}/docs[/bold] (API, webhooks at /v1/intake/<source>, health at /readyz)")
    try:
        from app.api.main import create_app

        uvicorn.run(create_app(settings), host=host, port=port, log_level="info")
    finally:
        for child in reversed(children):
            child.send_signal(signal.SIGTERM)
        for child in reversed(children):
            try:
                child.wait(timeout=20)
            except subprocess.TimeoutExpired:
                child.kill()
