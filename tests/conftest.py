"""Shared fixtures: a small triage model trained once per session on generated messages."""

from __future__ import annotations

import os
from pathlib import Path

# No model hub here: everything the tests load is built locally, and a stray hub lookup must fail fast.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import pytest

from triage_models.generator import generate
from triage_models.pipeline import TriageModel, train_model


@pytest.fixture(scope="session")
def small_model() -> TriageModel:
    messages = list(generate(900, seed=11))
    return train_model(
        [m.text for m in messages],
        [m.esi_level for m in messages],
        [m.answer_tokens for m in messages],
        source="generated:900:seed=11",
    )


@pytest.fixture(scope="session")
def small_model_dir(small_model: TriageModel, tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("triage-model")
    small_model.save(directory)
    return directory
