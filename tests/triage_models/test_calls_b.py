"""Development set B (triage_models/devsets/calls_b.csv): its shape, ranges and mix are what its description says."""

from __future__ import annotations

import csv
import re
from collections import Counter
from pathlib import Path

import pytest

import triage_models

CALLS_B = Path(triage_models.__file__).parent / "devsets" / "calls_b.csv"
COLUMNS = ["id", "kind", "language", "text", "esi_level", "min_level", "max_level", "expect_review", "rationale"]
KIND_COUNTS = {
    "spanish": 30,
    "speech_to_text": 25,
    "bystander": 15,
    "downplay": 10,
    "child": 10,
    "elderly": 10,
    "pregnancy": 6,
    "mental_health": 8,
    "minor_scary": 12,
    "unsupported_language": 6,
    "plain": 4,
}
# The acceptable ranges an ESI level may carry: arrest-type ESI 1 is exact, the rest allow one step.
RANGES = {1: {(1, 1), (1, 2)}, 2: {(1, 2), (2, 2)}, 3: {(2, 3), (3, 4)}, 4: {(4, 5), (3, 5)}, 5: {(4, 5), (3, 5)}}


@pytest.fixture(scope="module")
def rows() -> list[dict[str, str]]:
    with CALLS_B.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        assert reader.fieldnames == COLUMNS
        return list(reader)


def test_calls_b_ids_are_unique_and_in_order(rows: list[dict[str, str]]) -> None:
    assert [row["id"] for row in rows] == [f"B-{number:03d}" for number in range(1, len(rows) + 1)]


def test_calls_b_kinds_have_the_described_counts(rows: list[dict[str, str]]) -> None:
    assert Counter(row["kind"] for row in rows) == KIND_COUNTS


def test_calls_b_levels_sit_in_their_ranges(rows: list[dict[str, str]]) -> None:
    for row in rows:
        esi_level, low, high = int(row["esi_level"]), int(row["min_level"]), int(row["max_level"])
        assert 1 <= low <= esi_level <= high <= 5, row["id"]
        assert (low, high) in RANGES[esi_level], row["id"]


def test_calls_b_every_level_appears_and_about_two_fifths_are_urgent(rows: list[dict[str, str]]) -> None:
    levels = Counter(int(row["esi_level"]) for row in rows)
    assert sorted(levels) == [1, 2, 3, 4, 5]
    assert 0.35 <= (levels[1] + levels[2]) / len(rows) <= 0.45


def test_calls_b_only_unsupported_languages_expect_review_and_err_urgent(rows: list[dict[str, str]]) -> None:
    for row in rows:
        unsupported = row["kind"] == "unsupported_language"
        assert row["expect_review"] == ("yes" if unsupported else "no"), row["id"]
        if unsupported:
            assert row["language"] not in {"en", "es"} and (row["min_level"], row["max_level"]) == ("1", "2")
        else:
            assert row["language"] in {"en", "es"}, row["id"]


def test_calls_b_speech_to_text_is_lower_case_without_punctuation(rows: list[dict[str, str]]) -> None:
    for row in rows:
        if row["kind"] == "speech_to_text":
            assert re.fullmatch(r"[a-z0-9 ]+", row["text"]), row["id"]


def test_calls_b_spanish_holds_five_interpreter_relayed_english_calls(rows: list[dict[str, str]]) -> None:
    spanish = [row for row in rows if row["kind"] == "spanish"]
    assert Counter(row["language"] for row in spanish) == {"es": 25, "en": 5}
    assert all("nterpreter" in row["text"] for row in spanish if row["language"] == "en")


def test_calls_b_texts_are_distinct_and_rationales_are_one_sentence(rows: list[dict[str, str]]) -> None:
    assert len({row["text"] for row in rows}) == len(rows)
    for row in rows:
        assert row["rationale"].endswith(".") and row["rationale"][:-1].count(". ") == 0, row["id"]
