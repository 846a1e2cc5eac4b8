"""Migration 0004 on a database with incidents and classifications stored: they read back with no review and no
resources, and the migration goes down and up again with them in place (SQLite's foreign keys included)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import create_engine, inspect, text

from app.db.migrate import alembic_config, upgrade
from app.db.models import Classification, Incident
from app.db.session import session_scope
from app.incidents.queries import classification_view, review_pending
from tests.app.triage_stub import fresh_database

ACCEPTED = dt.datetime(2026, 11, 20, 8, 0)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_rows_stored_before_0004_read_back_defaulted_and_survive_down_and_up(
    request: pytest.FixtureRequest, tmp_path: Path, backend: str
) -> None:
    url = fresh_database(request, tmp_path, backend, revision="0003")
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO incidents (id, source, webhook_id, text, accepted_at, status, esi_level, model_level,"
                " guidance_state) VALUES ('old', 'cad', 'w-old', 'chest pain', :at, 'new', 2, 2, 'queued')"
            ),
            {"at": ACCEPTED},
        )
        connection.execute(
            text(
                "INSERT INTO classifications (incident_id, esi_level, classifier_level, decision_point, probabilities,"
                " evidence, predicted_output_tokens, model_version, backend, created_at) VALUES ('old', 2, 3, 'B',"
                " '{\"2\": 0.6, \"3\": 0.4}', '[]', 100, 'v0', 'linear', :at)"
            ),
            {"at": ACCEPTED},
        )
    engine.dispose()
    upgrade(url)
    with session_scope(url) as session:
        incident = session.get(Incident, "old")
        classification = session.get(Classification, 1)
        assert incident is not None and classification is not None
        assert (incident.needs_review, incident.review_reason, review_pending(incident)) == (False, "", False)
        view = classification_view(classification)
        assert view is not None
        assert {key: view[key] for key in ("needs_review", "review_reason", "resources", "resource_count")} == {
            "needs_review": False,
            "review_reason": "",
            "resources": [],
            "resource_count": 0,
        }
        assert view["probabilities"] == {"2": 0.6, "3": 0.4}
    command.downgrade(alembic_config(url), "0003")
    engine = create_engine(url)
    assert "needs_review" not in {column["name"] for column in inspect(engine).get_columns("classifications")}
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM classifications")).scalar() == 1
    engine.dispose()
    upgrade(url)
    with session_scope(url) as session:
        assert session.get(Incident, "old") is not None
