"""Faults survived, measured. The product on real processes (PostgreSQL, redis-server with its append-only file, the web
app under uvicorn, two Celery workers, two engine workers serving a tiny Llama) takes CALLS signed calls, 50 at a
time, while one part of it is killed mid-run and started again at once, as a supervisor would; a first run without a
fault is the reference (with TRIAGE_FAULT_REFERENCE=1). The sender retries a connection error, a timeout or a 5xx
with the same webhook-id and body (signed anew) until it gets a 2xx, as Standard Webhooks senders do. Every call it
saw accepted must end as exactly one incident with one classification, one finished guidance and one outcome. Each
run's counts and recovery times are printed and written to `faults.json` in the module's temporary directory
(docs/reliability.md has them).

The engine is `hf` unless TRIAGE_ENGINE says otherwise (`vllm`: the same runs, slower to start and to restart on 2
cores; docs/reliability.md has both)."""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
import redis
from sqlalchemy import Engine, create_engine, func, select

from app.db.models import Classification, Guidance, GuidanceState, Incident, Outbox, Outcome
from app.redis.local import free_port
from scheduler.redis_heap import HeapItem, RedisSemanticHeap
from tests.app.stack import LOAD_TEST_INTAKE_LIMIT, Stack, ready, signed_headers, wait_until
from tests.app.triage_stub import fresh_database
from tests.postgres_server import PostgresServer
from triage_models.generator import generate

SECRET = "whsec_" + base64.b64encode(b"fault-injection-secret-32-random").decode()
CALLS = int(os.environ.get("TRIAGE_FAULT_CALLS", "180"))
"""180 in CI (the kill after 60, with 120 still to send); docs/reliability.md's table is of runs with
TRIAGE_FAULT_CALLS=1000."""
CONCURRENCY = 50
MAX_NEW_TOKENS = 4
KILL_AFTER = CALLS // 3
"""The fault is injected once this many calls have been accepted: mid-run, with the rest still to send."""
WORKERS = ("worker-1", "worker-2")
ENGINES = ("engine-1", "engine-2")
SETTINGS = {
    "TRIAGE_ENGINE": os.environ.get("TRIAGE_ENGINE", "hf"),
    "TRIAGE_MAX_NEW_TOKENS": str(MAX_NEW_TOKENS),
    "TRIAGE_VLLM_KV_CACHE_GIB": "0.25",
    # Shorter than the defaults (30 s, 30 s, 2 s, 300 s), so that the suite fits CI: recovery times scale with them.
    "TRIAGE_ENGINE_LEASE_S": "6",
    "TRIAGE_OUTBOX_REDELIVER_S": "4",
    "TRIAGE_RECONCILE_INTERVAL_S": "0.5",
    "TRIAGE_CELERY_VISIBILITY_TIMEOUT_S": "20",
    # Every call is to get the engine's guidance: a backlog made longer by a fault must not turn into templates.
    "TRIAGE_SHEDDING_ENABLED": "false",
}
GIVE_UP_S = 240.0
"""The sender stops retrying a call this long after the run began (the run then fails: a call never accepted)."""
DRAIN_S = 300.0
"""How long every accepted call may take to finish once the last was accepted."""
IN_ENGINE = (GuidanceState.PREFILLING.value, GuidanceState.GENERATING.value)


# ----- the deployment -------------------------------------------------------------------------------------------


@dataclass
class Deployment:
    stack: Stack
    postgres: PostgresServer
    database: Engine
    report: Path
    runs: dict[str, dict[str, object]] = field(default_factory=dict)


def all_ready(stack: Stack) -> bool:
    return (
        ready(stack.web_port)
        and all(stack.worker_ready(name) for name in WORKERS)
        and all(stack.engine_ready(name) for name in ENGINES)
    )


@pytest.fixture(scope="module")
def deployment(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    postgres_server: PostgresServer,
    small_model_dir: Path,
) -> Iterator[Deployment]:
    from scheduler.engines.tiny_models import build_tiny_llama

    workdir = tmp_path_factory.mktemp("faults")
    database_url = fresh_database(request, workdir, "postgres")
    redis_port, web_port = free_port(), free_port()
    env = {
        **os.environ,
        "TRIAGE_DATABASE_URL": database_url,
        "TRIAGE_REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
        "TRIAGE_WEBHOOK_SECRETS": json.dumps({"cad": [SECRET]}),
        "TRIAGE_INTAKE_LIMIT": LOAD_TEST_INTAKE_LIMIT,
        "TRIAGE_MODEL": str(build_tiny_llama(workdir / "model")),
        "TRIAGE_MODEL_DIR": str(small_model_dir),
        "PYTHONUNBUFFERED": "1",
        **SETTINGS,
    }
    stack = Stack(workdir, env, workdir / "redis", redis_port, web_port, redis_appendonly=True)
    stack.start_redis()
    database = create_engine(database_url, pool_pre_ping=True)
    try:
        stack.start_web()
        for name in WORKERS:
            stack.start_worker(name)
        for name in ENGINES:
            stack.start_engine(name)
        wait_until(lambda: all_ready(stack), 300, "two Celery workers, two engine workers and the web app", stack)
        yield Deployment(stack, postgres_server, database, workdir / "faults.json")
    finally:
        stack.stop_all()
        database.dispose()
        if not postgres_server.running():  # a run that failed mid-fault must not leave the session's server down
            postgres_server.start()


