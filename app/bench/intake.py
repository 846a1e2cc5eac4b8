"""`bench intake`: messages per second accepted and latency from POST to queued, through real processes.

Starts a redis-server, a SQLite database, the web app (uvicorn) and one Celery worker in a scratch directory,
posts signed messages with a fixed concurrency, and reads when each incident entered the semantic heap
(`queued_at`). Side by side, in the same run, it posts the same requests to an unknown source (answered 404
before any database work): the bare HTTP round trip on this machine, the baseline for the intake's cost.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, select

from app.db.migrate import upgrade
from app.db.models import Incident
from app.intake.signatures import signed_headers
from app.redis.local import free_port, start_redis_server
from triage_models.generator import generate

SECRET = "whsec_" + base64.b64encode(b"bench-intake-secret-32-random-by").decode()
ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True, slots=True)
class IntakeBenchResult:
    messages: int
    concurrency: int
    accepted_per_s: float
    post_p50_ms: float
    post_p99_ms: float
    queued_p50_ms: float
    queued_p99_ms: float
    queued_per_s: float
    baseline_per_s: float
    baseline_p50_ms: float
    baseline_p99_ms: float

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


async def _post_all(
    port: int, source: str, texts: list[str], concurrency: int, tag: str
) -> tuple[list[float], list[float], float]:
    """Post every text; (start wall times, latencies in s, elapsed s)."""
    limit = asyncio.Semaphore(concurrency)
    starts = [0.0] * len(texts)
    latencies = [0.0] * len(texts)

    async def post(client: httpx.AsyncClient, index: int) -> None:
        body = json.dumps({"text": texts[index]}).encode()
        msg_id = f"{tag}-{index}"
        async with limit:
            headers = signed_headers(SECRET, msg_id, body)
            starts[index] = time.time()
            began = time.perf_counter()
            response = await client.post(f"http://127.0.0.1:{port}/v1/intake/{source}", content=body, headers=headers)
            latencies[index] = time.perf_counter() - began
        if source == "cad" and response.status_code != 202:
            raise RuntimeError(f"intake answered {response.status_code}: {response.text}")

    began = time.perf_counter()
    async with httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=concurrency)) as client:
        await asyncio.gather(*(post(client, index) for index in range(len(texts))))
    return starts, latencies, time.perf_counter() - began


def run_intake_bench(messages: int = 1000, concurrency: int = 50, model_dir: Path | None = None) -> IntakeBenchResult:
    """Start the processes, measure, stop them."""
    texts = [message.text for message in generate(messages, seed=3)]
    with tempfile.TemporaryDirectory(prefix="bench-intake-") as scratch:
        workdir = Path(scratch)
        redis_process, redis_url = start_redis_server(workdir / "redis", appendonly=False)
        database_url = f"sqlite:///{workdir / 'triage.db'}"
        upgrade(database_url)
        port = free_port()
        env = {
            **os.environ,
            "TRIAGE_DATABASE_URL": database_url,
            "TRIAGE_REDIS_URL": redis_url,
            "TRIAGE_WEBHOOK_SECRETS": json.dumps({"cad": [SECRET]}),
            # One source stands for a whole centre's load here: far past a real source's intake limit on purpose.
            "TRIAGE_INTAKE_LIMIT": "1000000/minute",
            "TRIAGE_RECONCILE_INTERVAL_S": "1",
        }
        if model_dir is not None:
            env["TRIAGE_MODEL_DIR"] = str(model_dir)
        log = (workdir / "processes.log").open("ab")
        web = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "app.api.main:create_app", "--factory", "--port", str(port),
             "--log-level", "warning"],
            env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        worker = subprocess.Popen(
            [sys.executable, "-m", "app.cli.main", "worker"], env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
        )
        try:
            wait_http(port)
            _warm_worker(port, database_url)
            _, base_latencies, base_elapsed = asyncio.run(_post_all(port, "unknown", texts, concurrency, "baseline"))
            starts, latencies, elapsed = asyncio.run(_post_all(port, "cad", texts, concurrency, "bench"))
            queued = _wait_queued(database_url, messages + 1, timeout_s=600)
        finally:
            for process in (web, worker):
                process.terminate()
            for process in (web, worker):
                process.wait(timeout=20)
            redis_process.terminate()
            redis_process.wait(timeout=10)
    queued_delays = [queued[f"bench-{index}"] - starts[index] for index in range(messages)]
    last_queued = max(queued[f"bench-{index}"] for index in range(messages))
    return IntakeBenchResult(
        messages=messages,
        concurrency=concurrency,
        accepted_per_s=messages / elapsed,
        post_p50_ms=_percentile(latencies, 0.5) * 1000,
        post_p99_ms=_percentile(latencies, 0.99) * 1000,
        queued_p50_ms=_percentile(queued_delays, 0.5) * 1000,
        queued_p99_ms=_percentile(queued_delays, 0.99) * 1000,
        queued_per_s=messages / (last_queued - min(starts)),
        baseline_per_s=messages / base_elapsed,
        baseline_p50_ms=_percentile(base_latencies, 0.5) * 1000,
        baseline_p99_ms=_percentile(base_latencies, 0.99) * 1000,
    )


def wait_http(port: int, timeout_s: float = 60) -> None:
    """Wait until the web app on `port` answers `/healthz` 200."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError("the web app did not start")
        time.sleep(0.2)


def _warm_worker(port: int, database_url: str) -> None:
    """One message through before measuring: the worker loads (or trains) the triage model first."""
    body = json.dumps({"text": "warm-up: sprained ankle"}).encode()
    headers = signed_headers(SECRET, "warmup", body)
    httpx.post(f"http://127.0.0.1:{port}/v1/intake/cad", content=body, headers=headers, timeout=30).raise_for_status()
    _wait_queued(database_url, 1, timeout_s=300)


def _wait_queued(database_url: str, count: int, timeout_s: float) -> dict[str, float]:
    engine = create_engine(database_url, hide_parameters=True)  # reads only; no call in an error either
    deadline = time.monotonic() + timeout_s
    while True:
        with engine.connect() as connection:
            rows = connection.execute(
                select(Incident.webhook_id, Incident.queued_at).where(Incident.queued_at.is_not(None))
            ).all()
        if len(rows) >= count:
            engine.dispose()
            return {webhook_id: _as_utc(at).timestamp() for webhook_id, at in rows if at is not None}
        if time.monotonic() > deadline:
            raise RuntimeError(f"only {len(rows)} of {count} messages were queued in {timeout_s}s")
        time.sleep(0.25)


def _as_utc(value: dt.datetime) -> dt.datetime:
    return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value
