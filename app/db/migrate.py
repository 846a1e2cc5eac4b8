"""Run the Alembic migrations in `migrations/` against a database URL."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

ROOT = Path(__file__).resolve().parents[2]


def alembic_config(database_url: str) -> Config:
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "migrations"))
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


def upgrade(database_url: str, revision: str = "head") -> None:
    """Bring the database to `revision` (creating a SQLite file if needed)."""
    from app.db.session import make_engine

    make_engine(database_url).dispose()  # creates a SQLite file's directory
    command.upgrade(alembic_config(database_url), revision)
