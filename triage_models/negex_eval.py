"""The context reader measured on the NegEx annotated test set, beside NegEx's and ConText's published outputs.

The set (chapmanbe/negex on GitHub, Apache-2.0; `../shared/data/negex/negex_annotations.tsv`, never copied into the
repository) holds 2,376 sentences from 120 clinical reports, each with one finding and its gold negation (Affirmed /
Negated) and temporality (Recent / Historical / Not particular), and what NegEx and ConText said of it. Each finding
is found in its sentence (ignoring case and runs of spaces), the sentence is cut into tokens as calls are, and our
reader is asked about the finding's tokens. Clinical-report English, not callers' words: a fair check of negation
scope ("no wheezes, rales, or rhonchi", "denies cough or sputum") and history, not of call language.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from triage_models.context import ContextReader, FindingContext
from triage_models.lexicon import tokenize

LANGUAGES = ("en",)


class NegexDataError(ValueError):
    """The annotated set cannot be read, with the reason."""


@dataclass(frozen=True, slots=True)
class Annotated:
    """One sentence of the set: the finding's span and every label."""

    row_id: str
    sentence: str
    start: int
    end: int
    gold_negated: bool
    gold_historical: bool
    negex_negated: bool
    context_negated: bool
    context_historical: bool


def _span(condition: str, sentence: str) -> tuple[int, int] | None:
    pattern = r"\s+".join(re.escape(part) for part in condition.split())
    found = re.search(pattern, sentence, re.IGNORECASE)
    return None if found is None else (found.start(), found.end())


def read_negex_set(path: Path) -> list[Annotated]:
    """Every row whose finding can be found in its sentence; `NegexDataError` for a file that is not the set."""
    if not path.is_file():
        raise NegexDataError(f"{path}: no such file (the NegEx set is ../shared/data/negex/negex_annotations.tsv)")
    rows: list[Annotated] = []
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            try:
                span = _span(row["condition"], row["sentence"])
                if span is None:
                    continue
                rows.append(
                    Annotated(
                        row["id"],
                        row["sentence"],
                        span[0],
                        span[1],
                        row["gold_negation"].strip().lower() == "negated",
                        row["gold_temporality"].strip().lower() == "historical",
                        row["negex_negation"].strip().lower() == "negated",
                        row["context_negation"].strip().lower() == "negated",
                        row["context_temporality"].strip().lower() == "historical",
                    )
                )
            except KeyError as error:
                raise NegexDataError(f"{path}: column {error} missing: not the NegEx annotated set") from None
    return rows


def read_finding(reader: ContextReader, row: Annotated) -> FindingContext:
    """Our reader's answer for one row's finding."""
    tokens = tokenize(row.sentence.lower(), LANGUAGES, row.sentence)
    inside = [token.index for token in tokens if token.start < row.end and row.start < token.end]
    if not inside:
        return FindingContext()
    context = reader.read(row.sentence, tokens, LANGUAGES)
    return context.of(inside[0], inside[-1])


def _f1(gold: Sequence[bool], predicted: Sequence[bool]) -> dict[str, float]:
    true_positive = sum(g and p for g, p in zip(gold, predicted, strict=True))
    precision = true_positive / max(1, sum(predicted))
    recall = true_positive / max(1, sum(gold))
    f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    return {"precision": round(precision, 3), "recall": round(recall, 3), "f1": round(f1, 3)}


def negex_figures(reader: ContextReader, rows: Sequence[Annotated]) -> dict[str, Any]:
    """Negation and historical precision, recall and F1: ours, NegEx's and ConText's published outputs."""
    ours = [read_finding(reader, row) for row in rows]
    gold_negated = [row.gold_negated for row in rows]
    gold_historical = [row.gold_historical for row in rows]
    return {
        "n": len(rows),
        "negation": {
            "ours": _f1(gold_negated, [context.negated for context in ours]),
            "negex": _f1(gold_negated, [row.negex_negated for row in rows]),
            "context": _f1(gold_negated, [row.context_negated for row in rows]),
        },
        "historical": {
            "ours": _f1(gold_historical, [context.historical for context in ours]),
            "context": _f1(gold_historical, [row.context_historical for row in rows]),
        },
    }
