"""`triage-dispatch worker | db`: run a Celery worker and migrate the database."""

from __future__ import annotations

import typer
from rich.console import Console

from app.settings import Settings

_out = Console()
db_app = typer.Typer(help="The database: migrations.", no_args_is_help=True)


def checked_settings() -> Settings:
    """The settings, or a usage error saying which one is wrong (without the values)."""
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

    upgrade(checked_settings().database_url)
    _out.print("database is at the newest schema")


def worker() -> None:
    """Run a Celery worker (classification), connected to TRIAGE_REDIS_URL."""
    checked_settings()
    from app.worker.celery_app import celery_app

    celery_app.worker_main(["worker", "--loglevel=INFO", "--concurrency=1", "--without-gossip", "--without-mingle"])
