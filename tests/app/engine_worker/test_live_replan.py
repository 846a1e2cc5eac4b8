"""A live call's guidance that finishes just as words raising its level are read (the replan notice not yet at the
worker): the finish finds the call raised and plans it again on its lease, so the guidance on screen always answers
the words that set the level; words that do not raise it leave the finished guidance standing."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from app.db.models import Incident
from app.engine_worker.loop import EngineWorker
from app.engine_worker.outcomes import RaisedMeanwhile, raised_by_new_words
from app.redis.queueing import settings_heap
from scheduler.engines.base import EngineRequest
from scheduler.engines.hf import HFEngine, HFEngineConfig
from scheduler.engines.tiny_models import build_tiny_llama
from tests.app.engine_worker.live_call import CALL, level_and_card, live_call, new_words, state, until, while_served

WAIT_S = 60.0


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_llama(tmp_path_factory.mktemp("live-replan-model"))


def test_a_finish_is_raised_only_by_new_words_that_raise_the_level() -> None:
    incident = Incident(id=CALL, text="C: he's not breathing", esi_level=1)
    assert raised_by_new_words(incident, 3, "C: he hurt his wrist")
    assert not raised_by_new_words(incident, 3, "C: he's not breathing")  # same words: an override raised it
    assert not raised_by_new_words(incident, 1, "C: he hurt his wrist")  # new words, the level it was served at
    assert not raised_by_new_words(incident, 3, None)  # a call that is not followed as it is spoken
    incident.esi_level = 4
    assert not raised_by_new_words(incident, 3, "C: he hurt his wrist")  # lower: the dispatcher decides


def serve_with_words_read_at_the_finish(
    tmp_path: Path, redis_url: str, small_model_dir: Path, model: Path, words: str
) -> tuple[list[tuple[int, str]], list[Any], Any]:
    """Serve the live call; its first finish reads `words` first (the re-triage task committing just before the
    finish's transaction). The submissions (level, prompt), what each finish returned, and the settings."""
    from transformers import AutoTokenizer

    settings = live_call(tmp_path, redis_url, small_model_dir, prefix=f"replan-hf-{tmp_path.name}")
    engine = HFEngine(HFEngineConfig(model_path=str(model), num_blocks=64))
    tokenizer = AutoTokenizer.from_pretrained(model)
    worker = EngineWorker(settings, engine, tokenizer, "tiny-llama", max_positions=512)
    submitted: list[tuple[int, str]] = []
    finishes: list[Any] = []
    submit, finish = engine.submit, worker._finish

    def recorded_submit(request: EngineRequest) -> Any:
        submitted.append((request.esi_level, tokenizer.decode(list(request.prompt_token_ids))))
        return submit(request)

    def words_then_finish(*args: Any) -> Any:
        if not finishes:
            new_words(settings, words)
        finishes.append(finish(*args))
        return finishes[-1]

    engine.submit = recorded_submit  # type: ignore[method-assign]
    worker._finish = words_then_finish  # type: ignore[method-assign]

    async def scenario() -> None:
        await until(lambda: state(settings)[0] == "done", "the guidance done", WAIT_S)
        await until(lambda: not worker.serving, "the worker to let the call go", WAIT_S)

    asyncio.run(asyncio.wait_for(while_served(engine, worker, scenario), WAIT_S * 2))
    return submitted, finishes, settings


def test_words_raising_the_level_as_the_guidance_finishes_have_it_written_again(
    tmp_path: Path, redis_url: str, small_model_dir: Path, model: Path
) -> None:
    submitted, finishes, settings = serve_with_words_read_at_the_finish(
        tmp_path, redis_url, small_model_dir, model, "wait, he's not breathing, he's not breathing"
    )
    assert [level for level, _ in submitted] == [3, 1]
    assert "not breathing" not in submitted[0][1] and "not breathing" in submitted[1][1]
    assert finishes == [RaisedMeanwhile(1), None]
    guidance_state, outcome, guidance = state(settings)
    assert guidance_state == "done" and outcome is not None and guidance is not None
    assert (outcome.esi_level, outcome.error, outcome.tokens == guidance.tokens) == (1, None, True)
    assert outcome.evictions >= 1  # the submission thrown away counts as a lost cache (the engine may count its own)
    assert level_and_card(settings) == (1, "cpr-adult")
    assert CALL not in settings_heap(settings)  # acknowledged once, by the finish that recorded it


def test_words_that_do_not_raise_the_level_leave_the_finished_guidance(
    tmp_path: Path, redis_url: str, small_model_dir: Path, model: Path
) -> None:
    submitted, finishes, settings = serve_with_words_read_at_the_finish(
        tmp_path, redis_url, small_model_dir, model, "it's a bit swollen but he can move his fingers"
    )
    assert [level for level, _ in submitted] == [3]
    assert finishes == [None]
    guidance_state, outcome, _ = state(settings)
    assert (guidance_state, outcome.esi_level, outcome.evictions) == ("done", 3, 0)
    assert CALL not in settings_heap(settings)
