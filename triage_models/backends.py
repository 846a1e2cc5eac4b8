"""Classifier backends chosen by name: `linear` (default), `embedding`, and `llm` (classify-time only)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

BACKEND_NAMES = ("linear", "embedding", "llm")
TRAINABLE = ("linear", "embedding")


class ClassifierBackend(Protocol):
    """A trained model giving probabilities for ESI 1..5."""

    name: str
    oof_probabilities: NDArray[np.float64] | None

    temperature: float

    def fit(
        self,
        texts: Sequence[str],
        labels: Sequence[int],
        calibrate: bool = True,
        weights: Sequence[float] | None = None,
    ) -> ClassifierBackend: ...
    def predict_proba(self, texts: Sequence[str]) -> NDArray[np.float64]: ...
    def predict_one(self, text: str, structured: Mapping[str, float]) -> NDArray[np.float64]: ...
    def save(self, directory: Path) -> None: ...


def check_backend_name(name: str, allowed: Sequence[str] = BACKEND_NAMES) -> str:
    """The name itself, or a clear error listing the choices."""
    if name not in allowed:
        raise ValueError(f"unknown triage backend {name!r}; choose one of: {', '.join(allowed)}")
    return name


def new_backend(name: str, embedding_model: str | None = None) -> ClassifierBackend:
    """An untrained backend of a trainable kind."""
    check_backend_name(name, TRAINABLE)
    if name == "embedding":
        if not embedding_model:
            raise ValueError("the embedding backend needs a sentence-transformers model (path or hub id)")
        from triage_models.embedding import EmbeddingBackend

        return EmbeddingBackend(embedding_model)
    from triage_models.linear import LinearBackend

    return LinearBackend()


def load_backend(name: str, directory: Path) -> ClassifierBackend:
    """A trained backend saved in `directory`."""
    check_backend_name(name, TRAINABLE)
    if name == "embedding":
        from triage_models.embedding import EmbeddingBackend

        return EmbeddingBackend.load(directory)
    from triage_models.linear import LinearBackend

    return LinearBackend.load(directory)
