"""`triage retrain --from-overrides` and `triage promote` on a small SQLite audit log, through the real Typer app."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from app.cli.main import cli
from app.cli.triage_learning import print_report
from app.db.models import Base, Incident, IncidentEvent
from app.db.session import make_engine, session_scope
from app.incidents.overrides import record_override
from app.settings import get_settings
from tests.app.cli_output import contains
from triage_models.generator import generate, write_csv
from triage_models.pipeline import TriageModel, Triager, train_model

runner = CliRunner()

FLOATERS = (
    "caller says her father keeps seeing flashing lights and new floaters since lunch",
    "caller says her husband keeps seeing flashing lights and new floaters since breakfast",
    "caller says his wife says she sees flashing lights and new floaters this morning",
    "caller says my dad keeps seeing flashing lights and new floaters since noon",
    "caller says her mother says she sees flashing lights and new floaters since her nap",
    "daughter says her father keeps seeing flashing lights and new floaters for an hour",
    "caller says his grandmother says she is seeing flashing lights and new floaters today",
    "caller says her husband keeps seeing flashing lights and new floaters since dinner",
    "caller says the neighbour keeps seeing flashing lights and new floaters since he woke",
    "caller says her uncle says he sees flashing lights and new floaters since the phone call",
    "son says his mother keeps seeing flashing lights and new floaters this afternoon",
    "caller says her partner keeps seeing flashing lights and new floaters since the walk",
)
NEW_FLOATERS = "caller says her grandfather keeps seeing flashing lights and new floaters since tea time"
OLD_KIND = "caller says the parking meter kept his bus pass and he is upset"
RECENT = dt.datetime(2026, 11, 10, 9, 0, tzinfo=dt.UTC)
OLD = dt.datetime(2026, 10, 1, 9, 0, tzinfo=dt.UTC)


def _environment(monkeypatch: pytest.MonkeyPatch, root: Path) -> Path:
    """Serving model, database and (absent) reference data under `root`; returns the serving model directory."""
    (root / "no-reference-data").mkdir(exist_ok=True)
    monkeypatch.setenv("TRIAGE_MODEL_DIR", str(root / "serving"))
    monkeypatch.setenv("TRIAGE_DATABASE_URL", f"sqlite:///{root / 'triage.db'}")
    monkeypatch.setenv("TRIAGE_DATA_DIR", str(root / "no-reference-data"))  # generated base data only: fast
    get_settings.cache_clear()
    return root / "serving"


@pytest.fixture(autouse=True)
def _fresh_settings() -> Iterator[None]:
    yield
    get_settings.cache_clear()


def _override(database_url: str, index: int, text: str, esi_level: int, at: dt.datetime) -> None:
    """An incident classified at ESI 4 that a dispatcher overrode, dated `at` in the audit log."""
    with session_scope(database_url) as session:
        incident = Incident(id=f"i{index}", source="cad", webhook_id=f"w{index}", text=text, esi_level=4)
        session.add(incident)
        session.flush()
        record_override(session, incident, esi_level, "dispatcher's judgement", "dana")
        session.flush()
        event = session.scalars(select(IncidentEvent).where(IncidentEvent.incident_id == incident.id)).one()
        event.created_at = at


def _audit_log(root: Path) -> None:
    """12 recent overrides of the words-come-out-wrong kind to ESI 2, and 3 old ones (before --since) to ESI 5."""
    url = f"sqlite:///{root / 'triage.db'}"
    Base.metadata.create_all(make_engine(url))
    for index, text in enumerate(FLOATERS):
        _override(url, index, text, 2, RECENT + dt.timedelta(hours=index))
    for index in range(3):
        _override(url, 100 + index, f"{OLD_KIND} ({index})", 5, OLD + dt.timedelta(hours=index))


@dataclass(frozen=True)
class Retrained:
    report: dict[str, Any]
    candidate_dir: Path
    serving: TriageModel


@pytest.fixture(scope="module")
def retrained(tmp_path_factory: pytest.TempPathFactory, small_model_dir: Path) -> Iterator[Retrained]:
    root = tmp_path_factory.mktemp("learning")
    with pytest.MonkeyPatch.context() as monkeypatch:
        serving_dir = _environment(monkeypatch, root)
        shutil.copytree(small_model_dir, serving_dir)
        _audit_log(root)
        write_csv(root / "validation.csv", 200, seed=7)  # smaller than the default set (promote uses that): faster
        result = runner.invoke(
            cli,
            ["triage", "retrain", "--from-overrides", "--since", "2026-11-01", "--out", str(root / "candidate"),
             "--generated", "400", "--no-corpus", "--validation", str(root / "validation.csv"), "--text-column", "text",
             "--label-column", "esi_level", "--json"],
        )  # fmt: skip
        get_settings.cache_clear()
    assert result.exit_code == 0, result.output
    yield Retrained(json.loads(result.stdout), root / "candidate", TriageModel.load(serving_dir))


def test_the_base_model_does_not_put_the_new_kind_at_the_dispatchers_level(retrained: Retrained) -> None:
    assert Triager(retrained.serving).classify(NEW_FLOATERS).esi_level > 2


def test_retrain_learns_the_dispatchers_level_and_reports_held_out_agreement(retrained: Retrained) -> None:
    candidate = TriageModel.load(retrained.candidate_dir)
    assert Triager(candidate).classify(NEW_FLOATERS).esi_level == 2
    report = retrained.report
    assert json.loads((retrained.candidate_dir / "report.json").read_text()) == report
    assert report["candidate"]["version"] == candidate.version != report["serving"]["version"]
    held_out = report["held_out_overrides"]
    assert report["overrides"]["held_out"] == 2 and held_out["candidate"]["n"] == 2
    assert held_out["candidate_agreement"] == 1.0 and held_out["serving_agreement"] == 0.0
    assert "time-held-out" in held_out["candidate_fit"]
    assert report["validation"]["candidate"]["n"] == 200 and report["validation"]["serving"]["n"] == 200
    assert report["validation"]["source"].endswith("validation.csv")


def test_the_report_prints_as_tables(retrained: Retrained, capsys: pytest.CaptureFixture[str]) -> None:
    print_report(retrained.report)
    printed = capsys.readouterr().out
    assert "esi12_recall" in printed and "validation" in printed and "held-out" in printed


def test_since_leaves_out_older_overrides(retrained: Retrained) -> None:
    assert retrained.report["overrides"]["used"] == 12  # the 3 overrides of October are not learned from
    assert retrained.report["overrides"]["since"] == "2026-11-01T00:00:00"
    assert retrained.report["base_training"] == {"n": 400, "generated": 400, "corpus": False}


def test_retrain_without_overrides_exits_1_and_refuses_the_serving_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    serving_dir = _environment(monkeypatch, tmp_path)
    Base.metadata.create_all(make_engine(f"sqlite:///{tmp_path / 'triage.db'}"))
    out = tmp_path / "candidate"
    result = runner.invoke(
        cli, ["triage", "retrain", "--from-overrides", "--out", str(out), "--generated", "600", "--no-corpus"]
    )
    assert result.exit_code == 1 and contains(result.output, "no overrides to learn from") and not out.exists()
    result = runner.invoke(cli, ["triage", "retrain", "--from-overrides", "--out", str(serving_dir)])
    assert result.exit_code == 2


@pytest.fixture(scope="module")
def low_recall_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A model trained with its ESI 1-2 labels moved to 4 (three of each kept: training needs every level)."""
    messages = list(generate(500, seed=11))
    kept = {i for level in (1, 2) for i in [i for i, m in enumerate(messages) if m.esi_level == level][:3]}
    labels = [4 if m.esi_level <= 2 and i not in kept else m.esi_level for i, m in enumerate(messages)]
    model = train_model([m.text for m in messages], labels, source="esi-1-2-moved-to-4")
    directory = tmp_path_factory.mktemp("low-recall")
    model.save(directory)
    return directory


