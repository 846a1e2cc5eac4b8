"""Test helper: the product's processes on this machine (redis-server, web app, Celery workers, engine workers)."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psutil
import redis

from app.redis.keys import ENGINE_HEARTBEAT
from app.redis.local import free_port, start_redis_server

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Stack:
    """Processes of one deployment on this machine."""

    workdir: Path
    env: dict[str, str]
    redis_dir: Path
    redis_port: int
    web_port: int
    redis_appendonly: bool = False
    """redis-server's persistence: no files (a restart loses everything), or the append-only file `serve` and the
    compose pilot run with (a restart reloads it)."""
    redis: subprocess.Popen[bytes] | None = None
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    log_offsets: dict[str, int] = field(default_factory=dict)
    """Where each process's log began when it was last started."""

    @property
    def database_url(self) -> str:
        return self.env["TRIAGE_DATABASE_URL"]

    @property
    def redis_url(self) -> str:
        return self.env["TRIAGE_REDIS_URL"]

    def start_redis(self) -> None:
        self.redis, _ = start_redis_server(self.redis_dir, port=self.redis_port, appendonly=self.redis_appendonly)

    def stop_redis(self) -> None:
        assert self.redis is not None
        self.redis.kill()
        self.redis.wait(timeout=10)

    def start(self, name: str, *command: str) -> None:
        log = (self.workdir / f"{name}.log").open("ab")
        self.log_offsets[name] = log.tell()
        self.processes[name] = subprocess.Popen(
            [sys.executable, *command], env=self.env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
        )

    def start_web(self, name: str = "web") -> None:
        """The web app under uvicorn on `web_port` (the reconciler runs in it)."""
        port = str(self.web_port)
        self.start(
            name, "-m", "uvicorn", "app.api.main:create_app", "--factory", "--port", port, "--log-level", "warning"
        )

    def start_worker(self, name: str = "worker") -> None:
        self.start(name, "-m", "app.cli.main", "worker")

    def start_engine(self, name: str = "engine") -> None:
        self.start(name, "-m", "app.cli.main", "engine", "run")

    def kill(self, name: str) -> None:
        process = self.processes.pop(name)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)

    def kill_tree(self, name: str) -> None:
        """SIGKILL a process and every process it started (a Celery worker's pool, vLLM's engine core), at once:
        the machine or container running it is gone."""
        process = self.processes.pop(name)
        _kill_tree(process)

    def freeze(self, name: str) -> None:
        """SIGSTOP a process and every process it started: nothing it does (a commit, a token) happens until
        `thaw` or a kill."""
        for process in [psutil.Process(self.processes[name].pid), *_descendants(self.processes[name])]:
            with contextlib.suppress(psutil.NoSuchProcess):
                process.suspend()

    def thaw(self, name: str) -> None:
        for process in [psutil.Process(self.processes[name].pid), *_descendants(self.processes[name])]:
            with contextlib.suppress(psutil.NoSuchProcess):
                process.resume()

    def engine_consumer(self, name: str) -> str:
        """The consumer name an engine worker leases under (`app.engine_worker.loop.EngineWorker.consumer`)."""
        return f"{socket.gethostname()}:{self.processes[name].pid}"

    def engine_ready(self, name: str) -> bool:
        """Whether the engine worker `name` beats and says its engine is healthy."""
        key = f"{self.env.get('TRIAGE_QUEUE_PREFIX', 'triage')}:{ENGINE_HEARTBEAT}:{self.engine_consumer(name)}"
        try:
            raw = redis.Redis.from_url(self.redis_url, socket_timeout=2).get(key)
        except redis.RedisError:
            return False
        return raw is not None and bool(json.loads(raw).get("ok"))

    def worker_ready(self, name: str) -> bool:
        """Whether the Celery worker `name` said it is ready since it was last started."""
        process = self.processes.get(name)
        return process is not None and process.poll() is None and " ready." in self.log(name, since_start=True)

    def log(self, name: str, *, since_start: bool = False) -> str:
        """What `name` wrote (its log is appended to across restarts; `since_start`: its current process only)."""
        try:
            with (self.workdir / f"{name}.log").open("rb") as log:
                log.seek(self.log_offsets.get(name, 0) if since_start else 0)
                return log.read().decode(errors="replace")
        except OSError:
            return ""

    def stop_all(self) -> None:
        trees = {name: _descendants(process) for name, process in self.processes.items()}
        for process in self.processes.values():
            process.terminate()
        for name, process in self.processes.items():
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
            for child in trees[name]:  # anything a stopped process left behind
                _kill_quietly(child)
        if self.redis is not None:
            self.redis.terminate()
            self.redis.wait(timeout=10)

    def logs(self) -> str:
        return "\n".join(
            f"--- {path.name}\n{path.read_text(errors='replace')[-3000:]}" for path in self.workdir.glob("*.log")
        )


