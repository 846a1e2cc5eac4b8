"""Where the default triage model lives, and building it from the generator on first use."""

from __future__ import annotations

import csv
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from triage_models.generator import GENERATOR_VERSION, generate
from triage_models.ktas import load_ktas
from triage_models.pipeline import TriageModel, train_model
from triage_models.rules import RULES_VERSION
from triage_models.text import InvalidMessageError, coerce_text

log = logging.getLogger(__name__)

DEFAULT_TRAINING_SIZE = 6_000
DEFAULT_SEED = 0


def default_model_dir() -> Path:
    """`TRIAGE_MODEL_DIR`, else the user's cache directory."""
    configured = os.environ.get("TRIAGE_MODEL_DIR")
    if configured:
        return Path(configured)
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "triage-dispatch" / "triage-model"


def train_default_model(count: int = DEFAULT_TRAINING_SIZE, seed: int = DEFAULT_SEED) -> TriageModel:
    """The shipped default: trained in seconds on the project's own generated messages."""
    messages = list(generate(count, seed))
    return train_model(
        [message.text for message in messages],
        [message.esi_level for message in messages],
        [message.answer_tokens for message in messages],
        source=f"generated:{GENERATOR_VERSION}:n={count}:seed={seed}",
    )


def load_or_train_default(directory: Path | None = None) -> TriageModel:
    """Load the default model, training and saving it first when it is missing or was built for older rules."""
    directory = directory or default_model_dir()
    try:
        model = TriageModel.load(directory)
        if model.meta.get("rules_version") == RULES_VERSION:
            return model
        log.info("triage model in %s was built for %s; rebuilding", directory, model.meta.get("rules_version"))
    except FileNotFoundError:
        log.info("no triage model in %s; training the default (a few seconds)", directory)
    model = train_default_model()
    model.save(directory)
    return model


@dataclass(frozen=True, slots=True)
class LabelledData:
    """Texts with ESI labels (and answer lengths when the data has them) read from a CSV."""

    texts: list[str]
    labels: list[int]
    answer_tokens: list[int] | None


class DataError(ValueError):
    """A training or evaluation file that cannot be used, with the reason."""


def read_labelled_csv(
    path: Path, text_column: str, label_column: str, length_column: str | None = None
) -> LabelledData:
    """Read a centre's own history: one message per row; rows with an empty text or a bad label are errors."""
    if not path.is_file():
        raise DataError(f"{path}: no such file")
    with path.open(encoding="utf-8", errors="replace", newline="") as handle:
        reader = csv.DictReader(handle)
        columns = reader.fieldnames or []
        for column in (text_column, label_column, *([length_column] if length_column else [])):
            if column not in columns:
                raise DataError(f"{path}: no column {column!r}; columns are {', '.join(columns)}")
        texts, labels, lengths = [], [], []
        for line, row in enumerate(reader, start=2):
            text = (row.get(text_column) or "").strip()
            raw_label = (row.get(label_column) or "").strip()
            if not text:
                raise DataError(f"{path}:{line}: empty {text_column!r}")
            try:
                label = int(float(raw_label))
            except (ValueError, OverflowError):
                raise DataError(f"{path}:{line}: label {raw_label!r} is not an ESI level 1..5") from None
            try:
                text = coerce_text(text)
            except InvalidMessageError as error:
                raise DataError(f"{path}:{line}: {error}") from None
            if label not in (1, 2, 3, 4, 5):
                raise DataError(f"{path}:{line}: label {label} is not an ESI level 1..5")
            texts.append(text)
            labels.append(label)
            if length_column:
                raw_length = (row.get(length_column) or "").strip()
                try:
                    lengths.append(max(1, int(float(raw_length))))
                except (ValueError, OverflowError):
                    raise DataError(f"{path}:{line}: answer length {raw_length!r} is not a token count") from None
    if not texts:
        raise DataError(f"{path}: no rows")
    return LabelledData(texts, labels, lengths if length_column else None)


def read_ktas(path: Path) -> LabelledData:
    """KTAS records as caller-knowable messages, labelled with the expert's level."""
    if not path.is_file():
        raise DataError(f"{path}: no such file")
    cases = load_ktas(path)
    if not cases:
        raise DataError(f"{path}: no usable KTAS rows")
    return LabelledData([case.text for case in cases], [case.esi_level for case in cases], None)


def with_generated(data: LabelledData, count: int, seed: int = DEFAULT_SEED) -> LabelledData:
    """Add generated messages to a centre's data (answer lengths only if both have them)."""
    if count <= 0:
        return data
    messages = list(generate(count, seed))
    lengths: Sequence[int] | None = None
    if data.answer_tokens is not None:
        lengths = [*data.answer_tokens, *(message.answer_tokens for message in messages)]
    return LabelledData(
        [*data.texts, *(message.text for message in messages)],
        [*data.labels, *(message.esi_level for message in messages)],
        list(lengths) if lengths is not None else None,
    )
