"""Fitted estimators written as JSON and NumPy arrays, never pickles: loading a model file cannot run code.

A model directory holds, per part, `<name>.json` (parameters and vocabularies) and `<name>.npz` (arrays, read with
`allow_pickle=False`). Only the estimator kinds our models are made of can be written or read: TF-IDF
vectorisers, max-abs scalers and logistic regressions.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import MaxAbsScaler

FORMAT_VERSION = 1


class ModelFileError(ValueError):
    """A model file that is missing, of another format version, or not what was expected."""


Arrays = dict[str, NDArray[Any]]


def vectorizer_state(name: str, vectorizer: TfidfVectorizer, arrays: Arrays) -> dict[str, Any]:
    """Parameters and vocabulary as JSON; the idf weights into `arrays` under `name`."""
    params = {key: value for key, value in vectorizer.get_params().items() if key != "dtype"}
    terms = sorted(vectorizer.vocabulary_, key=vectorizer.vocabulary_.__getitem__)
    arrays[f"{name}.idf"] = np.asarray(vectorizer.idf_, dtype=np.float64)
    return {"params": params, "terms": terms}


def vectorizer_from_state(name: str, state: dict[str, Any], arrays: Arrays) -> TfidfVectorizer:
    params = dict(state["params"])
    params["ngram_range"] = tuple(params["ngram_range"])
    vectorizer = TfidfVectorizer(**params)
    vectorizer.vocabulary_ = {term: index for index, term in enumerate(state["terms"])}
    vectorizer.idf_ = arrays[f"{name}.idf"]
    return vectorizer


def regression_state(name: str, model: LogisticRegression, arrays: Arrays) -> dict[str, Any]:
    arrays[f"{name}.coef"] = np.asarray(model.coef_, dtype=np.float64)
    arrays[f"{name}.intercept"] = np.asarray(model.intercept_, dtype=np.float64)
    return {"params": model.get_params(), "classes": [int(value) for value in model.classes_]}


def regression_from_state(name: str, state: dict[str, Any], arrays: Arrays) -> LogisticRegression:
    model = LogisticRegression(**state["params"])
    model.coef_ = arrays[f"{name}.coef"]
    model.intercept_ = arrays[f"{name}.intercept"]
    model.classes_ = np.asarray(state["classes"])
    model.n_features_in_ = int(model.coef_.shape[1])
    return model


def scaler_state(name: str, scaler: MaxAbsScaler, arrays: Arrays) -> dict[str, Any]:
    arrays[f"{name}.max_abs"] = np.asarray(scaler.max_abs_, dtype=np.float64)
    return {"n_samples_seen": int(scaler.n_samples_seen_)}


def scaler_from_state(name: str, state: dict[str, Any], arrays: Arrays) -> MaxAbsScaler:
    scaler = MaxAbsScaler()
    scaler.max_abs_ = arrays[f"{name}.max_abs"]
    scaler.scale_ = np.where(scaler.max_abs_ == 0, 1.0, scaler.max_abs_)
    scaler.n_samples_seen_ = int(state["n_samples_seen"])
    scaler.n_features_in_ = int(scaler.max_abs_.shape[0])
    return scaler


def write_model_file(directory: Path, name: str, kind: str, state: dict[str, Any], arrays: Arrays) -> None:
    """`<name>.json` and `<name>.npz` in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    document = {"format": FORMAT_VERSION, "kind": kind, "state": state}
    (directory / f"{name}.json").write_text(json.dumps(document), encoding="utf-8")
    np.savez_compressed(directory / f"{name}.npz", **arrays)  # type: ignore[arg-type]


def read_model_file(directory: Path, name: str, kind: str) -> tuple[dict[str, Any], Arrays]:
    """The state and arrays written by `write_model_file`; a clear error when missing or of another kind."""
    document_path, arrays_path = directory / f"{name}.json", directory / f"{name}.npz"
    if not document_path.is_file() or not arrays_path.is_file():
        raise FileNotFoundError(f"{directory}: {name}.json or {name}.npz missing: run `triage-dispatch triage train`")
    document = json.loads(document_path.read_text(encoding="utf-8"))
    if document.get("format") != FORMAT_VERSION or document.get("kind") != kind:
        raise ModelFileError(
            f"{document_path}: a {document.get('kind')!r} file of format {document.get('format')!r}, "
            f"expected {kind!r} of format {FORMAT_VERSION}"
        )
    with np.load(arrays_path, allow_pickle=False) as loaded:
        arrays = {key: loaded[key] for key in loaded.files}
    return dict(document["state"]), arrays
