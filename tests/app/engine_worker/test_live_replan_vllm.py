"""A live call whose level rises while the real vLLM engine (on this CPU, tiny random Llama) writes its guidance: the
request is aborted as the notice arrives (nothing more of it is written), submitted again with the new transcript at
the new level as soon as that is read, and the guidance finishes from that submission. The first submission's stream
is held after its first tokens until the abort (the engine core goes on in its own process): on a busy CPU it could
otherwise finish before the words are read, which is `test_live_replan.py`'s case. How many engine steps pass
between the abort and the new submission depends on how busy the CPU is: it is printed, not asserted."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("vllm", reason="the vllm extra is installed by `make test`")

from app.engine_worker.loop import EngineWorker
from scheduler.engines.base import EngineRequest, TokenChunk
from scheduler.engines.tiny_models import build_tiny_llama
from scheduler.engines.vllm_engine import VLLMEngine
from tests.app.engine_worker.live_call import (
    level_and_card,
    live_call,
    new_words,
    state,
    until,
    while_served,
)
from tests.scheduler.engines.test_vllm_engine import config_for

WAIT_S = 180.0


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
    aborted = asyncio.Event()
    submit, abort, write = engine.submit, engine.abort, worker._write_guidance

    async def held_after_first_chunk(stream: AsyncIterator[TokenChunk]) -> AsyncIterator[TokenChunk]:
        first = True
        async for chunk in stream:
            yield chunk
            if first and chunk.token_ids:
                first = False
                await aborted.wait()

    def recorded_submit(request: EngineRequest) -> Any:
        prompt = tokenizer.decode(list(request.prompt_token_ids))
        submitted.append((request.esi_level, prompt, engine.counters.steps))
        events.append(f"submit ESI {request.esi_level}")
        stream = submit(request)
        return held_after_first_chunk(stream) if len(submitted) == 1 else stream

    def recorded_abort(request_id: str) -> None:
        aborted_at_step.append(engine.counters.steps)
        events.append("abort")
        abort(request_id)
        aborted.set()

    def recorded_write(incident_id: str, tokens: list[int], prompt_version: str) -> bool:
        events.append("write")
        return write(incident_id, tokens, prompt_version)

    engine.submit = recorded_submit  # type: ignore[method-assign]
    engine.abort = recorded_abort  # type: ignore[method-assign]
    worker._write_guidance = recorded_write  # type: ignore[method-assign]

    async def scenario() -> None:
        await until(lambda: state(settings)[0] == "generating", "the first guidance token at ESI 3", WAIT_S)
        await asyncio.to_thread(new_words, settings)
        await until(lambda: len(submitted) == 2, "the guidance submitted again", WAIT_S)
        await until(lambda: state(settings)[0] == "done", "the guidance written from the new submission", WAIT_S)

    asyncio.run(asyncio.wait_for(while_served(engine, worker, scenario), WAIT_S * 2))
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
    assert level_and_card(settings) == (1, "cpr-adult")
