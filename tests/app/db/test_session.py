"""The database engines the product makes: a failed statement's error (and so any log of it) never quotes its
parameters, which are the calls themselves."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import Engine, insert
from sqlalchemy.exc import StatementError

from app.db.migrate import upgrade
from app.db.models import Incident
from app.db.session import make_engine
from app.status.readiness import readiness_engine

CALL = "Ann Smith at 1 Main St says her husband is not breathing"


@pytest.mark.parametrize("make", [make_engine, readiness_engine], ids=["pipeline", "readiness"])
def test_a_failed_statement_hides_its_parameters(tmp_path: Path, make: Callable[[str], Engine]) -> None:
    url = f"sqlite:///{tmp_path / 'hidden.db'}"
    upgrade(url)
    engine = make(url)
    row = {"id": "i-1", "source": "cad", "webhook_id": "w-1", "text": CALL, "caller": "+1 555 0100"}
    with engine.begin() as connection:
        connection.execute(insert(Incident).values(row))
    with pytest.raises(StatementError) as failed, engine.begin() as connection:
        connection.execute(insert(Incident).values(row))  # the same id again: IntegrityError
    said = str(failed.value)
    assert "UNIQUE constraint failed" in said
    assert "[SQL parameters hidden due to hide_parameters=True]" in said
    assert "Ann Smith" not in said and "555" not in said
