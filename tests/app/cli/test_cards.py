"""`triage-dispatch cards list | show | validate` through the real Typer app."""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from app.cli.main import cli
from app.guidance.cards.library import SHIPPED_DIR

runner = CliRunner()


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(cli, ["cards", *args])
    return result.exit_code, result.output


def _library(tmp_path: Path, *names: str) -> Path:
    for name in names:
        shutil.copy(SHIPPED_DIR / name, tmp_path)
    return tmp_path


def test_list_shows_each_card_with_what_picks_it_and_its_review_state(tmp_path: Path) -> None:
    directory = _library(tmp_path, "seizure.en.toml", "seizure.es.toml", "pain.en.toml")
    reviewed = (directory / "seizure.es.toml").read_text(encoding="utf-8")
    reviewed = reviewed.replace('reviewed_by = ""', 'reviewed_by = "Dra. Rivera"')
    (directory / "seizure.es.toml").write_text(reviewed.replace('reviewed_on = ""', "reviewed_on = 2026-11-20"))
    code, output = invoke("list", "--dir", str(directory))
    assert (code, output.splitlines()) == (
        0,
        [
            f"library: {directory}",
            "pain  templates-2026.11.1  [en]  priority 30  overload template  en: not reviewed by a medical director",
            "seizure  2026.11.2  [en,es]  priority 60  A-SEIZURE-ONGOING, A-POISONING-SEIZURE, B-SEIZURE, "
            "B-SEIZURE-INFANT, B-SEIZURE-HIGH-RISK, B-SEIZURE-KNOWN (any)  en: not reviewed by a medical director; "
            "es: reviewed by Dra. Rivera on 2026-11-20",
        ],
    )


def test_show_reads_the_card_in_the_language_asked_or_says_it_falls_back(tmp_path: Path) -> None:
    code, output = invoke("show", "choking-infant", "--language", "es")
    assert code == 0
    assert output.startswith(
        "Bebé menor de 1 año atragantado (despierto)  [choking-infant 2026.11.1, es]  not reviewed by a medical "
        "director\npicked by: A-CHOKING; age band infant; priority 80\nSteps:\n1. Siéntese o arrodíllese"
    )
    assert "\nBasis: Guías de Soporte Vital Básico Pediátrico" in output
    code, output = invoke("show", "pain", "--language", "es")
    assert (code, output.splitlines()[0]) == (0, "(no es translation: shown in en)")
    code, output = invoke("show", "no-such-card")
    assert code == 2 and "no card 'no-such-card'" in output


def test_validate_passes_a_good_library_and_lists_every_problem_of_a_broken_one(tmp_path: Path) -> None:
    code, output = invoke("validate", str(SHIPPED_DIR))
    assert code == 0
    assert output.splitlines()[0] == f"64 card files valid in {SHIPPED_DIR}"
    assert output.splitlines()[1].startswith("35 cards not reviewed by a medical director: aed, anaphylaxis, ")
    directory = _library(tmp_path, "stroke.en.toml", "stroke.es.toml")
    (directory / "stroke.en.toml").write_text(
        (directory / "stroke.en.toml").read_text(encoding="utf-8").replace('"B-STROKE-SIGNS"', '"B-STROKE"')
    )
    (directory / "burns.es.toml").write_text('id = "burns"\n', encoding="utf-8")
    result = runner.invoke(cli, ["cards", "validate", str(directory)])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "error: burns.es.toml: version: Field required",
        "error: burns.es.toml: title: Field required",
        "error: burns.es.toml: language: Field required",
        "error: burns.es.toml: steps: Field required",
        "error: burns.es.toml: basis: Field required",
        "error: stroke.en.toml: rule_ids: unknown red-flag rule ids B-STROKE "
        "(see `triage-dispatch triage protocols list`)",
    ]
