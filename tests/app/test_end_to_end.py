"""The whole pipeline with real processes: redis-server, the web app (uvicorn), a Celery worker and the engine
worker (the default vllm engine, tiny local Llama). 500 signed messages (TRIAGE_E2E_MESSAGES; 1000 before CI had to
fit in 30 minutes), posted 50 at a time, must end as as many incidents with guidance and outcomes, none duplicated;
and 300 with Redis restarted empty (losing everything it held) mid-run (what is lost in a crash does not grow with the
count, CI time does). A Celery worker killed mid-run is `test_faults.py`'s, with exact counts of every row."""

from __future__ import annotations

import asyncio
import base64
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from app.redis.local import wait_for_redis
from tests.app.stack import Stack, all_done, assert_all_served, post_signed_calls, start_product, wait_until

SECRET = "whsec_" + base64.b64encode(b"end-to-end-secret-32-random-byte").decode()
MESSAGES = int(os.environ.get("TRIAGE_E2E_MESSAGES", "500"))
CRASH_MESSAGES = 300


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, small_model_dir: Path) -> Iterator[Stack]:
    deployment = start_product(
        tmp_path_factory.mktemp("e2e"),
        small_model_dir,
        SECRET,
        {
            "TRIAGE_MAX_NEW_TOKENS": "8",
            "TRIAGE_ENGINE_NUM_BLOCKS": "256",
            "TRIAGE_ENGINE_LEASE_S": "6",
            "TRIAGE_OUTBOX_REDELIVER_S": "4",
            "TRIAGE_RECONCILE_INTERVAL_S": "0.5",
            "TRIAGE_CELERY_VISIBILITY_TIMEOUT_S": "20",
            # Every call is asked for the engine's guidance: overload shedding (its own tests) would answer a minor
            # call with a template while the burst waits (2 of 500 did in a loaded CI run).
            "TRIAGE_SHEDDING_ENABLED": "false",
        },
    )
    try:
        yield deployment
    finally:
        deployment.stop_all()


async def post_all(
    port: int, batch: str, during: Callable[[int], None] | None = None, count: int = MESSAGES
) -> list[str]:
    """Post `count` signed messages, 50 at a time; `during(n)` is called as the count of answers grows."""
    ids = await post_signed_calls(port, SECRET, batch, count, during)
    assert len(ids) == count
    return ids


def assert_complete(stack: Stack, incident_ids: list[str], batch: str, count: int = MESSAGES) -> None:
    # Up to 8 tokens each: vLLM (the default engine) stops a random model's answer at its end-of-text token.
    assert len(incident_ids) == count
    assert_all_served(stack.database_url, incident_ids, batch, max_tokens=8)


def test_concurrent_messages_all_end_with_guidance_and_outcomes(stack: Stack) -> None:
    ids = asyncio.run(post_all(stack.web_port, "plain"))
    wait_until(all_done(stack.database_url, ids), 300, f"{MESSAGES} incidents with guidance", stack)
    assert_complete(stack, ids, "plain")
    metrics = httpx.get(f"http://127.0.0.1:{stack.web_port}/metrics", timeout=10).text
    assert f'triage_intake_accepted_total{{source="cad"}} {MESSAGES}.0' in metrics
    assert f"triage_engine_finished_total {MESSAGES}.0" in metrics
    assert 'triage_queue_depth{esi="1"} 0.0' in metrics


def test_nothing_is_lost_when_redis_restarts_empty_mid_run(stack: Stack) -> None:
    restarted = False

    def restart_midway(answered: int) -> None:
        nonlocal restarted
        if answered >= CRASH_MESSAGES // 2 and not restarted:
            restarted = True
            stack.stop_redis()  # everything it held (queued tasks, the heap, leases) is gone
            stack.start_redis()
            wait_for_redis(stack.env["TRIAGE_REDIS_URL"])

    ids = asyncio.run(post_all(stack.web_port, "redis-restarted", restart_midway, CRASH_MESSAGES))
    assert restarted
    wait_until(all_done(stack.database_url, ids), 300, "300 incidents with guidance after a Redis restart", stack)
    assert_complete(stack, ids, "redis-restarted", CRASH_MESSAGES)
