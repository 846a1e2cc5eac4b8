"""The default `linear` backend: TF-IDF word and character n-grams plus structured features, calibrated LR."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import sparse
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import FeatureUnion, Pipeline
from sklearn.preprocessing import MaxAbsScaler

from triage_models.calibration import by_level, check_levels, out_of_fold, softmax
from triage_models.features import StructuredFeatures, feature_row
from triage_models.safe_io import (
    Arrays,
    read_model_file,
    regression_from_state,
    regression_state,
    scaler_from_state,
    scaler_state,
    vectorizer_from_state,
    vectorizer_state,
    write_model_file,
)


def build_pipeline() -> Pipeline:
    """The feature union and the multinomial logistic regression (calibrated afterwards by temperature)."""
    features = FeatureUnion(
        [
            ("words", TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True, max_features=40_000)),
            (
                "chars",
                TfidfVectorizer(
                    analyzer="char_wb", ngram_range=(3, 5), min_df=3, sublinear_tf=True, max_features=60_000
                ),
            ),
            ("structured", Pipeline([("read", StructuredFeatures()), ("scale", MaxAbsScaler())])),
        ]
    )
    model = LogisticRegression(C=4.0, max_iter=3000, class_weight="balanced")
    return Pipeline([("features", features), ("classifier", model)])


class LinearBackend:
    """Probabilities per ESI level from the linear model, calibrated by temperature on held-out folds.

    `fit` also keeps the out-of-fold probabilities (`oof_probabilities`), so the caller can tune decision
    thresholds on predictions the model did not train on.
    """

    name = "linear"

    def __init__(self, pipeline: Pipeline | None = None, temperature: float = 1.0) -> None:
        self.pipeline = pipeline
        self.temperature = temperature
        self.oof_probabilities: NDArray[np.float64] | None = None

    def fit(
        self,
        texts: Sequence[str],
        labels: Sequence[int],
        calibrate: bool = True,
        weights: Sequence[float] | None = None,
    ) -> LinearBackend:
        """Fit on all rows (each row's `weights`, default 1); with `calibrate`, first on 3 folds for the temperature
        and out-of-fold probabilities."""
        check_levels(labels)
        texts_list, label_array = list(texts), np.asarray(labels)
        weight_array = np.ones(len(texts_list)) if weights is None else np.asarray(weights, dtype=np.float64)

        def fit_fold(train_index: Sequence[int], test_index: Sequence[int]) -> NDArray[np.float64]:
            fold = build_pipeline().fit(
                [texts_list[i] for i in train_index],
                label_array[train_index],
                classifier__sample_weight=weight_array[list(train_index)],
            )
            return by_level(fold.classes_, fold.decision_function([texts_list[i] for i in test_index]))

        if calibrate:
            self.temperature, self.oof_probabilities = out_of_fold(labels, fit_fold)
        self.pipeline = build_pipeline().fit(texts_list, label_array, classifier__sample_weight=weight_array)
        return self

    def predict_proba(self, texts: Sequence[str]) -> NDArray[np.float64]:
        """Rows of probabilities for ESI 1..5, in that order."""
        if self.pipeline is None:
            raise RuntimeError("the linear backend has not been trained or loaded")
        return softmax(
            by_level(self.pipeline.classes_, self.pipeline.decision_function(list(texts))) / self.temperature
        )

    def predict_one(self, text: str, structured: Mapping[str, float]) -> NDArray[np.float64]:
        """One message's probabilities, reusing structured features already computed (the production path).

        Same numbers as `predict_proba`, without scikit-learn's per-call overhead of the feature union.
        """
        if self.pipeline is None:
            raise RuntimeError("the linear backend has not been trained or loaded")
        union = self.pipeline.named_steps["features"]
        parts = dict(union.transformer_list)
        steps = parts["structured"].named_steps
        scale = steps["scale"].scale_
        row = sparse.hstack(
            [
                parts["words"].transform([text]),
                parts["chars"].transform([text]),
                sparse.csr_matrix(feature_row(structured, steps["read"].names) / scale),
            ]
        ).tocsr()
        model = self.pipeline.named_steps["classifier"]
        scores = np.asarray(row @ model.coef_.T).reshape(1, -1) + model.intercept_
        probabilities: NDArray[np.float64] = softmax(by_level(self.pipeline.classes_, scores) / self.temperature)[0]
        return probabilities

    def vocabulary(self) -> frozenset[str]:
        """The single words the model was trained on (its word n-grams of length one)."""
        if self.pipeline is None:
            return frozenset()
        words = dict(self.pipeline.named_steps["features"].transformer_list)["words"]
        return frozenset(term for term in words.vocabulary_ if " " not in term)

    def save(self, directory: Path) -> None:
        """`linear.json` and `linear.npz`: vocabularies, weights and the temperature (no pickle)."""
        if self.pipeline is None:
            raise RuntimeError("the linear backend has not been trained")
        parts = dict(self.pipeline.named_steps["features"].transformer_list)
        arrays: Arrays = {}
        state: dict[str, Any] = {
            "temperature": float(self.temperature),
            "words": vectorizer_state("words", parts["words"], arrays),
            "chars": vectorizer_state("chars", parts["chars"], arrays),
            "scale": scaler_state("scale", parts["structured"].named_steps["scale"], arrays),
            "structured_features": list(parts["structured"].named_steps["read"].names),
            "classifier": regression_state("classifier", self.pipeline.named_steps["classifier"], arrays),
        }
        write_model_file(directory, "linear", "linear-backend", state, arrays)

    @classmethod
    def load(cls, directory: Path) -> LinearBackend:
        """The backend written by `save`, rebuilt as the same fitted pipeline."""
        state, arrays = read_model_file(directory, "linear", "linear-backend")
        names = tuple(str(name) for name in state["structured_features"])
        structured = Pipeline(
            [("read", StructuredFeatures(names)), ("scale", scaler_from_state("scale", state["scale"], arrays))]
        )
        features = FeatureUnion(
            [
                ("words", vectorizer_from_state("words", state["words"], arrays)),
                ("chars", vectorizer_from_state("chars", state["chars"], arrays)),
                ("structured", structured),
            ]
        )
        classifier = regression_from_state("classifier", state["classifier"], arrays)
        return cls(Pipeline([("features", features), ("classifier", classifier)]), float(state["temperature"]))
