"""Which models are test models: the built-in tiny Llama, whose guidance is never real, and its label."""

from __future__ import annotations

BUILTIN_TINY = "builtin:tiny-llama"
"""A tiny random-weight Llama built locally: for offline smoke runs and tests (its guidance is gibberish)."""
TEST_MODELS = frozenset({BUILTIN_TINY, "tiny-llama"})
"""Model names whose guidance is never real: the built-in tiny Llama (as named in settings, or by its directory)."""
TEST_MODEL_LABEL = "test model: not real guidance"


def is_test_model(name: str | None) -> bool:
    """Whether guidance from the model `name` is a test model's (labelled TEST_MODEL_LABEL wherever it is shown)."""
    return name in TEST_MODELS
