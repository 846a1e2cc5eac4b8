"""Shared fixtures: a small triage model trained once per session on generated messages."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

# No model hub here: everything the tests load is built locally, and a stray hub lookup must fail fast.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# vLLM decides its platform at import: the tests drive its scheduler on the CPU.
os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")
os.environ.setdefault("VLLM_CACHE_ROOT", tempfile.mkdtemp(prefix="vllm-cache-"))

import pytest

from tests.postgres_server import PostgresServer
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


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real redis-server for the session (no persistence: the tests restart it to lose everything)."""
    from app.redis.local import start_redis_server

    process, url = start_redis_server(tmp_path_factory.mktemp("redis"), appendonly=False)
    yield url
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A real PostgreSQL server for the session, in a scratch data directory (a test may crash and restart it:
    the same port, the same data)."""
    server = PostgresServer.create()
    server.start()
    try:
        yield server
    finally:
        server.remove()


@pytest.fixture(scope="session")
def postgres_url(postgres_server: PostgresServer) -> str:
    """The session's PostgreSQL server (its `postgres` database)."""
    return postgres_server.url
