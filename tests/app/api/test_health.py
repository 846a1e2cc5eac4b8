"""/healthz and /readyz: readiness from heartbeats in a real Redis, one check per TTL, and a storm of /readyz callers
that must leave liveness, intake and classification alone (real web app, Celery worker and redis-server)."""

from __future__ import annotations

import asyncio
import base64
import functools
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, select

from app.api.main import create_app
from app.db.migrate import upgrade
from app.db.models import Incident
from app.redis.keys import ENGINE_HEARTBEAT
from app.redis.local import free_port
from app.settings import Settings
from app.status.engine import NO_ENGINE
from app.status.readiness import READINESS_CLIENT_NAME, CachedCheck, check_readiness
from app.worker.heartbeat import heartbeat_key, write_heartbeat
from tests.app.stack import ROOT, Stack, signed_headers, wait_until

SECRET = "whsec_" + base64.b64encode(b"readiness-storm-secret-32-bytes!").decode()
ALL_OK = {"database": "ok", "redis": "ok", "workers": "ok", "engine": "ok"}
ENGINE_1 = {"worker": "engine-1", "engine": None, "model": None, "scheduling": None}
"""`beat_engine`'s worker in /readyz's `engines`: its beat names no engine and reports no scheduling."""


@pytest.fixture
def settings(tmp_path: Path, redis_url: str, request: pytest.FixtureRequest) -> Settings:
    url = f"sqlite:///{tmp_path / 'triage.db'}"
    upgrade(url)
    # A prefix per test: the session's redis-server is shared, and heartbeats of one test must not leak into another.
    return Settings(database_url=url, redis_url=redis_url, queue_prefix=f"readyz-{request.node.name}")


def uncached(settings: Settings) -> TestClient:
    """A client of an app whose readiness is checked on every call (ttl 0)."""
    app = create_app(settings, reconciler=False, console=False)
    app.state.readiness = CachedCheck(functools.partial(check_readiness, settings), ttl_s=0.0)
    return TestClient(app)


def beat_engine(client: redis.Redis, prefix: str, ok: bool = True) -> None:
    client.set(f"{prefix}:{ENGINE_HEARTBEAT}:engine-1", json.dumps({"ok": ok, "detail": "test engine"}), ex=60)


def test_healthz_answers_ok() -> None:
    with TestClient(create_app(Settings(redis_url=None), reconciler=False, console=False)) as client:
        response = client.get("/healthz")
    assert (response.status_code, response.json()) == (200, {"status": "ok"})


