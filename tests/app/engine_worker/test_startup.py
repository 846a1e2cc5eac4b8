"""Starting the engine: a model that cannot be loaded is retried, and why is published in the heartbeat."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import uuid
from pathlib import Path
from typing import Any

import pytest
import redis

from app.engine_worker.incident_rows import carried_card
from app.engine_worker.loop import serve_engine
from app.engine_worker.startup import OFFLINE_HINT, explain_start_failure, start_engine
from app.guidance.cards.library import default_library
from app.redis.keys import ENGINE_HEARTBEAT
from app.settings import Settings
from app.status.engine import NO_ENGINE, engine_status
from app.status.readiness import engine_check
from scheduler.cost_model import get_profile
from scheduler.engines.tiny_models import build_tiny_llama
from scheduler.redis_heap import CallFacts

# The error transformers 5 raises for a hub id with no network and nothing cached (copied from a real run here).
HUB_OFFLINE = OSError(
    "We couldn't connect to 'https://huggingface.co' to load the files, and couldn't find them in the cached files.\n"
    "Check your internet connection or see how to run the library in offline mode at "
    "'https://huggingface.co/docs/transformers/installation#offline-mode'."
)


def test_the_reasons_say_what_is_wrong_and_what_to_set(tmp_path: Path) -> None:
    hub = explain_start_failure("Qwen/Qwen2.5-0.5B-Instruct", "hf", HUB_OFFLINE)
    assert hub == (
        "model Qwen/Qwen2.5-0.5B-Instruct is not on this machine and cannot be downloaded (no connection): "
        + OFFLINE_HINT
    )
    assert "TRIAGE_MODEL=builtin:tiny-llama" in hub
    missing = explain_start_failure(str(tmp_path / "nowhere"), "hf", FileNotFoundError("config.json"))
    assert missing.startswith(f"model directory {tmp_path / 'nowhere'} not found (no config.json there): set TRIAGE_")
    memory = explain_start_failure("big/model", "vllm", RuntimeError("CUDA out of memory. Tried to allocate"))
    assert memory.startswith("not enough memory to load big/model")
    other = explain_start_failure("some/model", "vllm", ValueError("unsupported architecture X\nmore lines"))
    assert other == "the vllm engine could not start some/model: ValueError: unsupported architecture X"


def test_a_model_that_appears_after_a_failure_is_loaded_on_the_next_attempt(tmp_path: Path) -> None:
    model = tmp_path / "tiny-llama"
    settings = Settings(engine="hf", model=str(model), engine_num_blocks=32)
    states: list[dict[str, Any]] = []

    async def publish(state: dict[str, Any]) -> None:
        states.append(state)
        if state["state"] == "unavailable" and not model.exists():
            await asyncio.to_thread(build_tiny_llama, tmp_path)  # the operator copies the model in

    async def run() -> Any:
        started = await start_engine(settings, publish, backoff_s=(0.2,))
        await started.engine.stop()
        return started

    started = asyncio.run(run())
    assert started.model_name == "tiny-llama" and started.max_positions == 1024
    kinds = [state["state"] for state in states]
    first_unavailable = kinds.index("unavailable")
    # The first attempt loads; the retry says it is still down, with the last failure (no "loading" flash).
    assert kinds[0] == "loading" and set(kinds[first_unavailable:]) == {"unavailable"}
    assert states[-1]["detail"].startswith(f"model directory {model} not found") and states[-1]["detail"].endswith(
        "; trying again (attempt 2)"
    )
    failed = states[first_unavailable]
    assert (failed["ok"], failed["attempt"], failed["retry_in_s"]) == (False, 1, 0.2)
    assert failed["detail"].startswith(f"model directory {model} not found")
    assert states[-1]["attempt"] == 2


def test_the_engine_worker_publishes_why_guidance_is_down_and_readyz_says_it(tmp_path: Path, redis_url: str) -> None:
    prefix = f"startup-{uuid.uuid4().hex[:8]}"
    missing = tmp_path / "model"
    settings = Settings(engine="hf", model=str(missing), redis_url=redis_url, queue_prefix=prefix)
    client = redis.Redis.from_url(redis_url)

    async def until_unavailable() -> list[Any]:
        task = asyncio.ensure_future(serve_engine(settings))
        try:
            for _ in range(200):
                await asyncio.sleep(0.05)
                keys = client.keys(f"{prefix}:{ENGINE_HEARTBEAT}:*")
                beats = [json.loads(raw) for raw in client.mget(keys)] if keys else []
                if any(beat["state"] == "unavailable" for beat in beats):
                    return beats
            raise AssertionError("no unavailable state published")
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    [beat] = asyncio.run(until_unavailable())
    assert (beat["ok"], beat["engine"], beat["model"], beat["attempt"]) == (False, "hf", str(missing), 1)
    status = engine_status(client, prefix)
    assert (status.available, status.state, status.engines) == (False, "unavailable", 1)
    assert engine_check(client, prefix) == f"error: {beat['detail']}"
    assert "set TRIAGE_MODEL" in beat["detail"]


@pytest.mark.parametrize(
    ("beats", "expected", "check"),
    [
        ([], (False, "absent"), "error: " + NO_ENGINE),
        (
            [{"ok": True, "state": "serving"}, {"ok": False, "state": "unavailable", "detail": "x"}],
            (True, "serving"),
            "ok",
        ),
        (
            [{"ok": False, "state": "unavailable", "detail": "b"}, {"ok": False, "state": "loading", "detail": "m"}],
            (False, "loading"),
            "starting: m",  # /readyz: not ready while a model loads, but not an error
        ),
        ([{"ok": False, "detail": "engine core died"}], (False, "unhealthy"), "error: engine core died"),
    ],
)
def test_one_serving_engine_is_enough_and_loading_is_told_before_unavailable(
    redis_url: str, beats: list[dict[str, Any]], expected: tuple[bool, str], check: str
) -> None:
    prefix = f"status-{uuid.uuid4().hex[:8]}"
    client = redis.Redis.from_url(redis_url)
    for index, beat in enumerate(beats):
        client.set(f"{prefix}:{ENGINE_HEARTBEAT}:engine-{index}", json.dumps(beat), ex=60)
    status = engine_status(client, prefix)
    assert (status.available, status.state) == expected
    assert status.engines == len(beats)
    assert engine_check(client, prefix) == check


def test_the_console_reads_the_heartbeats_once_per_ttl_and_reports_redis_away(redis_url: str) -> None:
    from app.redis.local import free_port
    from app.status.engine import EngineStatusCache

    prefix = f"cache-{uuid.uuid4().hex[:8]}"
    client = redis.Redis.from_url(redis_url)
    now = [0.0]
    cache = EngineStatusCache(client, prefix, ttl_s=2.0, clock=lambda: now[0])
    assert cache.get().state == "absent"
    client.set(f"{prefix}:{ENGINE_HEARTBEAT}:e", json.dumps({"ok": True, "state": "serving"}), ex=60)
    now[0] = 1.9
    assert cache.get().state == "absent"  # cached
    now[0] = 2.0
    assert cache.get().available is True
    away = EngineStatusCache(redis.Redis(port=free_port(), socket_connect_timeout=0.5), prefix)
    status = away.get()
    assert (status.available, status.state, status.reason) == (
        False,
        "unknown",
        "Redis does not answer (ConnectionError)",
    )


def test_the_started_engine_runs_the_cost_model_measured_on_this_machine_or_the_one_named(tmp_path: Path) -> None:
    model = build_tiny_llama(tmp_path)

    async def in_force(settings: Settings) -> tuple[dict[str, Any] | None, Any]:
        async def publish(state: dict[str, Any]) -> None:
            return None

        started = await start_engine(settings, publish)
        try:
            return await started.engine.scheduling_in_force(), started.engine.config.cost_model
        finally:
            await started.engine.stop()

    measured, config_model = asyncio.run(in_force(Settings(engine="hf", model=str(model), engine_num_blocks=32)))
    assert measured is not None and measured["cost_model"] == "custom"  # fitted here: no named profile
    assert measured["cost_coefficients"] == dataclasses.asdict(config_model)
    assert config_model != get_profile("cpu-default") and config_model.g2 > 0
    named = Settings(engine="hf", model=str(model), engine_num_blocks=32, engine_cost_model="a100-qwen1.5-7b")
    reported, _ = asyncio.run(in_force(named))
    assert reported is not None and reported["cost_model"] == "a100-qwen1.5-7b"


def test_the_status_says_when_every_serving_engine_runs_a_test_model(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    for beats, test_model in (
        ([{"ok": True, "state": "serving", "model": "builtin:tiny-llama"}], True),
        ([{"ok": True, "state": "serving", "model": "tiny-llama"}, {"ok": False, "model": "qwen"}], True),
        ([{"ok": True, "state": "serving", "model": "tiny-llama"}, {"ok": True, "model": "qwen2.5-0.5b"}], False),
    ):
        prefix = f"test-model-{uuid.uuid4().hex[:8]}"
        for index, beat in enumerate(beats):
            client.set(f"{prefix}:{ENGINE_HEARTBEAT}:engine-{index}", json.dumps(beat), ex=60)
        assert engine_status(client, prefix).test_model is test_model


def test_a_started_engine_has_read_the_card_library_so_the_first_arrest_does_not_wait_for_it(tmp_path: Path) -> None:
    # Reading the library compiles the triage knowledge (seconds): an arrest once waited 5 s for its guidance here.
    model = build_tiny_llama(tmp_path)
    settings = Settings(engine="hf", model=str(model), engine_num_blocks=32)

    async def start_and_stop() -> None:
        async def publish(state: dict[str, Any]) -> None:
            return None

        started = await start_engine(settings, publish)
        await started.engine.stop()

    default_library.cache_clear()
    asyncio.run(start_and_stop())
    assert default_library.cache_info().currsize == 1
    hits = default_library.cache_info().hits
    assert carried_card("one", CallFacts(card_id="cpr-adult", card_language="en")) is not None
    assert default_library.cache_info().hits == hits + 1  # read from what the start loaded
