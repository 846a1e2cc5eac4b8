"""The Celery worker's heartbeat: the key and its TTL, the beating thread, and a real worker process that beats from
ready to shutdown (real redis-server)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import redis

from app.redis.local import start_redis_server
from app.status.readiness import worker_check
from app.worker.heartbeat import HeartbeatConfig, WorkerHeartbeat, heartbeat_key, write_heartbeat
from tests.app.stack import ROOT


def wait_for(predicate: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def stop_worker_and_redis(worker: subprocess.Popen[bytes], server: subprocess.Popen[bytes]) -> None:
    """Kill a test's Celery worker if it is still running, then stop its own redis-server."""
    if worker.poll() is None:
        worker.kill()
        worker.wait(timeout=10)
    server.terminate()
    server.wait(timeout=10)


def test_write_heartbeat_sets_the_workers_key_with_its_ttl(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    write_heartbeat(client, "hb-write", "celery@host-a", ttl_s=10.0)
    key = heartbeat_key("hb-write", "celery@host-a")
    assert key == "hb-write:worker:heartbeat:celery@host-a"
    beat = json.loads(client.get(key) or b"{}")
    assert (beat["hostname"], beat["pid"]) == ("celery@host-a", os.getpid())
    assert 9000 < client.pttl(key) <= 10000


def test_worker_heartbeat_beats_until_stopped_then_deletes_its_key(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    key = heartbeat_key("hb-thread", "celery@host-a")
    heartbeat = WorkerHeartbeat(client, "hb-thread", "celery@host-a", HeartbeatConfig(interval_s=0.05, ttl_s=5.0))
    heartbeat.start()
    wait_for(lambda: client.exists(key) == 1, 10, "the first beat")
    first = json.loads(client.get(key) or b"{}")["at"]
    wait_for(lambda: json.loads(client.get(key) or b"{}")["at"] > first, 10, "a second beat")
    assert worker_check(client, "hb-thread") == "ok"
    heartbeat.stop()
    assert client.exists(key) == 0
    assert worker_check(client, "hb-thread") == "error: no Celery worker heartbeat"


@pytest.mark.parametrize(("interval_s", "ttl_s"), [(0.0, 10.0), (10.0, 10.0), (12.0, 10.0)])
def test_heartbeat_config_refuses_an_interval_not_below_the_ttl(interval_s: float, ttl_s: float) -> None:
    with pytest.raises(ValueError, match="need 0 < interval_s < ttl_s"):
        HeartbeatConfig(interval_s=interval_s, ttl_s=ttl_s)


def test_a_celery_worker_process_beats_from_ready_until_shutdown(tmp_path: Path) -> None:
    # A redis-server of its own: a worker on the session's would take other tests' tasks.
    server, url = start_redis_server(tmp_path / "redis", appendonly=False)
    client = redis.Redis.from_url(url)
    env = {**os.environ, "TRIAGE_REDIS_URL": url, "TRIAGE_QUEUE_PREFIX": "hb-proc"}
    env["TRIAGE_DATABASE_URL"] = f"sqlite:///{tmp_path / 'triage.db'}"
    log = (tmp_path / "worker.log").open("wb")
    worker = subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", "worker"], env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
    )
    try:
        wait_for(lambda: client.keys("hb-proc:worker:heartbeat:*") != [] or worker.poll() is not None, 120, "a beat")
        keys = client.keys("hb-proc:worker:heartbeat:*")
        assert len(keys) == 1, (tmp_path / "worker.log").read_text()
        beat = json.loads(client.get(keys[0]) or b"{}")
        assert (beat["pid"], keys[0]) == (worker.pid, f"hb-proc:worker:heartbeat:{beat['hostname']}".encode())
        assert worker_check(client, "hb-proc") == "ok"
        worker.send_signal(signal.SIGTERM)  # warm shutdown
        assert worker.wait(timeout=60) == 0
        assert client.keys("hb-proc:worker:heartbeat:*") == []
        assert worker_check(client, "hb-proc") == "error: no Celery worker heartbeat"
    finally:
        stop_worker_and_redis(worker, server)
