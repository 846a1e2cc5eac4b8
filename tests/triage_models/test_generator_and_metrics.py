"""Tests for the training-data generator, the KTAS message builder and the evaluation figures."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from triage_models.generator import SCENARIOS, generate, write_csv
from triage_models.ktas import build_message, load_ktas
from triage_models.metrics import triage_metrics

SHARED_KTAS = Path(__file__).resolve().parents[3] / "shared" / "data" / "ktas"


def test_generator_is_seeded_and_covers_every_level_point_and_style() -> None:
    first = list(generate(600, seed=3))
    assert first == list(generate(600, seed=3))
    assert first != list(generate(600, seed=4))
    assert {message.esi_level for message in first} == {1, 2, 3, 4, 5}
    assert {message.decision_point for message in first} == {"A", "B", "C", "D"}
    assert {message.style for message in first} == {
        "caller", "transcript", "bystander", "spanish", "interpreter", "crew", "nurse", "triage-note"
    }  # fmt: skip
    assert {message.scenario for message in first[: len(SCENARIOS)]} == {scenario.name for scenario in SCENARIOS}
    assert all(message.answer_tokens > 0 for message in first)


def test_generated_csv_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "gen.csv"
    assert write_csv(path, 50, seed=1) == 50
    with path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 50
    assert set(rows[0]) == {"text", "esi_level", "decision_point", "scenario", "style", "answer_tokens", "language"}
    assert [row["language"] for row in rows] == [message.language for message in generate(50, seed=1)]
    assert {row["language"] for row in rows} == {"en", "es"}


def test_ktas_message_uses_only_what_a_caller_could_know() -> None:
    row = {
        "Sex": "Male", "Age": "71", "Arrival mode": "119 Ambulance", "Injury": "No", "Chief_complain": "pain, chest",
        "Mental": "Verbal Response", "Pain": "1", "NRS_pain": "6.0", "SBP": "88", "DBP": "50", "HR": "120", "RR": "24",
        "BT": "37.9", "KTAS_RN": "SENTINEL-RN", "Diagnosis in ED": "SENTINEL-DIAGNOSIS", "KTAS_expert": "2",
        "Length of stay_min": "SENTINEL-LOS",
    }  # fmt: skip
    message = build_message(row)
    assert "SENTINEL" not in message
    assert message == (
        "71-year-old male, brought by ambulance. complaint: pain, chest. responds to voice only. pain 6/10. "
        "BP 88/50, HR 120, RR 24, temp 37.9."
    )


@pytest.mark.skipif(not SHARED_KTAS.is_dir(), reason="reads ../shared/data/ktas (the evaluation data beside the repo)")
def test_ktas_files_load_with_expert_labels() -> None:
    # This test reads the shared KTAS evaluation data; nothing of it is copied into the repository.
    ed1 = load_ktas(SHARED_KTAS / "ktas_ed1.csv")
    ed2 = load_ktas(SHARED_KTAS / "ktas_ed2.csv")
    assert (len(ed1), len(ed2)) == (688, 579)
    assert {case.esi_level for case in ed1} == {1, 2, 3, 4, 5}


def test_metrics_on_a_hand_built_case() -> None:
    truth = [1, 2, 2, 3, 4, 5]
    predicted = [1, 3, 2, 2, 4, 3]
    metrics = triage_metrics(truth, predicted, [1.0, 2.0, 3.0, 4.0, 5.0, 100.0])
    assert metrics.n == 6
    assert metrics.exact == pytest.approx(3 / 6)
    assert metrics.within_one == pytest.approx(5 / 6)
    assert metrics.undertriage_rate == pytest.approx(1 / 6)
    assert metrics.overtriage_rate == pytest.approx(2 / 6)
    assert metrics.esi12_recall == pytest.approx(2 / 3)
    assert metrics.confusion[1] == [0, 1, 1, 0, 0]
    assert (metrics.p50_ms, metrics.p99_ms) == (3.0, 100.0)