def _files(directory: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(directory.iterdir())}


def test_promote_refuses_a_candidate_with_lower_esi_1_2_recall(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, small_model_dir: Path, low_recall_model_dir: Path
) -> None:
    serving_dir = _environment(monkeypatch, tmp_path)
    shutil.copytree(small_model_dir, serving_dir)
    before = _files(serving_dir)
    result = runner.invoke(cli, ["triage", "promote", str(low_recall_model_dir), "--json"])
    assert result.exit_code == 1, result.output
    decision = json.loads(result.stdout)
    assert decision["promote"] is False and decision["validation"] == "generated:n=1000:seed=2026"
    assert decision["candidate_esi12_recall"] < decision["serving_esi12_recall"]
    assert decision["reason"].startswith("refused")
    assert f"{decision['candidate_esi12_recall']:.3f}" in decision["reason"]
    assert f"{decision['serving_esi12_recall']:.3f}" in decision["reason"]
    assert _files(serving_dir) == before and not (tmp_path / "serving.previous").exists()


def test_promote_installs_a_candidate_that_is_not_worse_and_keeps_the_previous(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, small_model_dir: Path, low_recall_model_dir: Path
) -> None:
    serving_dir = _environment(monkeypatch, tmp_path)
    shutil.copytree(low_recall_model_dir, serving_dir)
    old_version = TriageModel.load(serving_dir).version
    result = runner.invoke(cli, ["triage", "promote", str(small_model_dir)])
    assert result.exit_code == 0, result.output
    assert contains(result.output, "promoted")
    assert TriageModel.load(serving_dir).version == TriageModel.load(small_model_dir).version != old_version
    assert TriageModel.load(tmp_path / "serving.previous").version == old_version
