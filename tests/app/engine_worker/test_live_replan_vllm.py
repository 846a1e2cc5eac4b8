"""A live call whose level rises while the real vLLM engine (on this CPU, tiny random Llama) writes its guidance: the
request is aborted as the notice arrives (nothing more of it is written), submitted again with the new transcript at
the new level as soon as that is read, and the guidance finishes from that submission. How many engine steps pass
between the abort and the new submission depends on how busy the CPU is (vLLM's engine core runs in its own process
and steps the old request until the abort reaches it): it is printed, not asserted."""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("vllm", reason="the vllm extra is installed by `make test`")

from app.db.migrate import upgrade
from app.db.models import CallSegment, Guidance, Incident, LiveCall, Outcome, utcnow
from app.db.session import session_scope
from app.engine_worker.loop import EngineWorker
from app.live.handover import run_retriage
from app.redis.queueing import settings_heap
from app.settings import Settings
from scheduler.engines.base import EngineRequest, TokenChunk
from scheduler.engines.tiny_models import build_tiny_llama
from scheduler.engines.vllm_engine import VLLMEngine
from tests.scheduler.engines.test_vllm_engine import config_for

WAIT_S = 180.0
CALL = "live-1"


def live_call(tmp_path: Path, redis_url: str, model_dir: Path) -> Settings:
    """A live call classified ESI 3 from its first words, its guidance queued in the heap."""
    url = f"sqlite:///{tmp_path / 'replan.db'}"
    upgrade(url)
    settings = Settings(
        database_url=url, redis_url=redis_url, queue_prefix="replan", model_dir=model_dir, max_new_tokens=160
    )
    answered = utcnow() - dt.timedelta(seconds=30)
    with session_scope(url) as session:
        text = "C: my father fell in the kitchen and hurt his wrist"
        session.add(
            Incident(id=CALL, source="cad", webhook_id="call:c1", call_id="c1", text=text, accepted_at=answered,
                     esi_level=3, model_level=3, classified_at=utcnow(), guidance_state="queued")
        )  # fmt: skip
        session.flush()
        session.add(LiveCall(incident_id=CALL, source="cad", call_id="c1", vendor="segments", answered_at=answered,
                             last_event_at=utcnow(), finals=1, triaged_finals=1))  # fmt: skip
        session.add(CallSegment(incident_id=CALL, sequence=1, track="caller", spoken_at=answered,
                                text="my father fell in the kitchen and hurt his wrist"))  # fmt: skip
    settings_heap(settings).push(CALL, 3, 20.0, 1, "cad")
    return settings


def new_words(settings: Settings) -> None:
    """The caller's decisive words arrive; the call is read again (as the re-triage task does)."""
    with session_scope(settings.database_url) as session:
        call = session.get(LiveCall, CALL)
        assert call is not None
        session.add(CallSegment(incident_id=CALL, sequence=2, track="caller", spoken_at=utcnow(),
                                text="wait, he's not breathing, he's not breathing"))  # fmt: skip
        call.finals += 1
    run_retriage(settings, settings_heap(settings), CALL)


def state(settings: Settings) -> tuple[str, Any, Any]:
    with session_scope(settings.database_url) as session:
        incident = session.get(Incident, CALL)
        assert incident is not None
        return incident.guidance_state, session.get(Outcome, CALL), session.get(Guidance, CALL)


async def until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {WAIT_S} s for {what}")
        await asyncio.sleep(0.02)


def test_a_raised_level_aborts_the_guidance_and_resubmits_it_with_the_new_words(
    tmp_path: Path, redis_url: str, small_model_dir: Path
) -> None:
    from transformers import AutoTokenizer

    model = build_tiny_llama(tmp_path / "model")
    settings = live_call(tmp_path, redis_url, small_model_dir)
    engine = VLLMEngine(config_for(model))
    tokenizer = AutoTokenizer.from_pretrained(model)
    worker = EngineWorker(settings, engine, tokenizer, "tiny-llama", max_positions=512)
    submitted: list[tuple[int, str, int]] = []
    aborted_at_step: list[int] = []
    events: list[str] = []
    submit, abort, write = engine.submit, engine.abort, worker._write_guidance

    def recorded_submit(request: EngineRequest) -> Any:
        prompt = tokenizer.decode(list(request.prompt_token_ids))
        submitted.append((request.esi_level, prompt, engine.counters.steps))
        events.append(f"submit ESI {request.esi_level}")
        return submit(request)

    def recorded_abort(request_id: str) -> None:
        aborted_at_step.append(engine.counters.steps)
        events.append("abort")
        abort(request_id)

    def recorded_write(incident_id: str, tokens: list[int], prompt_version: str) -> bool:
        events.append("write")
        return write(incident_id, tokens, prompt_version)

    engine.submit = recorded_submit  # type: ignore[method-assign]
    engine.abort = recorded_abort  # type: ignore[method-assign]
    worker._write_guidance = recorded_write  # type: ignore[method-assign]

    async def scenario() -> None:
        await engine.start()
        running = asyncio.create_task(worker.run())
        try:
            await until(lambda: state(settings)[0] == "generating", "the first guidance token at ESI 3")
            await asyncio.sleep(0.3)
            await asyncio.to_thread(new_words, settings)
            await until(lambda: len(submitted) == 2, "the guidance submitted again")
            await until(lambda: state(settings)[0] == "done", "the guidance written from the new submission")
        finally:
            worker.stop()
            await running
            await engine.stop()

    asyncio.run(asyncio.wait_for(scenario(), WAIT_S * 2))
    assert [level for level, _, _ in submitted] == [3, 1]
    assert "not breathing" not in submitted[0][1] and "not breathing" in submitted[1][1]
    assert len(aborted_at_step) == 1
    # The abort comes after the first submission's guidance began to be written, and nothing of that submission is
    # written after it: the next thing the worker does for the call is the new submission.
    first, after_abort = events[: events.index("abort")], events[events.index("abort") + 1 :]
    assert first[0] == "submit ESI 3" and set(first[1:]) == {"write"}, events
    assert after_abort[0] == "submit ESI 1" and set(after_abort[1:]) == {"write"}, events
    print(f"engine steps from the abort to the new submission: {submitted[1][2] - aborted_at_step[0]}")
    guidance_state, outcome, guidance = state(settings)
    assert guidance_state == "done" and outcome is not None and guidance is not None
    assert (outcome.esi_level, outcome.error, outcome.tokens == guidance.tokens) == (1, None, True)
    assert outcome.evictions >= 1  # the aborted submission counts as a lost cache
    with session_scope(settings.database_url) as session:
        incident = session.get(Incident, CALL)
        assert incident is not None and (incident.esi_level, incident.card_id) == (1, "cpr-adult")
    assert TokenChunk  # the stream type the worker reads
