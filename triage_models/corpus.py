"""The training corpus of call-style messages (`triage_models/corpus/`), written in many voices, with their levels.

Several thousand calls written for training by authors each given personas, regions and ways of speaking (English
and Spanish; every chief complaint at every level; serious calls in calm words and minor calls in alarming words;
text messages, interpreter relays, care-facility staff, dialogues with the call-taker, calls that are not medical),
apart from the protocols and from the evaluation sets (`devsets/`, never trained on). See `corpus/README.md`.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from triage_models.result import ESI_LEVELS

CORPUS_DIR = Path(__file__).parent / "corpus"
CORPUS_SOURCE = "corpus"
COLUMNS = (
    "id",
    "author",
    "persona",
    "kind",
    "language",
    "chief_complaint",
    "text",
    "esi_level",
    "min_level",
    "max_level",
    "non_medical",
    "rationale",
)


class CorpusError(ValueError):
    """A corpus file that cannot be used, naming the file and line."""


@dataclass(frozen=True, slots=True)
class CorpusCall:
    """One training call: who wrote it in what voice, its complaint and level."""

    call_id: str
    author: str
    kind: str
    language: str
    complaint: str
    text: str
    esi_level: int
    min_level: int
    max_level: int
    non_medical: bool


def _level(row: dict[str, str], column: str, where: str) -> int:
    raw = (row.get(column) or "").strip()
    if not raw.isdigit() or int(raw) not in ESI_LEVELS:
        raise CorpusError(f"{where}: {column} must be an ESI level 1..5, got {raw!r}")
    return int(raw)


def _call(row: dict[str, str], where: str) -> CorpusCall:
    level, low, high = (_level(row, column, where) for column in ("esi_level", "min_level", "max_level"))
    if not low <= level <= high:
        raise CorpusError(f"{where}: the range {low}..{high} does not hold the level {level}")
    text = (row.get("text") or "").strip()
    if not text:
        raise CorpusError(f"{where}: empty text")
    return CorpusCall(
        row["id"].strip(),
        row["author"].strip(),
        row["kind"].strip(),
        row["language"].strip(),
        row["chief_complaint"].strip(),
        text,
        level,
        low,
        high,
        row["non_medical"].strip().lower() == "yes",
    )


def read_corpus(directory: Path = CORPUS_DIR) -> list[CorpusCall]:
    """Every call of every `*.csv` in the corpus directory, in file order; ids must be unique."""
    calls: list[CorpusCall] = []
    seen: set[str] = set()
    for path in sorted(directory.glob("*.csv")):
        with path.open(encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle)
            missing = [column for column in COLUMNS if column not in (reader.fieldnames or [])]
            if missing:
                raise CorpusError(f"{path.name}: columns {', '.join(missing)} missing")
            for line, row in enumerate(reader, start=2):
                call = _call(row, f"{path.name}:{line}")
                if call.call_id in seen:
                    raise CorpusError(f"{path.name}:{line}: id {call.call_id} is used twice")
                seen.add(call.call_id)
                calls.append(call)
    return calls
