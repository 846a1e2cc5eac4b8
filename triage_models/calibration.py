"""Temperature calibration on out-of-fold decisions, shared by the classifier backends."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize_scalar
from sklearn.model_selection import StratifiedKFold

from triage_models.result import ESI_LEVELS

FoldFitter = Callable[[Sequence[int], Sequence[int]], NDArray[np.float64]]
"""(train indices, test indices) -> decision scores for the test rows, columns ESI 1..5."""


def softmax(scores: NDArray[np.float64]) -> NDArray[np.float64]:
    shifted = scores - scores.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    return np.asarray(exp / exp.sum(axis=1, keepdims=True), dtype=np.float64)


def fit_temperature(decisions: NDArray[np.float64], labels: Sequence[int]) -> float:
    """Temperature scaling: the T minimising the held-out negative log-likelihood of softmax(decision / T)."""
    targets = np.asarray(labels) - 1

    def nll(log_t: float) -> float:
        probabilities = softmax(decisions / np.exp(log_t))
        return float(-np.log(np.clip(probabilities[np.arange(len(targets)), targets], 1e-12, None)).mean())

    result = minimize_scalar(nll, bounds=(-3.0, 3.0), method="bounded")
    return float(np.exp(result.x))


def check_levels(labels: Sequence[int]) -> None:
    """Every ESI level must be in the training data."""
    missing = set(ESI_LEVELS) - set(labels)
    if missing:
        raise ValueError(f"training data has no example of ESI level(s) {sorted(missing)}; every level is needed")


def out_of_fold(labels: Sequence[int], fit_fold: FoldFitter) -> tuple[float, NDArray[np.float64] | None]:
    """Fit on up to 3 stratified folds, calibrate a temperature on the held-out decisions.

    Returns the temperature and the held-out probabilities (None, with T = 1, when some level has fewer than two
    examples and no fold split is possible).
    """
    label_array = np.asarray(labels)
    folds = int(min(3, np.bincount(label_array, minlength=6)[1:].min()))
    if folds < 2:
        return 1.0, None
    decisions = np.zeros((len(label_array), len(ESI_LEVELS)))
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=0)
    for train_index, test_index in splitter.split(np.zeros(len(label_array)), label_array):
        decisions[test_index] = fit_fold(list(train_index), list(test_index))
    temperature = fit_temperature(decisions, labels)
    return temperature, softmax(decisions / temperature)


def by_level(classes: Sequence[int], decisions: NDArray[np.float64]) -> NDArray[np.float64]:
    """Reorder decision columns from a model's class order to ESI 1..5."""
    out = np.full((decisions.shape[0], len(ESI_LEVELS)), -1e9)
    for column, level in enumerate(classes):
        out[:, int(level) - 1] = decisions[:, column]
    return out