def _descendants(process: subprocess.Popen[bytes]) -> list[psutil.Process]:
    try:
        return list(psutil.Process(process.pid).children(recursive=True))
    except psutil.NoSuchProcess:
        return []


def _kill_quietly(process: psutil.Process) -> None:
    with contextlib.suppress(psutil.NoSuchProcess):
        process.kill()


def _kill_tree(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL the process and its descendants (listed first: a dead parent's children are re-parented) and reap
    the process; every one of them is gone when this returns."""
    children = _descendants(process)
    process.send_signal(signal.SIGKILL)
    for child in children:
        _kill_quietly(child)
    process.wait(timeout=10)
    _, alive = psutil.wait_procs(children, timeout=10)
    if alive:
        raise RuntimeError(f"processes still alive after SIGKILL: {[child.pid for child in alive]}")


def start_stack(workdir: Path, extra_env: dict[str, str], *, own_redis: bool = True) -> Stack:
    """Redis, a migrated SQLite database, the web app, a Celery worker and the engine worker, ready to serve
    (`own_redis=False`: no redis-server of its own, `extra_env` names TRIAGE_REDIS_URL)."""
    redis_port, web_port = free_port(), free_port()
    env = {
        **os.environ,
        "TRIAGE_DATABASE_URL": f"sqlite:///{workdir / 'triage.db'}",
        "TRIAGE_REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
        "PYTHONUNBUFFERED": "1",
        **extra_env,
    }
    deployment = Stack(workdir, env, workdir / "redis", redis_port, web_port)
    if own_redis:
        deployment.start_redis()
    subprocess.run([sys.executable, "-m", "app.cli.main", "db", "upgrade"], env=env, cwd=ROOT, check=True)
    deployment.start_web()
    deployment.start_worker()
    deployment.start_engine()
    try:
        wait_until(lambda: ready(web_port), 180, "the stack to be ready", deployment)
    except BaseException:
        deployment.stop_all()
        raise
    return deployment


LOAD_TEST_INTAKE_LIMIT = "1000000/minute"
"""A load test's source sends far past a real source's limit (docs/intake.md#per-source-limits) on purpose."""


def start_product(
    workdir: Path, triage_model_dir: Path, secret: str, extra_env: dict[str, str], *, own_redis: bool = True
) -> Stack:
    """`start_stack` serving a tiny local Llama, the given triage model, and the source `cad` signed with `secret`."""
    from scheduler.engines.tiny_models import build_tiny_llama

    model = build_tiny_llama(workdir / "model")
    base = {
        "TRIAGE_WEBHOOK_SECRETS": json.dumps({"cad": [secret]}),
        # `cad` stands for a whole centre's load here (1000 calls as fast as they go), not for one real sender.
        "TRIAGE_INTAKE_LIMIT": LOAD_TEST_INTAKE_LIMIT,
        "TRIAGE_MODEL": str(model),
        "TRIAGE_MODEL_DIR": str(triage_model_dir),
    }
    return start_stack(workdir, {**base, **extra_env}, own_redis=own_redis)


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


SENDER_ATTEMPTS = 4  # a first try and three resends, as Standard Webhooks senders and Twilio do


async def post_signed_calls(
    port: int, secret: str, batch: str, count: int, during: Callable[[int], None] | None = None
) -> list[str]:
    """Post `count` generated calls signed with `secret` to the source `cad`, 50 at a time, each answered 202 (a 503
    resent after its Retry-After, as a real sender does); their incident ids. `during(n)` is called as the count of
    answers grows."""
    import asyncio

    from triage_models.generator import generate

    texts = [message.text for message in generate(count, seed=len(batch))]
    answered = 0
    limit = asyncio.Semaphore(50)

    async def post(client: httpx.AsyncClient, index: int) -> str:
        nonlocal answered
        body = json.dumps({"text": texts[index], "call_id": f"{batch}-{index}"})
        for _attempt in range(SENDER_ATTEMPTS):  # a Standard Webhooks sender resends a 503 after its Retry-After
            headers = signed_headers(secret, f"{batch}-{index}", body)
            async with limit:
                response = await client.post(f"http://127.0.0.1:{port}/v1/intake/cad", content=body, headers=headers)
            if response.status_code != 503:
                break
            await asyncio.sleep(min(float(response.headers["retry-after"]), 5.0))
        assert response.status_code == 202, response.text
        answered += 1
        if during is not None:
            during(answered)
        return str(response.json()["incident_id"])

    async with httpx.AsyncClient(timeout=60) as client:
        return await asyncio.gather(*(post(client, index) for index in range(count)))


def all_done(database_url: str, incident_ids: list[str]) -> Callable[[], bool]:
    """A predicate (for `wait_until`): every one of the incidents has its guidance done."""
    from sqlalchemy import create_engine, func, select

    from app.db.models import Incident

    engine = create_engine(database_url)

    def check() -> bool:
        with engine.connect() as connection:
            done = connection.scalar(
                select(func.count())
                .select_from(Incident)
                .where(Incident.id.in_(incident_ids), Incident.guidance_state == "done")
            )
        return done == len(incident_ids)

    return check


def assert_all_served(database_url: str, incident_ids: list[str], batch: str, max_tokens: int) -> None:
    """Every incident once, with exactly one classification, guidance of 1 to `max_tokens` tokens, one outcome that
    agrees with it and no error, and its outbox entry done; no webhook id stored twice."""
    from sqlalchemy import create_engine, func, select, text

    from app.db.models import Classification, Guidance, Incident, Outbox, Outcome

    expected = len(incident_ids)
    assert len(set(incident_ids)) == expected
    with create_engine(database_url).connect() as connection:

        def count(model: Any, *where: Any) -> int:
            key = model.incident_id if model is not Incident else model.id
            return int(
                connection.scalar(select(func.count()).select_from(model).where(key.in_(incident_ids), *where)) or 0
            )

        assert count(Incident) == expected
        assert count(Incident, Incident.guidance_state == "done") == expected
        batch_rows = select(func.count()).select_from(Incident).where(Incident.call_id.like(f"{batch}-%"))
        assert connection.scalar(batch_rows) == expected
        assert count(Classification) == expected  # one per incident and model version: none duplicated
        assert count(Outcome, Outcome.error.is_(None), Outcome.ttft_s.is_not(None)) == expected
        assert count(Guidance, Guidance.tokens >= 1, Guidance.tokens <= max_tokens) == expected
        mismatched = connection.scalar(
            select(func.count())
            .select_from(Guidance)
            .join(Outcome, Outcome.incident_id == Guidance.incident_id)
            .where(Guidance.incident_id.in_(incident_ids), Outcome.tokens != Guidance.tokens)
        )
        assert mismatched == 0
        assert count(Outbox, Outbox.done_at.is_not(None)) == expected
        duplicates = connection.execute(
            text("SELECT webhook_id FROM incidents GROUP BY source, webhook_id HAVING COUNT(*) > 1")
        ).all()
        assert duplicates == []
