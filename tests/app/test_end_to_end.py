"""The whole pipeline with real processes: redis-server, the web app (uvicorn), a Celery worker and the engine
worker (the default vllm engine, tiny local Llama). 1000 signed messages posted concurrently must end as 1000
incidents with guidance and outcomes, none duplicated: as is, with the Celery worker killed mid-run, and with Redis
restarted (losing everything it held) mid-run."""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, func, select, text
from standardwebhooks.webhooks import Webhook

from app.db.models import Classification, Guidance, Incident, Outbox, Outcome
from app.local_redis import wait_for_redis
from tests.app.stack import Stack, start_product, wait_until
from triage_models.generator import generate

SECRET = "whsec_" + base64.b64encode(b"end-to-end-secret-32-random-byte").decode()
MESSAGES = 1000


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
        },
    )
    try:
        yield deployment
    finally:
        deployment.stop_all()


async def post_all(port: int, batch: str, during: Callable[[int], None] | None = None) -> list[str]:
    """Post MESSAGES signed messages, 50 at a time; `during(n)` is called as the count of answers grows."""
    texts = [message.text for message in generate(MESSAGES, seed=len(batch))]
    signer = Webhook(SECRET)
    answered = 0
    limit = asyncio.Semaphore(50)

    async def post(client: httpx.AsyncClient, index: int) -> str:
        nonlocal answered
        body = json.dumps({"text": texts[index], "call_id": f"{batch}-{index}"})
        msg_id = f"{batch}-{index}"
        now = dt.datetime.now(dt.UTC)
        headers = {
            "webhook-id": msg_id,
            "webhook-timestamp": str(int(now.timestamp())),
            "webhook-signature": signer.sign(msg_id, now, body),
            "content-type": "application/json",
        }
        async with limit:
            response = await client.post(f"http://127.0.0.1:{port}/v1/intake/cad", content=body, headers=headers)
        assert response.status_code == 202, response.text
        answered += 1
        if during is not None:
            during(answered)
        return str(response.json()["incident_id"])

    async with httpx.AsyncClient(timeout=60) as client:
        return await asyncio.gather(*(post(client, index) for index in range(MESSAGES)))


def finished(stack: Stack, incident_ids: list[str]) -> Callable[[], bool]:
    engine = create_engine(stack.database_url)

    def check() -> bool:
        with engine.connect() as connection:
            done = connection.scalar(
                select(func.count())
                .select_from(Incident)
                .where(Incident.id.in_(incident_ids), Incident.guidance_state == "done")
            )
        return done == len(incident_ids)

    return check


def assert_complete(stack: Stack, incident_ids: list[str], batch: str) -> None:
    engine = create_engine(stack.database_url)
    assert len(set(incident_ids)) == MESSAGES
    with engine.connect() as connection:

        def count(model: type, *where: object) -> int:
            key = model.incident_id if model is not Incident else model.id  # type: ignore[attr-defined]
            return int(
                connection.scalar(select(func.count()).select_from(model).where(key.in_(incident_ids), *where)) or 0
            )

        assert count(Incident) == MESSAGES
        assert (
            connection.scalar(select(func.count()).select_from(Incident).where(Incident.call_id.like(f"{batch}-%")))
            == MESSAGES
        )
        assert count(Classification) == MESSAGES  # one per incident and model version: none duplicated
        assert count(Outcome) == MESSAGES
        # Up to 8 tokens each: vLLM (the default engine) stops a random model's answer at its end-of-text token.
        assert count(Guidance, Guidance.tokens >= 1, Guidance.tokens <= 8) == MESSAGES
        mismatched = connection.scalar(
            select(func.count())
            .select_from(Guidance)
            .join(Outcome, Outcome.incident_id == Guidance.incident_id)
            .where(Guidance.incident_id.in_(incident_ids), Outcome.tokens != Guidance.tokens)
        )
        assert mismatched == 0
        assert count(Outbox, Outbox.done_at.is_not(None)) == MESSAGES
        assert count(Outcome, Outcome.error.is_(None), Outcome.ttft_s.is_not(None)) == MESSAGES
        duplicates = connection.execute(
            text("SELECT webhook_id FROM incidents GROUP BY source, webhook_id HAVING COUNT(*) > 1")
        ).all()
        assert duplicates == []


def test_a_thousand_concurrent_messages_all_end_with_guidance_and_outcomes(stack: Stack) -> None:
    ids = asyncio.run(post_all(stack.web_port, "plain"))
    wait_until(finished(stack, ids), 300, "1000 incidents with guidance", stack)
    assert_complete(stack, ids, "plain")
    metrics = httpx.get(f"http://127.0.0.1:{stack.web_port}/metrics", timeout=10).text
    assert 'triage_intake_accepted_total{source="cad"} 1000.0' in metrics
    assert "triage_engine_finished_total 1000.0" in metrics
    assert 'triage_queue_depth{esi="1"} 0.0' in metrics


def test_nothing_is_lost_when_the_celery_worker_is_killed_mid_run(stack: Stack) -> None:
    killed = False

    def kill_midway(answered: int) -> None:
        nonlocal killed
        if answered >= MESSAGES // 3 and not killed:
            killed = True
            stack.kill("worker")
            stack.start_worker()

    ids = asyncio.run(post_all(stack.web_port, "worker-killed", kill_midway))
    assert killed
    wait_until(finished(stack, ids), 300, "1000 incidents with guidance after a worker kill", stack)
    assert_complete(stack, ids, "worker-killed")


def test_nothing_is_lost_when_redis_restarts_empty_mid_run(stack: Stack) -> None:
    restarted = False

    def restart_midway(answered: int) -> None:
        nonlocal restarted
        if answered >= MESSAGES // 2 and not restarted:
            restarted = True
            stack.stop_redis()  # everything it held (queued tasks, the heap, leases) is gone
            stack.start_redis()
            wait_for_redis(stack.env["TRIAGE_REDIS_URL"])

    ids = asyncio.run(post_all(stack.web_port, "redis-restarted", restart_midway))
    assert restarted
    wait_until(finished(stack, ids), 300, "1000 incidents with guidance after a Redis restart", stack)
    assert_complete(stack, ids, "redis-restarted")
