"""Closed calls leave: a call closed while the engine is down is never served once it is up; a call closed while the
engine generates for it is aborted there; neither gets an outcome with tokens, and its guidance state is cancelled."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from app.auth.accounts import Principal
from app.db.models import Guidance, Incident, Outcome, Role
from app.db.session import session_scope
from app.engine_worker.loop import EngineWorker
from app.incidents import actions as actions
from app.incidents.overrides import propagate_close
from app.incidents.pipeline import drop_closed
from app.settings import Settings
from scheduler.engines.hf import HFEngine, HFEngineConfig
from scheduler.engines.tiny_models import build_tiny_llama
from scheduler.redis_heap import RedisSemanticHeap
from tests.app.engine_worker.one_call import one_queued_call

DISPATCHER = Principal("dana", Role.DISPATCHER)
WAIT_S = 60.0


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_llama(tmp_path_factory.mktemp("closed-calls-model"))


def close(settings: Settings, disposition: str) -> None:
    """Close `call-1` as the API does: the action, the commit, then `propagate_close`."""
    with session_scope(settings.database_url) as session:
        actions.close(session, "call-1", DISPATCHER, disposition, no_unit_reason="closed before any unit was sent")
    propagate_close(settings, "call-1")


def the_call(settings: Settings) -> tuple[str, Any, Any]:
    """`call-1`'s guidance state, its outcome row and its guidance row."""
    with session_scope(settings.database_url) as session:
        incident = session.get(Incident, "call-1")
        assert incident is not None
        outcome, guidance = session.get(Outcome, "call-1"), session.get(Guidance, "call-1")
        return incident.guidance_state, outcome, guidance


async def until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {WAIT_S} s for {what}")
        await asyncio.sleep(0.02)


def worker_on(settings: Settings, model: Path, **config: Any) -> tuple[EngineWorker, HFEngine]:
    from transformers import AutoTokenizer

    engine = HFEngine(HFEngineConfig(model_path=str(model), num_blocks=64, **config))
    return EngineWorker(settings, engine, AutoTokenizer.from_pretrained(model), "tiny-llama"), engine


def test_a_call_closed_while_the_engine_is_down_is_never_served_once_it_is_up(
    tmp_path: Path, redis_url: str, model: Path
) -> None:
    settings, heap = one_queued_call(tmp_path, redis_url, "closed-down")
    close(settings, "duplicate call")
    assert "call-1" not in heap  # out of the heap at once
    worker, engine = worker_on(settings, model)

    async def engine_comes_up() -> None:
        await engine.start()
        running = asyncio.create_task(worker.run())
        try:
            await asyncio.sleep(1.5)  # a few passes of the loop with an empty heap
        finally:
            worker.stop()
            await running
            await engine.stop()

    asyncio.run(engine_comes_up())
    assert engine.timings == {}  # the engine never saw it
    assert the_call(settings) == ("cancelled", None, None)


def test_the_reconciler_takes_out_a_call_closed_where_nothing_propagated_it(tmp_path: Path, redis_url: str) -> None:
    settings, heap = one_queued_call(tmp_path, redis_url, "closed-console")
    with session_scope(settings.database_url) as session:  # the console's close: the action and the commit only
        actions.close(session, "call-1", DISPATCHER, "transported", no_unit_reason="no unit was sent")
    assert "call-1" in heap
    assert drop_closed(settings, heap) == ["call-1"]
    assert "call-1" not in heap and drop_closed(settings, heap) == []


def test_a_call_closed_while_the_engine_generates_is_aborted_within_a_step(
    tmp_path: Path, redis_url: str, model: Path
) -> None:
    settings, heap = one_queued_call(tmp_path, redis_url, "closed-up")
    settings = settings.model_copy(update={"max_new_tokens": 400})
    worker, engine = worker_on(settings, model)
    steps_after_abort: list[int] = []
    steps_at_abort: list[int] = []
    abort = engine.abort

    def counted_abort(request_id: str) -> None:
        steps_at_abort.append(engine.decisions.decisions)
        abort(request_id)

    engine.abort = counted_abort  # type: ignore[method-assign]

    async def close_mid_answer(heap: RedisSemanticHeap) -> None:
        await engine.start()
        running = asyncio.create_task(worker.run())
        try:
            await until(lambda: the_call(settings)[0] == "generating", "the first token")
            await asyncio.to_thread(close, settings, "treated on scene")
            scheduler = engine._manager.batch_processor.scheduler
            await until(lambda: "call-1" not in scheduler.active_requests, "the request to leave the engine")
            steps_after_abort.append(engine.decisions.decisions - steps_at_abort[0])
            await until(lambda: not worker.serving, "the worker to let the call go")
        finally:
            worker.stop()
            await running
            await engine.stop()

    asyncio.run(close_mid_answer(heap))
    assert len(steps_at_abort) == 1 and steps_after_abort[0] <= 1  # gone by the engine's next step
    state, outcome, guidance = the_call(settings)
    assert (state, outcome) == ("cancelled", None)
    assert guidance is None or guidance.tokens < 400  # what streamed before the close, never the whole answer
    assert "call-1" not in heap and engine.book.get("call-1") is None
