"""`triage-dispatch serve` with `TRIAGE_ENGINE=vllm` on this CPU: the launcher starts redis-server, a Celery worker
and the engine worker, whose vLLM engine (our scheduler in its engine core, real forward passes of the built-in tiny
Llama) writes the guidance of a signed webhook call."""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, select

pytest.importorskip("vllm", reason="the vllm extra is installed by `make test`")

from app.db.models import Guidance, Incident, Outcome
from app.redis.local import free_port
from tests.app.stack import signed_headers

ROOT = Path(__file__).resolve().parents[2]
SECRET = "whsec_" + base64.b64encode(b"serve-vllm-secret-32-random-byte").decode()


def signed_post(port: int, body: str, msg_id: str) -> httpx.Response:
    headers = signed_headers(SECRET, msg_id, body)
    return httpx.post(f"http://127.0.0.1:{port}/v1/intake/cad", content=body, headers=headers, timeout=30)


def test_serve_with_the_vllm_engine_writes_finished_guidance_for_a_signed_call(
    tmp_path: Path, small_model_dir: Path
) -> None:
    port = free_port()
    database = tmp_path / "triage.db"
    env = {
        **os.environ,
        "HOME": str(tmp_path),  # the data directory (redis-server's files, the built-in model) lives under it
        "TRIAGE_DATABASE_URL": f"sqlite:///{database}",
        "TRIAGE_ENGINE": "vllm",
        "TRIAGE_MODEL": "builtin:tiny-llama",
        "TRIAGE_VLLM_ENFORCE_EAGER": "true",
        "TRIAGE_VLLM_KV_CACHE_GIB": "0.25",
        "TRIAGE_MAX_NEW_TOKENS": "12",
        "TRIAGE_MODEL_DIR": str(small_model_dir),
        "TRIAGE_WEBHOOK_SECRETS": json.dumps({"cad": [SECRET]}),
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("TRIAGE_REDIS_URL", None)
    log = (tmp_path / "serve.log").open("wb")
    serve = subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", "serve", "--port", str(port)],
        env=env,
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        guidance = _serve_one_call(port, database, tmp_path / "serve.log")
        # Ctrl-C in a terminal: SIGINT to the whole foreground process group.
        os.killpg(serve.pid, signal.SIGINT)
        returncode = serve.wait(timeout=90)
    finally:
        if serve.poll() is None:
            os.killpg(serve.pid, signal.SIGKILL)
    incident, text, outcome = guidance
    assert incident.guidance_state == "done"
    assert (outcome.engine, outcome.error, outcome.tokens) == ("vllm", None, 12)
    assert outcome.model.endswith("tiny-llama") and outcome.ttft_s is not None
    assert text.tokens == 12 and text.text
    # A quiet, clean stop: the children stopped in order, vLLM's engine core by the engine worker.
    said = (tmp_path / "serve.log").read_text(errors="replace")
    assert returncode == 0
    assert [word for word in ("Traceback", "EngineDeadError", "TypeError", "Connection refused") if word in said] == []


def _serve_one_call(port: int, database: Path, log: Path) -> tuple[Incident, Guidance, Outcome]:
    deadline = time.monotonic() + 240
    body = json.dumps({"text": "caller says her father has chest pain and is sweating", "call_id": "vllm-1"})
    response = None
    while time.monotonic() < deadline:
        try:
            response = signed_post(port, body, "msg-vllm-1")
            break
        except httpx.HTTPError:
            time.sleep(1)
    assert response is not None and response.status_code == 202, log.read_text(errors="replace")[-4000:]
    incident_id = response.json()["incident_id"]
    engine = create_engine(f"sqlite:///{database}")
    while time.monotonic() < deadline:
        with engine.connect() as connection:
            outcome = connection.execute(select(Outcome).where(Outcome.incident_id == incident_id)).first()
            if outcome is not None:
                incident = connection.execute(select(Incident).where(Incident.id == incident_id)).one()
                guidance = connection.execute(select(Guidance).where(Guidance.incident_id == incident_id)).one()
                return incident, guidance, outcome  # type: ignore[return-value]
        time.sleep(1)
    raise AssertionError("no outcome within 240 s\n" + log.read_text(errors="replace")[-4000:])
