"""Model files: JSON and arrays, never pickles; a round trip gives the same answers; the shipped model is ready."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import triage_models.store as store
from triage_models.pipeline import TriageModel, Triager
from triage_models.resources import RESOURCES_VERSION
from triage_models.rules import RULES_VERSION
from triage_models.safe_io import ModelFileError

MESSAGES = [
    "he is not breathing",
    "twisted ankle playing football, HR 88",
    "72 yo, chest pain, sweating, BP 85/50",
    "58 y/o F c/o RLQ abd pain x 2 days, needs labs and CT",
    "needs a refill of her inhaler",
]


def test_a_saved_model_is_json_and_arrays_and_answers_the_same(small_model: TriageModel, tmp_path: Path) -> None:
    small_model.save(tmp_path)
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "length.json", "length.npz", "linear.json", "linear.npz", "meta.json",
    ]  # fmt: skip
    loaded = TriageModel.load(tmp_path)
    for text in MESSAGES:
        before, after = Triager(small_model).classify(text), Triager(loaded).classify(text)
        assert after.esi_level == before.esi_level and after.predicted_output_tokens == before.predicted_output_tokens
        assert np.allclose(list(after.probabilities.values()), list(before.probabilities.values()), atol=1e-12)


def test_an_array_file_holding_objects_is_refused(small_model: TriageModel, tmp_path: Path) -> None:
    small_model.save(tmp_path)
    with np.load(tmp_path / "linear.npz") as loaded:
        arrays = {key: loaded[key] for key in loaded.files}
    arrays["classifier.coef"] = np.array([object()], dtype=object)  # what a pickle would smuggle in
    np.savez(tmp_path / "linear.npz", **arrays)
    with pytest.raises(ValueError, match="allow_pickle"):
        TriageModel.load(tmp_path)


def test_a_file_of_another_kind_is_a_clear_error(small_model: TriageModel, tmp_path: Path) -> None:
    small_model.save(tmp_path)
    (tmp_path / "linear.json").write_text(json.dumps({"format": 1, "kind": "something-else", "state": {}}))
    with pytest.raises(ModelFileError, match="expected 'linear-backend'"):
        TriageModel.load(tmp_path)


def test_the_shipped_model_is_current_and_loads_without_training(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_training(*args: object, **kwargs: object) -> None:
        raise AssertionError("the shipped model must be used, not trained")

    monkeypatch.setattr(store, "train_model", no_training)
    model = store.load_or_train_default(tmp_path / "empty-serving-dir")
    assert model.meta["rules_version"] == RULES_VERSION
    assert model.meta["resources_version"] == RESOURCES_VERSION
    assert set(model.meta["n_by_source"]) == {"corpus", "esi", "generated", "ktas"}
    assert Triager(model).classify("my husband collapsed, he is not breathing").esi_level == 1
    size = sum(path.stat().st_size for path in store.SHIPPED_MODEL_DIR.iterdir())
    assert size < 4_000_000


def test_a_serving_model_built_for_other_rules_is_passed_over(small_model: TriageModel, tmp_path: Path) -> None:
    small_model.save(tmp_path)
    meta = json.loads((tmp_path / "meta.json").read_text())
    (tmp_path / "meta.json").write_text(json.dumps({**meta, "rules_version": "rules-1999.1.1"}))
    assert store.load_or_train_default(tmp_path).version == TriageModel.load(store.SHIPPED_MODEL_DIR).version
    (tmp_path / "meta.json").write_text(json.dumps(meta))
    assert store.load_or_train_default(tmp_path).version == small_model.version


def test_a_serving_model_of_an_older_format_is_passed_over(small_model: TriageModel, tmp_path: Path) -> None:
    small_model.save(tmp_path)
    written = json.loads((tmp_path / "linear.json").read_text())
    del written["state"]["structured_features"]  # written before the features were named
    (tmp_path / "linear.json").write_text(json.dumps(written))
    assert store.load_or_train_default(tmp_path).version == TriageModel.load(store.SHIPPED_MODEL_DIR).version
