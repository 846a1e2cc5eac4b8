"""The Alembic migrations build exactly the schema the models describe, and go down again."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect

from app.db.migrate import alembic_config, upgrade
from app.db.models import Base


def test_upgrade_matches_the_models_and_downgrade_removes_everything(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'migrated.db'}"
    upgrade(url)
    engine = create_engine(url)
    with engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
    tables = set(inspect(engine).get_table_names())
    assert tables == {
        "alembic_version",
        "api_tokens",
        "classifications",
        "console_sessions",
        "guidance",
        "incident_events",
        "incidents",
        "intake_sources",
        "live_calls",
        "call_segments",
        "call_partials",
        "outbox",
        "outcomes",
        "source_secrets",
        "unit_assignments",
        "units",
        "users",
    }
    unique = {c["name"] for c in inspect(engine).get_unique_constraints("incidents")}
    assert unique == {"uq_incidents_source_webhook_id"}
    command.downgrade(alembic_config(url), "base")
    assert set(inspect(create_engine(url)).get_table_names()) == {"alembic_version"}