def test_readyz_reports_a_celery_worker_from_its_heartbeat(settings: Settings, redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    beat_engine(client, settings.queue_prefix)
    with uncached(settings) as api:
        missing = api.get("/readyz")
        write_heartbeat(client, settings.queue_prefix, "celery@host-a", ttl_s=60)
        present = api.get("/readyz")
    assert missing.status_code == 503
    assert missing.json() == {
        "ready": False,
        "checks": {**ALL_OK, "workers": "error: no Celery worker heartbeat"},
        "engines": [ENGINE_1],
    }
    assert present.status_code == 200
    assert present.json() == {"ready": True, "checks": ALL_OK, "engines": [ENGINE_1]}


def test_readyz_reports_no_celery_worker_once_its_heartbeat_expired(settings: Settings, redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    beat_engine(client, settings.queue_prefix)
    key = heartbeat_key(settings.queue_prefix, "celery@host-a")
    with uncached(settings) as api:
        write_heartbeat(client, settings.queue_prefix, "celery@host-a", ttl_s=60)
        assert api.get("/readyz").status_code == 200
        client.pexpire(key, 1)
        for _ in range(100):  # Redis expires it within milliseconds; 5 s at most
            if not client.exists(key):
                break
            time.sleep(0.05)
        assert client.exists(key) == 0
        response = api.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"] == {**ALL_OK, "workers": "error: no Celery worker heartbeat"}


def test_readyz_reports_the_engine_detail_when_no_engine_is_healthy(settings: Settings, redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    write_heartbeat(client, settings.queue_prefix, "celery@host-a", ttl_s=60)
    beat_engine(client, settings.queue_prefix, ok=False)
    with uncached(settings) as api:
        response = api.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"] == {**ALL_OK, "engine": "error: test engine"}


def test_readyz_reports_redis_down_without_the_other_redis_checks(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'triage.db'}"
    upgrade(url)
    settings = Settings(database_url=url, redis_url=f"redis://127.0.0.1:{free_port()}/0")
    with uncached(settings) as api:
        response = api.get("/readyz")
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert sorted(checks) == ["database", "redis"]
    assert checks["database"] == "ok"
    assert checks["redis"] == "error: ConnectionError"  # the kind only: the probe is unauthenticated


def test_readyz_reports_a_database_that_cannot_be_opened(tmp_path: Path, redis_url: str) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'missing-dir' / 'triage.db'}", redis_url=redis_url)
    with uncached(settings) as api:
        response = api.get("/readyz")
    assert response.status_code == 503
    database = response.json()["checks"]["database"]
    assert database == "error: OperationalError", database  # no path, host or user name to an anonymous caller
    assert not (tmp_path / "missing-dir").exists()


def counting(check: Callable[[], dict[str, str]]) -> tuple[Callable[[], dict[str, str]], list[int]]:
    """`check`, counting its calls (it still runs)."""
    calls: list[int] = []

    def counted() -> dict[str, str]:
        calls.append(1)
        return check()

    return counted, calls


def test_two_readyz_calls_within_the_ttl_do_one_check(settings: Settings) -> None:
    check, calls = counting(functools.partial(check_readiness, settings))
    app = create_app(settings, reconciler=False, console=False)
    app.state.readiness = CachedCheck(check, ttl_s=3600.0)
    with TestClient(app) as api:
        first, second = api.get("/readyz"), api.get("/readyz")
    assert len(calls) == 1
    assert first.json() == second.json()


def test_a_cached_check_runs_again_once_the_ttl_has_passed() -> None:
    now = [100.0]
    check, calls = counting(lambda: {"database": "ok"})
    cached = CachedCheck(check, ttl_s=2.0, clock=lambda: now[0])

    async def at(*times: float) -> list[int]:
        seen = []
        for when in times:
            now[0] = when
            await cached.get()
            seen.append(len(calls))
        return seen

    assert asyncio.run(at(100.0, 101.0, 101.99, 102.0, 103.5, 104.0)) == [1, 1, 1, 2, 2, 3]


def test_concurrent_callers_of_a_stale_check_share_one_run() -> None:
    check, calls = counting(lambda: {"database": "ok"})
    cached = CachedCheck(check, ttl_s=2.0, clock=lambda: 0.0)

    async def thirty() -> list[dict[str, str]]:
        return await asyncio.gather(*(cached.get() for _ in range(30)))

    answers = asyncio.run(thirty())
    assert len(calls) == 1
    assert answers == [{"database": "ok"}] * 30


# --- 30 looping /readyz callers against the real processes ------------------------------------------------------


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory: pytest.TempPathFactory, small_model_dir: Path) -> Iterator[Stack]:
    """redis-server, a migrated SQLite database, the web app (uvicorn, reconciler on) and a Celery worker; no engine
    worker (classification is the Celery worker's)."""
    workdir = tmp_path_factory.mktemp("readyz-storm")
    redis_port, web_port = free_port(), free_port()
    env = {
        **os.environ,
        "TRIAGE_DATABASE_URL": f"sqlite:///{workdir / 'triage.db'}",
        "TRIAGE_REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
        "TRIAGE_WEBHOOK_SECRETS": json.dumps({"cad": [SECRET]}),
        "TRIAGE_MODEL_DIR": str(small_model_dir),
        "PYTHONUNBUFFERED": "1",
    }
    stack = Stack(workdir, env, workdir / "redis", redis_port, web_port)
    stack.start_redis()
    try:
        subprocess.run([sys.executable, "-m", "app.cli.main", "db", "upgrade"], env=env, cwd=ROOT, check=True)
        port = str(web_port)
        stack.start(
            "web", "-m", "uvicorn", "app.api.main:create_app", "--factory", "--port", port, "--log-level", "warning"
        )
        stack.start_worker()
        wait_until(lambda: readiness_checks(web_port).get("workers") == "ok", 120, "the worker's heartbeat", stack)
        yield stack
    finally:
        stack.stop_all()


def readiness_checks(port: int) -> dict[str, str]:
    try:
        checks: dict[str, str] = httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=5).json()["checks"]
        return checks
    except httpx.HTTPError:
        return {}


def signed_call(text: str, msg_id: str) -> tuple[str, dict[str, str]]:
    body = json.dumps({"text": text, "call_id": msg_id})
    return body, signed_headers(SECRET, msg_id, body)


