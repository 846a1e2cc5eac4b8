"""Tests for `triage-dispatch triage ...` through the real Typer app."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from typer.testing import CliRunner

from app.cli.main import cli
from tests.app.cli_output import contains

runner = CliRunner()


def test_classify_json_gives_level_evidence_and_length(small_model_dir: Path) -> None:
    result = runner.invoke(
        cli, ["triage", "classify", "he is not breathing and has no pulse", "--model", str(small_model_dir), "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["esi_level"] == 1 and data["decision_point"] == "A"
    assert {hit["rule_id"] for hit in data["evidence"]} >= {"A-NOT-BREATHING", "A-NO-PULSE"}
    assert data["predicted_output_tokens"] > 0 and set(data["probabilities"]) == {"1", "2", "3", "4", "5"}


def test_classify_refuses_an_empty_message(small_model_dir: Path) -> None:
    result = runner.invoke(cli, ["triage", "classify", "   ", "--model", str(small_model_dir)])
    assert result.exit_code == 2
    assert contains(result.output, "nothing to triage")


def test_classify_with_a_missing_model_directory_is_a_usage_error(tmp_path: Path) -> None:
    result = runner.invoke(cli, ["triage", "classify", "chest pain", "--model", str(tmp_path / "none")])
    assert result.exit_code == 2
    assert contains(result.output, "meta.json missing")


def test_generate_train_and_eval_round_trip(tmp_path: Path) -> None:
    data = tmp_path / "history.csv"
    generated = runner.invoke(cli, ["triage", "generate", "--out", str(data), "--count", "300", "--seed", "2"])
    assert generated.exit_code == 0, generated.output
    model_dir = tmp_path / "model"
    trained = runner.invoke(
        cli,
        ["triage", "train", "--data", str(data), "--text-column", "text", "--label-column", "esi_level",
         "--length-column", "answer_tokens", "--out", str(model_dir)],
    )  # fmt: skip
    assert trained.exit_code == 0, trained.output
    assert json.loads((model_dir / "meta.json").read_text())["n"] == 300
    evaluated = runner.invoke(
        cli,
        ["triage", "eval", "--data", str(data), "--text-column", "text", "--label-column", "esi_level",
         "--model", str(model_dir), "--json"],
    )  # fmt: skip
    assert evaluated.exit_code == 0, evaluated.output
    metrics = json.loads(evaluated.stdout)
    assert metrics["n"] == 300
    assert set(metrics) == {
        "n", "exact", "within_one", "quadratic_kappa", "undertriage_rate", "esi12_recall", "overtriage_rate",
        "confusion", "p50_ms", "p99_ms", "needs_review_share", "by_decision_point", "calibration", "cases",
    }  # fmt: skip
    assert sum(map(sum, metrics["confusion"])) == 300
    assert len(metrics["cases"]) == 300
    assert set(metrics["cases"][0]) == {"esi_level", "predicted", "decision_point", "resource_count", "needs_review"}
    assert sum(row["n"] for row in metrics["by_decision_point"].values()) == 300
    assert set(metrics["by_decision_point"]) <= {"A", "B", "C", "D"}
    assert 0.0 <= metrics["calibration"]["ece"] <= 1.0


def test_train_names_the_missing_column(tmp_path: Path) -> None:
    data = tmp_path / "history.csv"
    with data.open("w", newline="") as handle:
        csv.writer(handle).writerows([["message", "acuity"], ["chest pain", "2"]])
    result = runner.invoke(
        cli, ["triage", "train", "--data", str(data), "--text-column", "text", "--label-column", "acuity"]
    )
    assert result.exit_code == 2
    assert contains(result.output, "no column 'text'")


def test_eval_scores_a_constant_reference_as_plain_json(tmp_path: Path) -> None:
    data = tmp_path / "history.csv"
    with data.open("w", newline="") as handle:
        csv.writer(handle).writerows([["text", "esi"], ["a", "1"], ["b", "4"], ["c", "5"]])
    result = runner.invoke(
        cli,
        ["triage", "eval", "--data", str(data), "--text-column", "text", "--label-column", "esi",
         "--reference", "constant", "--constant-level", "4", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.stdout)  # strict JSON: no NaN
    assert (metrics["exact"], metrics["esi12_recall"], metrics["p99_ms"]) == (1 / 3, 0.0, None)


def test_eval_of_a_call_set_reports_by_kind_and_language(tmp_path: Path, small_model_dir: Path) -> None:
    data = tmp_path / "calls.csv"
    rows = [
        ["id", "kind", "language", "text", "esi_level", "min_level", "max_level", "expect_review", "rationale"],
        ["C-1", "plain", "en", "he is not breathing and has no pulse", "1", "1", "1", "", "arrest"],
        ["C-2", "spanish", "es", "mi esposo no respira y no responde", "1", "1", "1", "", "arrest"],
        ["C-3", "unsupported_language", "vi", "Chồng tôi không thở được, xin hãy giúp", "1", "1", "2", "yes", "vi"],
    ]
    with data.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    result = runner.invoke(
        cli, ["triage", "eval", "--data", str(data), "--format", "calls", "--model", str(small_model_dir), "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["all"]["n"] == 3 and report["all"]["in_range"] == 1.0 and report["all"]["urgent_at_4_5"] == 0
    assert sorted(report["by_kind"]) == ["plain", "spanish", "unsupported_language"]
    assert sorted(report["by_language"]) == ["en", "es", "vi"]
    assert report["by_kind"]["unsupported_language"]["review_share"] == 1.0
    assert report["all"]["expected_review_missed"] == 0 and report["out_of_range"] == []


def test_eval_of_a_call_set_names_a_bad_range(tmp_path: Path, small_model_dir: Path) -> None:
    data = tmp_path / "calls.csv"
    with data.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(
            [
                ["id", "kind", "language", "text", "esi_level", "min_level", "max_level", "expect_review"],
                ["C-1", "plain", "en", "sore throat", "5", "2", "4", ""],
            ]
        )
    result = runner.invoke(
        cli, ["triage", "eval", "--data", str(data), "--format", "calls", "--model", str(small_model_dir)]
    )
    assert result.exit_code == 2
    assert contains(result.output, "the range 2..4 must hold the level 5")
