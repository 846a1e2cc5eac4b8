"""Migration 0005 on a database with users, tokens and sessions stored: the users read back enabled, and the
migration goes down and up again with them in place (SQLite's foreign keys included)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import create_engine, inspect, select, text

from app.auth.accounts import Principal, principal_for_token, token_sha256
from app.db.migrate import alembic_config, upgrade
from app.db.models import Role, User
from app.db.session import session_scope
from tests.app.triage_stub import fresh_database

CREATED = dt.datetime(2026, 11, 20, 8, 0)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_users_stored_before_0005_read_back_enabled_and_survive_down_and_up(
    request: pytest.FixtureRequest, tmp_path: Path, backend: str
) -> None:
    url = fresh_database(request, tmp_path, backend, revision="0004")
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(
            text("INSERT INTO users (id, name, role, active, created_at) VALUES ('u1', 'dana', 'dispatcher', :t, :at)"),
            {"t": True, "at": CREATED},
        )
        connection.execute(
            text("INSERT INTO api_tokens (user_id, token_sha256, label, created_at) VALUES ('u1', :sha, 'cad', :at)"),
            {"sha": token_sha256("tdk_before_0005"), "at": CREATED},
        )
    engine.dispose()
    upgrade(url)
    with session_scope(url) as session:
        dana = session.scalar(select(User).where(User.name == "dana"))
        assert dana is not None and (dana.disabled_at, dana.active) == (None, True)
    command.downgrade(alembic_config(url), "0004")
    engine = create_engine(url)
    assert "disabled_at" not in {column["name"] for column in inspect(engine).get_columns("users")}
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM api_tokens")).scalar() == 1
    engine.dispose()
    upgrade(url)
    with session_scope(url) as session:
        assert session.scalar(select(User.name).where(User.disabled_at.is_(None))) == "dana"
        assert principal_for_token(session, "tdk_before_0005") == Principal("dana", Role.DISPATCHER)
