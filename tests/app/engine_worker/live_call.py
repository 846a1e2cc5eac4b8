"""Test helper: a live call classified ESI 3 from its first words, its guidance queued, and the caller's words that
raise it to ESI 1 read as the re-triage task reads them."""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from app.db.migrate import upgrade
from app.db.models import CallSegment, Guidance, Incident, LiveCall, Outcome, utcnow
from app.db.session import session_scope
from app.engine_worker.loop import EngineWorker
from app.live.handover import run_retriage
from app.redis.queueing import settings_heap
from app.settings import Settings
from scheduler.engines.base import Engine

CALL = "live-1"
FIRST_WORDS = "my father fell in the kitchen and hurt his wrist"
RAISING_WORDS = "wait, he's not breathing, he's not breathing"


def live_call(tmp_path: Path, redis_url: str, model_dir: Path, prefix: str = "replan") -> Settings:
    """A live call classified ESI 3 from its first words, its guidance queued in the heap."""
    url = f"sqlite:///{tmp_path / 'replan.db'}"
    upgrade(url)
    settings = Settings(
        database_url=url, redis_url=redis_url, queue_prefix=prefix, model_dir=model_dir, max_new_tokens=160
    )
    answered = utcnow() - dt.timedelta(seconds=30)
    with session_scope(url) as session:
        session.add(
            Incident(id=CALL, source="cad", webhook_id="call:c1", call_id="c1", text=f"C: {FIRST_WORDS}",
                     accepted_at=answered, esi_level=3, model_level=3, classified_at=utcnow(),
                     guidance_state="queued")
        )  # fmt: skip
        session.flush()
        session.add(LiveCall(incident_id=CALL, source="cad", call_id="c1", vendor="segments", answered_at=answered,
                             last_event_at=utcnow(), finals=1, triaged_finals=1))  # fmt: skip
        session.add(CallSegment(incident_id=CALL, sequence=1, track="caller", spoken_at=answered, text=FIRST_WORDS))
    settings_heap(settings).push(CALL, 3, 20.0, 1, "cad")
    return settings


def new_words(settings: Settings, text: str = RAISING_WORDS) -> None:
    """The caller's next words arrive; the call is read again (as the re-triage task does)."""
    with session_scope(settings.database_url) as session:
        call = session.get(LiveCall, CALL)
        assert call is not None
        session.add(CallSegment(incident_id=CALL, sequence=call.finals + 1, track="caller", spoken_at=utcnow(),
                                text=text))  # fmt: skip
        call.finals += 1
    run_retriage(settings, settings_heap(settings), CALL)


def state(settings: Settings) -> tuple[str, Any, Any]:
    """The call's guidance state, its outcome row and its guidance row."""
    with session_scope(settings.database_url) as session:
        incident = session.get(Incident, CALL)
        assert incident is not None
        return incident.guidance_state, session.get(Outcome, CALL), session.get(Guidance, CALL)


def level_and_card(settings: Settings) -> tuple[int | None, str | None]:
    with session_scope(settings.database_url) as session:
        incident = session.get(Incident, CALL)
        assert incident is not None
        return incident.esi_level, incident.card_id


async def until(condition: Any, what: str, wait_s: float) -> None:
    deadline = time.monotonic() + wait_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {wait_s} s for {what}")
        await asyncio.sleep(0.02)


async def while_served(engine: Engine, worker: EngineWorker, body: Callable[[], Awaitable[None]]) -> None:
    """Start the engine and the worker, run `body`, then stop both (whatever `body` raised)."""
    await engine.start()
    running = asyncio.create_task(worker.run())
    try:
        await body()
    finally:
        worker.stop()
        await running
        await engine.stop()
