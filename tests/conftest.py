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
    from app.local_redis import start_redis_server

    process, url = start_redis_server(tmp_path_factory.mktemp("redis"), appendonly=False)
    yield url
    process.terminate()
    process.wait(timeout=10)


def _postgres_bin(name: str) -> str:
    import glob
    import shutil

    found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    if found is None:
        raise RuntimeError(
            f"PostgreSQL's {name} is not installed (Debian: apt-get install postgresql; `make test` does)"
        )
    return found


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A real PostgreSQL server for the session, in a scratch data directory (run as `postgres` when we are root;
    outside pytest's private temporary directory, which that user cannot enter)."""
    import shutil
    import subprocess

    from app.local_redis import free_port

    root = Path(tempfile.mkdtemp(prefix="triage-postgres-"))
    data, sockets = root / "data", root / "sockets"
    sockets.mkdir()
    prefix: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
        shutil.chown(sockets, "postgres")
        prefix = ["runuser", "-u", "postgres", "--"]
    port = free_port()
    subprocess.run(
        [*prefix, _postgres_bin("initdb"), "-D", str(data), "-A", "trust", "-U", "triage", "--no-sync"],
        check=True,
        capture_output=True,
    )
    options = f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync=off"
    subprocess.run(
        [*prefix, _postgres_bin("pg_ctl"), "-D", str(data), "-o", options, "-l", str(root / "log"), "-w", "start"],
        check=True,
        capture_output=True,
    )
    try:
        yield f"postgresql+psycopg://triage@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*prefix, _postgres_bin("pg_ctl"), "-D", str(data), "-m", "fast", "stop"], capture_output=True)
        shutil.rmtree(root, ignore_errors=True)
