"""Profiling the hf engine: real step times on the tiny local model, fitted and saved."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli.main import cli
from scheduler.engines.profiling import load_cost_model


def test_engine_profile_fits_and_saves_a_cost_model(tmp_path: Path) -> None:
    out = tmp_path / "profile.json"
    result = CliRunner().invoke(cli, ["engine", "profile", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert len(data["prefill_samples"]) == 5 and len(data["decode_samples"]) == 63
    assert all(seconds > 0 for _, seconds in data["prefill_samples"] + data["decode_samples"])
    cost = load_cost_model(out)
    assert cost.g2 > 0  # a decode step costs something
    assert cost.decode_token_s(100) > 0 and cost.prefill_s(100) > 0


def test_a_file_that_is_not_a_profile_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    with pytest.raises(ValueError, match="is not an engine profile"):
        load_cost_model(bad)


def test_profile_refuses_a_directory_without_a_model(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["engine", "profile", "--model", str(tmp_path)])
    assert result.exit_code == 2
    assert "no config.json" in result.output
