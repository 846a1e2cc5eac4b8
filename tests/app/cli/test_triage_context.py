"""`triage-dispatch triage context-compare` through the real Typer app."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli.main import cli
from tests.app.cli_output import contains

runner = CliRunner()


def test_context_compare_without_medspacy_names_the_extra(
    small_model_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "medspacy", None)  # `import medspacy` raises ImportError
    result = runner.invoke(cli, ["triage", "context-compare", "--model", str(small_model_dir)])
    assert result.exit_code == 2
    assert contains(result.output, "pip install -e '.[context-compare]'")
    assert contains(result.output, "make context-compare")


def test_context_compare_json_gives_every_reader_on_both_call_sets(small_model_dir: Path, tmp_path: Path) -> None:
    pytest.importorskip("medspacy", reason="medspaCy is the optional context-compare extra, not installed here")
    vignettes = tmp_path / "vignettes.csv"
    with vignettes.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(
            [["Clinical Vignettes", "acuity"], ["unresponsive, not breathing", "1"], ["needs a refill", "5"]]
        )
    result = runner.invoke(
        cli, ["triage", "context-compare", "--model", str(small_model_dir), "--vignettes", str(vignettes), "--json"]
    )
    assert result.exit_code == 0, result.output
    readers = json.loads(result.stdout)["readers"]
    assert [reader["reader"] for reader in readers] == ["negex+context", "medspacy", "medspacy-no-family"]
    for reader in readers:
        assert {name: report["all"]["n"] for name, report in reader["call_sets"].items()} == {
            "calls_a.csv": 212,
            "calls_b.csv": 136,
        }
        assert reader["vignettes"]["n"] == 2
        assert reader["latency_ms"]["n"] == 212 + 136 + 2