# ----- the sender -----------------------------------------------------------------------------------------------


@dataclass
class Attempt:
    started: float
    """Wall clock (time.time()), like the database's timestamps."""
    ended: float
    status: int | None
    """None: no answer (a connection error or a timeout)."""


@dataclass
class Call:
    webhook_id: str
    body: str
    attempts: list[Attempt] = field(default_factory=list)
    incident_id: str | None = None
    duplicate: bool = False
    """The 2xx said the webhook-id was seen before (an earlier attempt was stored but its answer was lost)."""

    @property
    def accepted_at(self) -> float | None:
        return self.attempts[-1].ended if self.incident_id is not None else None


class Sender:
    """Posts CALLS signed calls, CONCURRENCY at a time, each retried until a 2xx; `reached` is set once KILL_AFTER
    have been accepted."""

    def __init__(self, port: int, batch: str) -> None:
        self.url = f"http://127.0.0.1:{port}/v1/intake/cad"
        texts = [message.text for message in generate(CALLS, seed=7)]
        self.calls = [
            Call(f"{batch}-{index}", json.dumps({"text": text, "call_id": f"{batch}-{index}"}))
            for index, text in enumerate(texts)
        ]
        self.accepted = 0
        self.reached = asyncio.Event()

    async def run(self) -> None:
        limit = asyncio.Semaphore(CONCURRENCY)
        give_up = time.monotonic() + GIVE_UP_S
        async with httpx.AsyncClient(timeout=30) as client:

            async def send(call: Call) -> None:
                async with limit:
                    await self._until_accepted(client, call, give_up)

            await asyncio.gather(*(send(call) for call in self.calls))

    async def _until_accepted(self, client: httpx.AsyncClient, call: Call, give_up: float) -> None:
        backoff = 0.1
        while time.monotonic() < give_up:
            started = time.time()
            try:
                headers = signed_headers(SECRET, call.webhook_id, call.body)
                response = await client.post(self.url, content=call.body, headers=headers)
            except httpx.TransportError:
                call.attempts.append(Attempt(started, time.time(), None))
            else:
                call.attempts.append(Attempt(started, time.time(), response.status_code))
                if response.is_success:
                    answer = response.json()
                    call.incident_id, call.duplicate = str(answer["incident_id"]), bool(answer.get("duplicate"))
                    self.accepted += 1
                    if self.accepted >= KILL_AFTER:
                        self.reached.set()
                    return
                # A 4xx would be refused again: only the server's own trouble is retried.
                assert response.status_code >= 500, f"{call.webhook_id}: {response.status_code} {response.text}"
            await asyncio.sleep(backoff)
            backoff = min(1.0, backoff * 2)


# ----- the faults: each kills one part, starts it again, and returns when it killed (and what it interrupted) -----


@dataclass
class Injected:
    killed_at: float
    """Wall clock; for the run without a fault, when the fault would have come."""
    back_at: float
    """When the part killed was ready again (a process: its readiness; a server: it answers)."""
    interrupted: list[str] = field(default_factory=list)
    """Engine fault: the incidents the killed worker held in prefill or generation when it died."""


def no_fault(deployment: Deployment) -> tuple[float, list[str]]:
    """The reference: the same calls, nothing killed."""
    return time.time(), []


