"""Call-style evaluation sets (triage_models/devsets/): calls with an acceptable range of levels, reported by kind.

A call set is a CSV with `id, kind, language, text, esi_level, min_level, max_level, expect_review, rationale`:
the level a medical director would give, and the range they would accept. The figures are those the product is
accepted on: per kind of call and per language, the share in range, exact and within one, ESI 1-2 recall, urgent
calls placed at ESI 4-5, minor calls (ESI 4-5) placed at ESI 1-2 (they would fire the urgent alert), and the share
flagged for review. These sets are never trained or tuned on.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from triage_models.result import ESI_LEVELS, TriageResult

COLUMNS = ("id", "kind", "language", "text", "esi_level", "min_level", "max_level", "expect_review")


class CallSetError(ValueError):
    """A call-set file that cannot be used, with the reason and the line."""


@dataclass(frozen=True, slots=True)
class Call:
    """One call of a set: its words, the reference level and the acceptable range."""

    call_id: str
    kind: str
    language: str
    text: str
    esi_level: int
    min_level: int
    max_level: int
    expect_review: bool


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """What triage made of one call."""

    call: Call
    predicted: int
    needs_review: bool
    language: str

    @property
    def in_range(self) -> bool:
        return self.call.min_level <= self.predicted <= self.call.max_level

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.call.call_id,
            "kind": self.call.kind,
            "language": self.call.language,
            "esi_level": self.call.esi_level,
            "range": [self.call.min_level, self.call.max_level],
            "predicted": self.predicted,
            "in_range": self.in_range,
            "needs_review": self.needs_review,
            "detected_language": self.language,
        }


def _level(row: dict[str, str], column: str, where: str) -> int:
    raw = (row.get(column) or "").strip()
    if not raw.isdigit() or int(raw) not in ESI_LEVELS:
        raise CallSetError(f"{where}: {column} must be an ESI level 1..5, got {raw!r}")
    return int(raw)


def read_call_set(path: Path) -> list[Call]:
    """Every call of a set file; a missing column, a bad level or an inverted range is an error naming the line."""
    if not path.is_file():
        raise CallSetError(f"{path}: no such file")
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        missing = [column for column in COLUMNS if column not in (reader.fieldnames or [])]
        if missing:
            raise CallSetError(f"{path}: missing columns {', '.join(missing)}")
        calls = []
        for line, row in enumerate(reader, start=2):
            where = f"{path}:{line}"
            low, level, high = (_level(row, column, where) for column in ("min_level", "esi_level", "max_level"))
            if not low <= level <= high:
                raise CallSetError(f"{where}: the range {low}..{high} must hold the level {level}")
            calls.append(
                Call(
                    row["id"],
                    row["kind"],
                    row["language"],
                    row["text"],
                    level,
                    low,
                    high,
                    row["expect_review"] == "yes",
                )
            )
    return calls


def outcome(call: Call, result: TriageResult) -> CallOutcome:
    return CallOutcome(call, result.esi_level, result.needs_review, result.language.code)


def _figures(outcomes: Sequence[CallOutcome]) -> dict[str, float | int | None]:
    """The acceptance figures of a group of calls."""
    urgent = [o for o in outcomes if o.call.esi_level <= 2]
    minor = [o for o in outcomes if o.call.esi_level >= 4]
    n = len(outcomes)
    return {
        "n": n,
        "in_range": sum(o.in_range for o in outcomes) / n,
        "exact": sum(o.predicted == o.call.esi_level for o in outcomes) / n,
        "within_one": sum(abs(o.predicted - o.call.esi_level) <= 1 for o in outcomes) / n,
        "esi12_recall": sum(o.predicted <= 2 for o in urgent) / len(urgent) if urgent else None,
        "urgent_at_4_5": sum(o.predicted >= 4 for o in urgent),
        "minor_at_1_2": sum(o.predicted <= 2 for o in minor) / len(minor) if minor else None,
        "review_share": sum(o.needs_review for o in outcomes) / n,
        "expected_review_missed": sum(o.call.expect_review and not o.needs_review for o in outcomes),
    }


def call_set_report(outcomes: Sequence[CallOutcome]) -> dict[str, Any]:
    """The figures for all calls, per kind and per language, and every call that is out of range."""
    kinds = sorted({o.call.kind for o in outcomes})
    languages = sorted({o.call.language for o in outcomes})
    return {
        "all": _figures(outcomes),
        "by_kind": {kind: _figures([o for o in outcomes if o.call.kind == kind]) for kind in kinds},
        "by_language": {lang: _figures([o for o in outcomes if o.call.language == lang]) for lang in languages},
        "out_of_range": [o.to_json() for o in outcomes if not o.in_range],
    }
