"""Answer-length prediction: which of 10 token buckets the guidance will fall in, with a per-level prior."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import sparse
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression

from triage_models.result import ESI_LEVELS
from triage_models.safe_io import (
    Arrays,
    read_model_file,
    regression_from_state,
    regression_state,
    vectorizer_from_state,
    vectorizer_state,
    write_model_file,
)

DEFAULT_MAX_TOKENS = 512
BUCKETS = 10


@dataclass(slots=True)
class LevelPrior:
    """Bucket counts per ESI level (Laplace-smoothed); real outcomes are added as they come in."""

    buckets: int = BUCKETS
    counts: dict[int, list[float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for level in ESI_LEVELS:
            self.counts.setdefault(level, [1.0] * self.buckets)

    def add(self, esi_level: int, bucket: int, weight: float = 1.0) -> None:
        self.counts[esi_level][bucket] += weight

    def distribution(self, esi_level: int) -> NDArray[np.float64]:
        row = np.asarray(self.counts[esi_level], dtype=np.float64)
        return np.asarray(row / row.sum(), dtype=np.float64)


class LengthPredictor:
    """Bucketed answer length from the message's words and its ESI level, blended with the level's prior.

    `prior_weight` of the final distribution comes from the per-level prior, the rest from the model; the
    prediction is the midpoint of the most probable bucket. `record_outcome` feeds real answer lengths back
    into the prior, so the estimate follows what the engine actually writes for each level.
    """

    def __init__(self, max_tokens: int = DEFAULT_MAX_TOKENS, prior_weight: float = 0.3) -> None:
        if max_tokens < BUCKETS:
            raise ValueError(f"max_tokens must be at least {BUCKETS}")
        self.max_tokens = max_tokens
        self.prior_weight = prior_weight
        self.prior = LevelPrior()
        self._vectorizer: TfidfVectorizer | None = None
        self._model: LogisticRegression | None = None
        self._classes: list[int] = []

    @property
    def bucket_width(self) -> float:
        return self.max_tokens / BUCKETS

    def bucket_of(self, tokens: int) -> int:
        """The bucket (0..9) a token count falls in; counts beyond the maximum go in the last one."""
        return min(BUCKETS - 1, max(0, int((max(tokens, 1) - 1) // self.bucket_width)))

    def midpoint(self, bucket: int) -> int:
        return max(1, round((bucket + 0.5) * self.bucket_width))

    def _design(self, texts: Sequence[str], levels: Sequence[int]) -> sparse.csr_matrix:
        assert self._vectorizer is not None
        words = self._vectorizer.transform(list(texts))
        onehot = np.zeros((len(levels), len(ESI_LEVELS)))
        for row, level in enumerate(levels):
            onehot[row, level - 1] = 1.0
        return sparse.hstack([words, sparse.csr_matrix(onehot)]).tocsr()

    def fit(self, texts: Sequence[str], levels: Sequence[int], answer_tokens: Sequence[int]) -> LengthPredictor:
        buckets = [self.bucket_of(tokens) for tokens in answer_tokens]
        self.prior = LevelPrior()
        for level, bucket in zip(levels, buckets, strict=True):
            self.prior.add(level, bucket)
        self._vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True, max_features=8_000)
        self._vectorizer.fit(list(texts))
        if len(set(buckets)) >= 2:
            self._model = LogisticRegression(C=2.0, max_iter=2000)
            self._model.fit(self._design(texts, levels), buckets)
            self._classes = [int(bucket) for bucket in self._model.classes_]
        return self

    def distribution(self, text: str, esi_level: int) -> NDArray[np.float64]:
        """Probability of each bucket for one message at a given level."""
        prior = self.prior.distribution(esi_level)
        if self._model is None or self._vectorizer is None:
            return prior
        model_row = np.zeros(BUCKETS)
        model_row[self._classes] = self._model.predict_proba(self._design([text], [esi_level]))[0]
        return np.asarray((1 - self.prior_weight) * model_row + self.prior_weight * prior, dtype=np.float64)

    def predict(self, text: str, esi_level: int) -> int:
        """Predicted answer length in tokens (midpoint of the most probable bucket)."""
        return self.midpoint(int(np.argmax(self.distribution(text, esi_level))))

    def record_outcome(self, esi_level: int, answer_tokens: int) -> None:
        """Feed a real answer length back into the level's prior."""
        self.prior.add(esi_level, self.bucket_of(answer_tokens))

    def state(self) -> dict[str, Any]:
        return {"max_tokens": self.max_tokens, "prior_weight": self.prior_weight, "prior": self.prior.counts}

    def save(self, directory: Path) -> None:
        """`length.json` and `length.npz` (no pickle)."""
        arrays: Arrays = {}
        state: dict[str, Any] = {**self.state(), "classes": self._classes}
        if self._vectorizer is not None:
            state["words"] = vectorizer_state("words", self._vectorizer, arrays)
        if self._model is not None:
            state["model"] = regression_state("model", self._model, arrays)
        write_model_file(directory, "length", "length-predictor", state, arrays)

    @classmethod
    def load(cls, directory: Path) -> LengthPredictor:
        state, arrays = read_model_file(directory, "length", "length-predictor")
        predictor = cls(int(state["max_tokens"]), float(state["prior_weight"]))
        predictor.prior = LevelPrior(BUCKETS, {int(level): list(counts) for level, counts in state["prior"].items()})
        predictor._classes = [int(value) for value in state["classes"]]
        if "words" in state:
            predictor._vectorizer = vectorizer_from_state("words", state["words"], arrays)
        if "model" in state:
            predictor._model = regression_from_state("model", state["model"], arrays)
        return predictor