def _answers(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def kill_web(deployment: Deployment) -> tuple[float, list[str]]:
    """SIGKILL uvicorn (in-flight requests lose their connection) and start it again on the same port."""
    stack = deployment.stack
    stack.kill_tree("web")
    killed_at = time.time()
    stack.start_web()
    wait_until(lambda: _answers(stack.web_port), 120, "the web app to answer again", stack)
    return killed_at, []


def kill_celery_worker(deployment: Deployment) -> tuple[float, list[str]]:
    """SIGKILL a Celery worker and its pool process (the task it runs is lost with them) and start it again."""
    stack = deployment.stack
    stack.kill_tree("worker-1")
    killed_at = time.time()
    stack.start_worker("worker-1")
    wait_until(lambda: stack.worker_ready("worker-1"), 120, "the Celery worker to be ready again", stack)
    return killed_at, []


def kill_engine_worker(deployment: Deployment) -> tuple[float, list[str]]:
    """SIGKILL an engine worker (with vLLM's engine core processes, if any) while it holds an incident in prefill or
    generation, and start it again. The worker is frozen (SIGSTOP) while its leases and the incidents' states are
    read, so what it holds cannot finish between the look and the kill."""
    stack = deployment.stack
    consumer = stack.engine_consumer("engine-1")
    client = redis.Redis.from_url(stack.redis_url)
    items_key = RedisSemanticHeap(client, stack.env.get("TRIAGE_QUEUE_PREFIX", "triage")).keys[2]

    def in_engine() -> list[str]:
        held = [
            item.incident_id for item in map(HeapItem.from_json, client.hvals(items_key)) if item.consumer == consumer
        ]
        with deployment.database.connect() as connection:
            query = select(Incident.id).where(Incident.id.in_(held), Incident.guidance_state.in_(IN_ENGINE))
            return list(connection.scalars(query))

    deadline = time.monotonic() + 60
    while True:
        stack.freeze("engine-1")
        interrupted = in_engine()
        if interrupted:
            break
        stack.thaw("engine-1")
        assert time.monotonic() < deadline, "engine-1 held nothing in prefill or generation for 60 s"
        time.sleep(0.02)
    stack.kill_tree("engine-1")
    killed_at = time.time()
    stack.start_engine("engine-1")
    wait_until(lambda: stack.engine_ready("engine-1"), 180, "the engine worker to be ready again", stack)
    return killed_at, interrupted


def kill_redis(deployment: Deployment) -> tuple[float, list[str]]:
    """SIGKILL redis-server and start it again on its append-only file (as `serve` and the pilot run it)."""
    stack = deployment.stack
    assert stack.redis is not None
    stack.redis.kill()
    killed_at = time.time()
    stack.redis.wait(timeout=10)
    stack.start_redis()
    return killed_at, []


def kill_postgres(deployment: Deployment) -> tuple[float, list[str]]:
    """Stop PostgreSQL hard (`pg_ctl stop -m immediate`: every backend ends at once, no checkpoint) and start it
    again (crash recovery)."""
    deployment.postgres.crash()
    killed_at = time.time()
    deployment.postgres.start()
    return killed_at, []


FAULTS: dict[str, Callable[[Deployment], tuple[float, list[str]]]] = {
    "none": no_fault,
    "web": kill_web,
    "celery-worker": kill_celery_worker,
    "engine-worker": kill_engine_worker,
    "redis": kill_redis,
    "postgres": kill_postgres,
}


def inject(fault: str, deployment: Deployment) -> Injected:
    killed_at, interrupted = FAULTS[fault](deployment)
    return Injected(killed_at, time.time(), interrupted)


# ----- what the database holds ----------------------------------------------------------------------------------


@dataclass
class Row:
    incident_id: str
    webhook_id: str
    call_id: str | None
    accepted_at: float
    state: str
    classified_at: float | None = None
    classifications: int = 0
    guidance_tokens: int | None = None
    outcome_tokens: int | None = None
    outcome_error: str | None = None
    deliveries: int = 0
    finished_at: float | None = None
    resent: int = 0
    """Classify tasks the reconciler sent again (the outbox entry's attempts)."""

    @property
    def finished(self) -> bool:
        """Done, with guidance of 1..MAX_NEW_TOKENS tokens and an error-free outcome that agrees with it."""
        return (
            self.state == GuidanceState.DONE.value
            and self.guidance_tokens is not None
            and 1 <= self.guidance_tokens <= MAX_NEW_TOKENS
            and self.outcome_error is None
            and self.outcome_tokens == self.guidance_tokens
        )

    def why_not_finished(self) -> str:
        return f"{self.webhook_id}: {self.state}, {self.guidance_tokens} tokens, error {self.outcome_error!r:.120}"


def _stamp(at: dt.datetime | None) -> float | None:
    return None if at is None else at.timestamp()


def stored(database: Engine, batch: str) -> list[Row]:
    """Every incident of the batch's webhook-ids, with what was recorded about it."""
    with database.connect() as connection:
        columns = (Incident.id, Incident.webhook_id, Incident.call_id, Incident.accepted_at, Incident.guidance_state)
        rows = {
            incident_id: Row(incident_id, webhook_id, call_id, accepted_at.timestamp(), state, _stamp(classified_at))
            for incident_id, webhook_id, call_id, accepted_at, state, classified_at in connection.execute(
                select(*columns, Incident.classified_at).where(
                    Incident.source == "cad", Incident.webhook_id.like(f"{batch}-%")
                )
            )
        }
        ids = list(rows)
        for incident_id, count in connection.execute(
            select(Classification.incident_id, func.count())
            .where(Classification.incident_id.in_(ids))
            .group_by(Classification.incident_id)
        ):
            rows[incident_id].classifications = count
        for incident_id, tokens in connection.execute(
            select(Guidance.incident_id, Guidance.tokens).where(Guidance.incident_id.in_(ids))
        ):
            rows[incident_id].guidance_tokens = tokens
        for incident_id, tokens, error, deliveries, finished_at in connection.execute(
            select(Outcome.incident_id, Outcome.tokens, Outcome.error, Outcome.deliveries, Outcome.finished_at).where(
                Outcome.incident_id.in_(ids)
            )
        ):
            row = rows[incident_id]
            row.outcome_tokens, row.outcome_error, row.deliveries = tokens, error, deliveries
            row.finished_at = finished_at.timestamp()
        for incident_id, attempts in connection.execute(
            select(Outbox.incident_id, Outbox.attempts).where(Outbox.incident_id.in_(ids))
        ):
            rows[incident_id].resent = attempts
    return list(rows.values())


def settled(deployment: Deployment, calls: list[Call]) -> Callable[[], bool]:
    """Every accepted call's incident stored, and done or failed."""
    ids = [call.incident_id for call in calls if call.incident_id is not None]
    finished = (GuidanceState.DONE.value, GuidanceState.FAILED.value)

    def check() -> bool:
        with deployment.database.connect() as connection:
            open_ = connection.scalar(
                select(func.count())
                .select_from(Incident)
                .where(Incident.id.in_(ids), Incident.guidance_state.not_in(finished))
            )
            there = connection.scalar(select(func.count()).select_from(Incident).where(Incident.id.in_(ids)))
        return open_ == 0 and there == len(ids)

    return check


# ----- the measures ---------------------------------------------------------------------------------------------


def measure(fault: str, sender: Sender, injected: Injected, rows: list[Row], drained: bool) -> dict[str, object]:
    """The counts, and the recovery times in seconds from the kill."""
    killed = injected.killed_at
    accepted = [call for call in sender.calls if call.incident_id is not None]
    by_id = {row.incident_id: row for row in rows}
    per_call: dict[str | None, int] = {}
    for row in rows:
        per_call[row.call_id] = per_call.get(row.call_id, 0) + 1
    lost = [
        by_id[call.incident_id].why_not_finished() if call.incident_id in by_id else f"{call.webhook_id}: not stored"
        for call in accepted
        if call.incident_id not in by_id or not by_id[call.incident_id].finished
    ]
    wrong_ids = [
        call.webhook_id
        for call in accepted
        if call.incident_id in by_id and by_id[call.incident_id].webhook_id != call.webhook_id
    ]
    attempts = [attempt for call in sender.calls for attempt in call.attempts]
    began = min(attempt.started for attempt in attempts)
    finishes = sorted(row.finished_at for row in rows if row.finished_at is not None)
    after_kill = [at for at in finishes if at >= killed]
    # The longest time from the kill on with no guidance finished (the kill itself opens the first gap).
    gaps = [later - earlier for earlier, later in zip([killed, *after_kill], after_kill, strict=False)]
    answered_again = [
        attempt.ended
        for attempt in attempts
        if attempt.started >= killed and attempt.status is not None and 200 <= attempt.status < 300
    ]
    new_finished = [row.finished_at for row in rows if row.accepted_at > killed and row.finished_at is not None]
    interrupted = [by_id[incident_id] for incident_id in injected.interrupted if incident_id in by_id]

    def since_kill(at: float | None) -> float | None:
        return None if at is None else round(at - killed, 2)

    return {
        "fault": fault,
        "sent": len(sender.calls),
        "accepted": len(accepted),
        "accepted_before_kill": sum(call.accepted_at is not None and call.accepted_at < killed for call in accepted),
        "finished_before_kill": len(finishes) - len(after_kill),
        "answered_duplicate": sum(call.duplicate for call in accepted),
        "retried_calls": sum(len(call.attempts) > 1 for call in sender.calls),
        "connection_errors": sum(attempt.status is None for attempt in attempts),
        "answers_5xx": sum(attempt.status is not None and attempt.status >= 500 for attempt in attempts),
        "incidents": len(rows),
        "classifications": sum(row.classifications for row in rows),
        "finished_guidances": sum(row.finished for row in rows),
        "outcomes": sum(row.finished_at is not None and row.outcome_error is None for row in rows),
        "failed": sum(row.state == GuidanceState.FAILED.value for row in rows),
        "duplicates": sum(count - 1 for count in per_call.values())
        + sum(max(0, row.classifications - 1) for row in rows),
        "lost": len(lost),
        "lost_examples": lost[:5],
        "wrong_ids": len(wrong_ids),
        "served_twice": sum(row.deliveries > 1 for row in rows),
        "resent": sum(row.resent for row in rows),
        "interrupted": len(interrupted),
        "interrupted_served_again": sum(row.deliveries > 1 for row in interrupted),
        "drained": drained,
        "restarted_s": since_kill(injected.back_at),
        "intake_gap_s": since_kill(min(answered_again, default=None)),
        "finish_gap_s": round(max(gaps, default=0.0), 2),
        "first_new_finished_s": since_kill(min(new_finished, default=None)),
        "interrupted_finished_s": since_kill(max((row.finished_at or killed for row in interrupted), default=None)),
        "drained_s": since_kill(finishes[-1] if finishes else None),
        # Where the run's time went, from its first call: every call accepted, classified, finished.
        "intake_s": round(max(attempt.ended for attempt in attempts if attempt.status == 202) - began, 1),
        "classified_s": round(max(row.classified_at or began for row in rows) - began, 1),
        "run_s": round(finishes[-1] - began, 1) if finishes else None,
    }


def record(deployment: Deployment, measured: dict[str, object], capsys: pytest.CaptureFixture[str]) -> None:
    deployment.runs[str(measured["fault"])] = measured
    deployment.report.write_text(json.dumps(deployment.runs, indent=2) + "\n", encoding="utf-8")
    with capsys.disabled():
        print(f"\nfault {measured['fault']}: {json.dumps(measured)}\n(written to {deployment.report})")


# ----- the test -------------------------------------------------------------------------------------------------


RUNS = [fault for fault in FAULTS if fault != "none" or os.environ.get("TRIAGE_FAULT_REFERENCE") == "1"]
"""The runs: every fault; the reference without one only with TRIAGE_FAULT_REFERENCE=1, as for docs/reliability.md's
table (in CI it would repeat what every fault run asserts, and test_end_to_end.py's run without a fault)."""


@pytest.mark.parametrize("fault", RUNS)
def test_every_accepted_call_is_served_exactly_once_through_a_fault(
    deployment: Deployment, fault: str, capsys: pytest.CaptureFixture[str]
) -> None:
    stack = deployment.stack
    wait_until(lambda: all_ready(stack), 240, "every process ready before the run", stack)
    sender = Sender(stack.web_port, fault)
    injected: Injected | None = None

    async def run() -> None:
        nonlocal injected
        sending = asyncio.create_task(sender.run())
        reached = asyncio.create_task(sender.reached.wait())
        await asyncio.wait({sending, reached}, return_when=asyncio.FIRST_COMPLETED)
        if reached.done():
            injected = await asyncio.to_thread(inject, fault, deployment)
        reached.cancel()
        await sending

    started = time.monotonic()
    asyncio.run(run())
    assert injected is not None, "the sender gave up before the fault"
    try:
        wait_until(settled(deployment, sender.calls), DRAIN_S, "every accepted call to finish", stack)
        drained = True
    except AssertionError:
        drained = False
    rows = stored(deployment.database, fault)
    measured = measure(fault, sender, injected, rows, drained)
    measured["wall_s"] = round(time.monotonic() - started, 1)
    record(deployment, measured, capsys)

    assert drained, f"accepted calls still open {DRAIN_S:.0f} s later: {measured}\n{stack.logs()}"
    # The fault came mid-run: calls still to finish (and, but for the engine worker, to send).
    assert measured["finished_before_kill"] != CALLS
    if fault != "engine-worker":
        assert measured["accepted_before_kill"] != CALLS
    if fault == "web":  # felt by the sender: requests in flight lost their connection
        assert measured["connection_errors"] != 0
    if fault == "engine-worker":  # killed mid-generation; the other worker served what it held
        assert measured["interrupted"] != 0
        assert measured["interrupted_served_again"] != 0, injected.interrupted
    expected = {
        "accepted": CALLS,
        "incidents": CALLS,
        "classifications": CALLS,
        "finished_guidances": CALLS,
        "outcomes": CALLS,
        "failed": 0,
        "duplicates": 0,
        "lost": 0,
        "wrong_ids": 0,
    }
    assert {key: measured[key] for key in expected} == expected, f"{measured}\n{stack.logs()}"