def readyz_caller(port: int, stop: threading.Event, answers: list[tuple[int, dict[str, object]]]) -> None:
    """Call /readyz in a loop until `stop`, and at least 20 times."""
    with httpx.Client(timeout=30) as client:
        calls = 0
        while calls < 20 or not stop.is_set():
            response = client.get(f"http://127.0.0.1:{port}/readyz")
            answers.append((response.status_code, response.json()))
            calls += 1


def pidbox_messages(pubsub: Any) -> list[Any]:
    """What was broadcast on the pidbox channels so far (delivered to this subscriber; read until quiet)."""
    messages = []
    while (message := pubsub.get_message(timeout=1.0)) is not None:
        messages.append(message)
    return [message for message in messages if message["type"] == "pmessage"]


def readyz_connections(client: redis.Redis) -> int:
    return sum(1 for connection in client.client_list() if connection.get("name") == READINESS_CLIENT_NAME)


def test_a_signed_call_is_classified_while_30_callers_loop_on_readyz(pipeline: Stack) -> None:
    port, broker = pipeline.web_port, redis.Redis.from_url(pipeline.env["TRIAGE_REDIS_URL"])
    # Celery's control ping is a broadcast on the pidbox channel: listen to it as the workers do.
    pidbox = broker.pubsub()  # type: ignore[no-untyped-call]
    pidbox.psubscribe("*pidbox*")
    stop, answers = threading.Event(), list[tuple[int, dict[str, object]]]()
    callers = [threading.Thread(target=readyz_caller, args=(port, stop, answers)) for _ in range(30)]
    for caller in callers:
        caller.start()
    try:
        wait_until(lambda: len(answers) >= 300, 60, "300 /readyz answers", pipeline)
        broadcasts = pidbox_messages(pidbox)
        body, headers = signed_call("Man collapsed in the street, not breathing.", "storm-1")
        # Liveness and intake are bounded by the client's timeout: a blocked web app fails here, not later.
        accepted = httpx.post(f"http://127.0.0.1:{port}/v1/intake/cad", content=body, headers=headers, timeout=5)
        assert accepted.status_code == 202, accepted.text
        incident_id = accepted.json()["incident_id"]
        liveness, connections = list[int](), list[int]()
        database = create_engine(pipeline.database_url)

        def classified() -> bool:
            liveness.append(httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code)
            connections.append(readyz_connections(broker))
            with database.connect() as connection:
                at = connection.scalar(select(Incident.classified_at).where(Incident.id == incident_id))
            return at is not None

        wait_until(classified, 60, "the call to be classified during the /readyz storm", pipeline)
    finally:
        stop.set()
        for caller in callers:
            caller.join(timeout=120)
    assert set(liveness) == {200}
    # One check at a time per process, on readiness's own connection (never the pipeline's or the broker's pool).
    assert set(connections) == {1}
    assert broadcasts == []
    assert len(answers) >= 600
    expected = {"ready": False, "checks": {**ALL_OK, "engine": f"error: {NO_ENGINE}"}, "engines": []}
    assert {(status, json.dumps(answer, sort_keys=True)) for status, answer in answers} == {
        (503, json.dumps(expected, sort_keys=True))
    }


def test_readyz_and_metrics_show_the_scheduling_each_engine_reports(settings: Settings, redis_url: str) -> None:
    from scheduler.policy import PolicyOptions
    from scheduler.scheduling_contract import Scheduling

    scheduling = Scheduling("semantic-strict", PolicyOptions(max_preemptions=1, limited_preemption=None)).to_dict()
    beat = {"ok": True, "detail": "running", "engine": "vllm", "model": "tiny", "scheduling": scheduling}
    client = redis.Redis.from_url(redis_url)
    client.set(f"{settings.queue_prefix}:{ENGINE_HEARTBEAT}:engine-2", json.dumps(beat), ex=60)
    with uncached(settings) as api:
        engines = api.get("/readyz").json()["engines"]
        metrics = api.get("/metrics").text
    assert engines == [{"worker": "engine-2", "engine": "vllm", "model": "tiny", "scheduling": scheduling}]
    info = [line for line in metrics.splitlines() if line.startswith("triage_engine_scheduling_info{")]
    assert info == [
        'triage_engine_scheduling_info{cost_model="cpu-default",engine="vllm",limited_preemption="none",'
        'max_deferred_steps="4",max_preemptions="1",policy="semantic-strict",worker="engine-2"} 1.0'
    ]
