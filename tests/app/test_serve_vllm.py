"""`triage-dispatch serve` with `TRIAGE_ENGINE=vllm` on this CPU: the launcher starts redis-server, a Celery worker
and the engine worker, whose vLLM engine (our scheduler in its engine core, real forward passes of the built-in tiny
Llama) writes the guidance of a signed webhook call."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil
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


def start_serve(home: Path, small_model_dir: Path, port: int) -> subprocess.Popen[bytes]:
    """`serve` with the vllm engine on the built-in tiny Llama, in a session of its own (its id: serve's pid), its
    output in `home/serve.log`."""
    env = {
        **os.environ,
        "HOME": str(home),  # the data directory (redis-server's files, the built-in model) lives under it
        "TRIAGE_DATABASE_URL": f"sqlite:///{home / 'triage.db'}",
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
    return subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", "serve", "--port", str(port)],
        env=env,
        cwd=ROOT,
        stdout=(home / "serve.log").open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def session_processes(session_id: int) -> list[psutil.Process]:
    """Every live process of the session (children and grandchildren keep it, even once orphaned)."""
    found = []
    for process in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            if os.getsid(process.pid) == session_id and process.status() != psutil.STATUS_ZOMBIE:
                found.append(process)
    return found


def described(process: psutil.Process) -> str:
    """A process's pid and command line (what is known of it once it ended)."""
    try:
        return f"{process.pid} {' '.join(process.cmdline())}"
    except psutil.Error as error:
        return f"{process.pid} ({type(error).__name__})"


def test_serve_with_the_vllm_engine_writes_finished_guidance_for_a_signed_call(
    tmp_path: Path, small_model_dir: Path
) -> None:
    port = free_port()
    database = tmp_path / "triage.db"
    serve = start_serve(tmp_path, small_model_dir, port)
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


def vllm_engine_core(serve: subprocess.Popen[bytes], log: Path) -> psutil.Process:
    """vLLM's engine core once the engine worker has started it (a `multiprocessing` spawn child, loading the
    model)."""
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        with contextlib.suppress(psutil.Error):
            for child in psutil.Process(serve.pid).children():
                if "engine run" in " ".join(child.cmdline()):
                    for grandchild in child.children():
                        if "spawn_main" in " ".join(grandchild.cmdline()):
                            return grandchild
        time.sleep(0.1)
    raise AssertionError("no vLLM engine core within 240 s\n" + log.read_text(errors="replace")[-4000:])


def test_stopping_serve_while_vllm_starts_leaves_no_process_behind(tmp_path: Path, small_model_dir: Path) -> None:
    """SIGTERM to `serve` while vLLM's engine core is loading the model: the engine worker ends the start itself
    (nothing left for `serve` to sweep from its process group), `serve` exits 0, and no process it started, nor any
    they started, is left; on a GPU the engine core and its workers would keep the GPU's memory."""
    log = tmp_path / "serve.log"
    serve = start_serve(tmp_path, small_model_dir, free_port())
    try:
        engine_core = vllm_engine_core(serve, log)
        os.kill(serve.pid, signal.SIGTERM)
        returncode = serve.wait(timeout=120)
        left = session_processes(serve.pid)
    finally:
        for process in session_processes(serve.pid):
            with contextlib.suppress(psutil.Error):
                process.kill()
    said = log.read_text(errors="replace")
    assert [described(process) for process in left] == [], said[-4000:]
    assert returncode == 0 and not engine_core.is_running(), said[-4000:]
    assert "engine worker: stopping the vllm engine's start" in said and "engine worker stopped" in said, said[-4000:]
    assert "left in process group" not in said, said[-4000:]
