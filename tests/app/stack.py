"""Test helper: the product's processes on this machine (redis-server, web app, Celery worker, engine worker)."""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from app.local_redis import free_port, start_redis_server

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Stack:
    """Processes of one deployment on this machine."""

    workdir: Path
    env: dict[str, str]
    redis_dir: Path
    redis_port: int
    web_port: int
    redis: subprocess.Popen[bytes] | None = None
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    @property
    def database_url(self) -> str:
        return self.env["TRIAGE_DATABASE_URL"]

    def start_redis(self) -> None:
        self.redis, _ = start_redis_server(self.redis_dir, port=self.redis_port, appendonly=False)

    def stop_redis(self) -> None:
        assert self.redis is not None
        self.redis.kill()
        self.redis.wait(timeout=10)

    def start(self, name: str, *command: str) -> None:
        log = (self.workdir / f"{name}.log").open("ab")
        self.processes[name] = subprocess.Popen(
            [sys.executable, *command], env=self.env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
        )

    def start_worker(self) -> None:
        self.start("worker", "-m", "app.cli.main", "worker")

    def kill(self, name: str) -> None:
        process = self.processes.pop(name)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)

    def stop_all(self) -> None:
        for process in self.processes.values():
            process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
        if self.redis is not None:
            self.redis.terminate()
            self.redis.wait(timeout=10)

    def logs(self) -> str:
        return "\n".join(
            f"--- {path.name}\n{path.read_text(errors='replace')[-3000:]}" for path in self.workdir.glob("*.log")
        )


def start_stack(workdir: Path, extra_env: dict[str, str]) -> Stack:
    """Redis, a migrated SQLite database, the web app, a Celery worker and the engine worker, ready to serve."""
    redis_port, web_port = free_port(), free_port()
    env = {
        **os.environ,
        "TRIAGE_DATABASE_URL": f"sqlite:///{workdir / 'triage.db'}",
        "TRIAGE_REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
        "PYTHONUNBUFFERED": "1",
        **extra_env,
    }
    deployment = Stack(workdir, env, workdir / "redis", redis_port, web_port)
    deployment.start_redis()
    subprocess.run([sys.executable, "-m", "app.cli.main", "db", "upgrade"], env=env, cwd=ROOT, check=True)
    deployment.start(
        "web",
        "-m",
        "uvicorn",
        "app.api.main:create_app",
        "--factory",
        "--port",
        str(web_port),
        "--log-level",
        "warning",
    )
    deployment.start_worker()
    deployment.start("engine", "-m", "app.cli.main", "engine", "run")
    try:
        wait_until(lambda: ready(web_port), 180, "the stack to be ready", deployment)
    except BaseException:
        deployment.stop_all()
        raise
    return deployment


def start_product(workdir: Path, triage_model_dir: Path, secret: str, extra_env: dict[str, str]) -> Stack:
    """`start_stack` serving a tiny local Llama, the given triage model, and the source `cad` signed with `secret`."""
    from scheduler.engines.tiny_models import build_tiny_llama

    model = build_tiny_llama(workdir / "model")
    base = {
        "TRIAGE_WEBHOOK_SECRETS": json.dumps({"cad": [secret]}),
        "TRIAGE_MODEL": str(model),
        "TRIAGE_MODEL_DIR": str(triage_model_dir),
    }
    return start_stack(workdir, {**base, **extra_env})


def signed_headers(secret: str, msg_id: str, body: str) -> dict[str, str]:
    """Standard Webhooks headers for `body`, signed now with `secret`."""
    from standardwebhooks.webhooks import Webhook

    now = dt.datetime.now(dt.UTC)
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": Webhook(secret).sign(msg_id, now, body),
        "content-type": "application/json",
    }


def ready(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def wait_until(predicate: Callable[[], bool], timeout_s: float, what: str, stack: Stack) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}\n{stack.logs()}")
        time.sleep(0.5)
