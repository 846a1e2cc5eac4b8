"""`triage-dispatch tcpr report --month`: the month's T-CPR figures as CSV, from the stored live calls."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli.main import cli
from app.db.migrate import upgrade
from app.db.models import Incident, LiveCall
from app.db.session import session_scope
from app.settings import get_settings

ANSWERED = dt.datetime(2026, 11, 3, 22, 0, tzinfo=dt.UTC)


@pytest.fixture
def database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    url = f"sqlite:///{tmp_path / 'tcpr.db'}"
    upgrade(url)
    monkeypatch.setenv("TRIAGE_DATABASE_URL", url)
    get_settings.cache_clear()
    yield url
    get_settings.cache_clear()


def add_call(
    url: str, name: str, answered: dt.datetime, recognised_s: float | None, compression_s: float | None
) -> None:
    with session_scope(url) as session:
        session.add(
            Incident(id=name, source="cad", webhook_id=f"call:{name}", call_id=name, text="", accepted_at=answered)
        )
        session.flush()
        session.add(
            LiveCall(
                incident_id=name, source="cad", call_id=name, vendor="segments", answered_at=answered,
                last_event_at=answered, finals=1, triaged_finals=1,
                arrest_recognised_at=None if recognised_s is None else answered + dt.timedelta(seconds=recognised_s),
                first_compression_at=None if compression_s is None else answered + dt.timedelta(seconds=compression_s),
            )
        )  # fmt: skip


def test_the_month_report_counts_that_month_s_calls_with_their_medians(database: str, tmp_path: Path) -> None:
    add_call(database, "a", ANSWERED, 40.0, 85.0)
    add_call(database, "b", ANSWERED + dt.timedelta(hours=1), 60.0, None)
    add_call(database, "c", ANSWERED + dt.timedelta(hours=2), 50.0, 95.0)
    add_call(database, "d", ANSWERED + dt.timedelta(hours=3), None, None)  # not an arrest
    add_call(database, "december", dt.datetime(2026, 12, 1, 0, 0, tzinfo=dt.UTC), 10.0, 20.0)
    out = tmp_path / "tcpr.csv"
    result = CliRunner().invoke(cli, ["tcpr", "report", "--month", "2026-11", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output == f"wrote {out}: 4 live calls, 3 arrest calls\n"
    lines = out.read_text().splitlines()
    assert lines[0].startswith("month,live_calls,arrest_calls,recognised,share_recognised")
    assert lines[1] == "2026-11,4,3,3,1.0,50.0,2,0.6667,90.0"
    assert [line.split(",")[0] for line in lines[4:]] == ["a", "b", "c", "d"]
    bad = CliRunner().invoke(cli, ["tcpr", "report", "--month", "11/2026"])
    assert bad.exit_code == 2 and "month must be YYYY-MM" in bad.output
