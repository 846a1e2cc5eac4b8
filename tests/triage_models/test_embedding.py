"""The embedding backend, loaded through sentence-transformers from a tiny model built here."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from scheduler.engines.tiny_models import build_tiny_sentence_transformer
from triage_models.embedding import EmbeddingModelError, load_encoder
from triage_models.generator import generate
from triage_models.pipeline import TriageModel, Triager, train_model


@pytest.fixture(scope="module")
def tiny_encoder_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_sentence_transformer(tmp_path_factory.mktemp("tiny-st"))


def test_embedding_backend_trains_saves_and_loads(tiny_encoder_dir: Path, tmp_path: Path) -> None:
    messages = list(generate(250, seed=8))
    model = train_model(
        [m.text for m in messages],
        [m.esi_level for m in messages],
        source="generated:250",
        backend="embedding",
        embedding_model=str(tiny_encoder_dir),
    )
    assert model.meta["backend"] == "embedding" and model.version.startswith("embedding-")
    model.save(tmp_path / "model")
    loaded = TriageModel.load(tmp_path / "model")
    text = "she twisted her ankle on the stairs"
    first, again = Triager(model).classify(text), Triager(loaded).classify(text)
    assert first.backend == "embedding"
    assert np.allclose(list(first.probabilities.values()), list(again.probabilities.values()), atol=1e-6)
    # The rules still set the floor whatever the (random-weight) encoder says.
    assert Triager(loaded).classify("he is not breathing and has no pulse").esi_level == 1


def test_missing_encoder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingModelError, match="could not load sentence-transformers model"):
        load_encoder(str(tmp_path / "no-such-model"))


def test_embedding_backend_needs_a_model_name() -> None:
    with pytest.raises(ValueError, match="needs a sentence-transformers model"):
        train_model(["a"] * 5, [1, 2, 3, 4, 5], backend="embedding")
    with pytest.raises(ValueError, match="unknown triage backend 'forest'"):
        train_model(["a"] * 5, [1, 2, 3, 4, 5], backend="forest")
