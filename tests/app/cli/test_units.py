"""`triage-dispatch units ...` through the real Typer app: add, import a roster (TOML and CSV), list, status; bad
rows refused with their place and nothing added."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from app.cli.main import cli
from app.db.migrate import upgrade
from app.db.models import IncidentEvent, Unit
from app.db.session import session_scope
from app.settings import get_settings
from tests.app.cli_output import contains

runner = CliRunner()
EXAMPLE = Path(__file__).parents[3] / "docs" / "examples" / "units.toml"


@pytest.fixture
def url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    url = f"sqlite:///{tmp_path / 'units.db'}"
    upgrade(url)
    monkeypatch.setenv("TRIAGE_DATABASE_URL", url)
    monkeypatch.delenv("TRIAGE_REDIS_URL", raising=False)
    get_settings.cache_clear()
    yield url
    get_settings.cache_clear()


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(cli, ["units", *args])
    return result.exit_code, result.output


def roster(url: str) -> list[tuple[str, str, str, str]]:
    with session_scope(url) as session:
        return [
            (unit.name, unit.kind, unit.station, unit.status)
            for unit in session.scalars(select(Unit).order_by(Unit.name))
        ]


def test_import_the_documented_roster_then_add_and_list(url: str) -> None:
    assert invoke("import", str(EXAMPLE)) == (0, "4 units in units.toml: 4 added, 0 updated\n")
    assert invoke("add", "R2", "--type", "Rescue", "--station", " Station 9 ") == (0, "unit R2 added\n")
    assert invoke("add", "E4", "--type", "engine", "--station", "Station 2") == (0, "unit E4 updated\n")
    assert roster(url) == [
        ("A7", "ambulance", "Station 3", "available"),
        ("E4", "engine", "Station 2", "available"),
        ("M12", "medic", "Station 3", "available"),
        ("M15", "medic", "Station 5", "available"),
        ("R2", "rescue", "Station 9", "available"),
    ]
    code, output = invoke("list")
    assert code == 0
    lines = output.splitlines()
    assert lines[0].split() == ["UNIT", "TYPE", "STATION", "STATUS", "SINCE", "CALL"]
    assert [line.split()[0] for line in lines[1:]] == ["A7", "E4", "M12", "M15", "R2"]
    with session_scope(url) as session:
        actions = [event.action for event in session.scalars(select(IncidentEvent).order_by(IncidentEvent.id))]
    assert actions == ["unit_added"] * 5 + ["unit_updated"]


def test_a_csv_roster_with_a_bad_row_adds_nothing_and_names_the_row(url: str, tmp_path: Path) -> None:
    good = tmp_path / "roster.csv"
    good.write_text("name,type,station\nM1,medic,Station 1\nE1,engine,\n", encoding="utf-8")
    bad = tmp_path / "bad.csv"
    bad.write_text("name,type,station\nM1,medic,Station 1\nX9,hovercraft,Pier\n", encoding="utf-8")
    code, output = invoke("import", str(bad))
    assert code == 2 and contains(output, "bad.csv: line 3: unit X9: type 'hovercraft' is not one of ambulance, medic")
    assert roster(url) == []
    twice = tmp_path / "twice.toml"
    twice.write_text('[[unit]]\nname = "M1"\ntype = "medic"\n[[unit]]\nname = "m1"\ntype = "medic"\n')
    code, output = invoke("import", str(twice))
    assert code == 2 and contains(output, "twice.toml: unit m1 is listed twice")
    assert invoke("import", str(good)) == (0, "2 units in roster.csv: 2 added, 0 updated\n")
    code, output = invoke("add", "M<1>", "--type", "medic")
    assert code == 2 and contains(output, "letters, digits, spaces and hyphens")


def test_status_moves_a_unit_on_only_from_its_call(url: str) -> None:
    assert invoke("add", "M1", "--type", "medic")[0] == 0
    code, output = invoke("status", "M1", "en route")
    assert code == 2 and contains(output, "M1 is available: dispatch it to a call first")
    code, output = invoke("status", "M9", "en route")
    assert code == 2 and contains(output, "no unit M9")
