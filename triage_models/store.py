"""Where the default triage model lives, and building it from the generator on first use."""

from __future__ import annotations

import csv
import json
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from triage_models.corpus import CORPUS_DIR, CORPUS_SOURCE, read_corpus
from triage_models.generator import GENERATOR_VERSION, generate
from triage_models.ktas import load_ktas
from triage_models.pipeline import GENERATED_SOURCE, TriageModel, train_model
from triage_models.resources import RESOURCES_VERSION
from triage_models.rules import RULES_VERSION
from triage_models.text import InvalidMessageError, coerce_text

log = logging.getLogger(__name__)

DEFAULT_TRAINING_SIZE = 6_000
DEFAULT_SEED = 0
FALLBACK_GENERATED = 2_000
"""Generated messages beside the corpus when a model must be trained at start (no usable model on disk)."""


def shared_data_dir() -> Path | None:
    """Where the reference data (KTAS records, ESI practice vignettes) lives, if present: `TRIAGE_DATA_DIR`, else
    `../shared/data` beside the checkout. Never shipped in the package."""
    configured = os.environ.get("TRIAGE_DATA_DIR")
    candidate = Path(configured) if configured else Path(__file__).resolve().parents[2] / "shared" / "data"
    return candidate if candidate.is_dir() else None


def default_model_dir() -> Path:
    """`TRIAGE_MODEL_DIR`, else the user's cache directory."""
    configured = os.environ.get("TRIAGE_MODEL_DIR")
    if configured:
        return Path(configured)
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "triage-dispatch" / "triage-model"


SHIPPED_MODEL_DIR = Path(__file__).resolve().parent / "shipped"
"""The default model, trained on real and generated data and shipped inside the package (see docs/model-card.md)."""


def stale_versions(meta: dict[str, Any]) -> list[str]:
    """What a model was built for that this installation no longer is (empty for a model the loader will use)."""
    current = {"rules_version": RULES_VERSION, "resources_version": RESOURCES_VERSION}
    return [f"{key} {meta.get(key)} (now {value})" for key, value in current.items() if meta.get(key) != value]


def load_or_train_default(directory: Path | None = None) -> TriageModel:
    """The serving model: the one in `directory` (default `default_model_dir()`, where `triage train` and
    `triage promote` write) when it was built for these rules, else the shipped one. Training happens only when
    neither can be used (a development checkout whose shipped model is older than its rules)."""
    directory = directory or default_model_dir()
    for candidate in (directory, SHIPPED_MODEL_DIR):
        meta_path = candidate / "meta.json"
        if not meta_path.is_file():
            continue
        stale = stale_versions(json.loads(meta_path.read_text(encoding="utf-8")))
        if stale:
            log.info("triage model in %s was built for %s; not used", candidate, ", ".join(stale))
            continue
        try:
            return TriageModel.load(candidate)
        except (KeyError, ValueError) as error:  # files of an older format: pass it over, as a stale one
            log.warning("triage model in %s cannot be read (%s: %s); not used", candidate, type(error).__name__, error)
    log.warning(
        "no usable triage model (shipped or in %s): training one from the corpus and generated messages", directory
    )
    data = with_generated(corpus_data(), FALLBACK_GENERATED, DEFAULT_SEED)
    model = train_model(
        data.texts,
        data.labels,
        sources=data.sources,
        source=f"corpus + generated:{GENERATOR_VERSION}:n={FALLBACK_GENERATED}:seed={DEFAULT_SEED}",
    )
    model.save(directory)
    return model


@dataclass(frozen=True, slots=True)
class LabelledData:
    """Texts with ESI labels (and answer lengths when the data has them) read from a CSV."""

    texts: list[str]
    labels: list[int]
    answer_tokens: list[int] | None
    sources: list[str] = field(default_factory=list)
    """Where each row came from (`ktas`, `esi`, `generated`, a file name...): tuning uses the real rows only."""

    def __post_init__(self) -> None:
        if not self.sources:
            self.sources.extend(["data"] * len(self.texts))


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


def read_esi_vignettes(path: Path) -> LabelledData:
    """ESI practice vignettes (columns `Clinical Vignettes`, `acuity`); the rationale is never an input."""
    return read_labelled_csv(path, "Clinical Vignettes", "acuity")


def corpus_data(directory: Path = CORPUS_DIR) -> LabelledData:
    """The training corpus of call-style messages (`corpus.py`), source `corpus`."""
    calls = read_corpus(directory)
    return LabelledData([c.text for c in calls], [c.esi_level for c in calls], None, [CORPUS_SOURCE] * len(calls))


def default_training_data(
    data_dir: Path | None = None, generated: int = DEFAULT_TRAINING_SIZE, seed: int = DEFAULT_SEED, corpus: bool = True
) -> LabelledData:
    """What the default model is trained on: the corpus of call-style messages, KTAS ED1 and the ESI practice
    vignettes when `data_dir` (default: `shared_data_dir()`) has them, plus `generated` messages from the project's
    generator."""
    data_dir = data_dir if data_dir is not None else shared_data_dir()
    parts = corpus_data() if corpus else LabelledData([], [], None)
    if data_dir is not None:
        ktas = data_dir / "ktas" / "ktas_ed1.csv"
        vignettes = data_dir / "esi" / "esi_handbook_train.csv"
        for path, reader, name in ((ktas, read_ktas, "ktas"), (vignettes, read_esi_vignettes, "esi")):
            if path.is_file():
                read = reader(path)
                parts = LabelledData(
                    [*parts.texts, *read.texts],
                    [*parts.labels, *read.labels],
                    None,
                    [*parts.sources, *[name] * len(read.texts)],
                )
    return with_generated(parts, generated, seed)


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
        [*data.sources, *[GENERATED_SOURCE] * len(messages)],
    )
