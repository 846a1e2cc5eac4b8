"""The vLLM engine wrapper through vLLM's real AsyncLLM, engine core process and scheduler; only the model's
forward pass is faked (the fake-output executor), as no GPU runs here."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("vllm", reason="the vllm extra is installed by `make test`")

from scheduler.bench.vllm_fake_executor import next_token
from scheduler.engines.base import EngineError, EngineRequest, RequestRejectedError, TokenChunk
from scheduler.engines.vllm_engine import SEMANTIC_SCHEDULER, VLLMEngine, VLLMEngineConfig, engine_args

VOCAB = 1000
FAKE_EXECUTOR = "scheduler.bench.vllm_fake_executor.FakeOutputExecutor"


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from transformers import LlamaConfig

    directory = tmp_path_factory.mktemp("vllm-model")
    config: Any = LlamaConfig(
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=512,
    )
    config.save_pretrained(directory)
    return directory


def config_for(model_dir: Path, scheduler: str = "semantic", **options: Any) -> VLLMEngineConfig:
    return VLLMEngineConfig(
        model=str(model_dir),
        scheduler=scheduler,
        max_model_len=512,
        max_num_seqs=2,
        num_gpu_blocks=64,
        async_scheduling=False,  # the CPU platform and the fake executor run vLLM's synchronous scheduler
        skip_tokenizer_init=True,
        dtype="float32",
        executor_backend=FAKE_EXECUTOR,
        additional_config={"fake_step_s": 0.01, **options},
    )


def expected_tokens(prompt: tuple[int, ...], count: int) -> list[int]:
    """What greedy decoding of the faked model gives without any scheduling at all."""
    tokens = list(prompt)
    for _ in range(count):
        tokens.append(next_token(tokens, VOCAB))
    return tokens[len(prompt) :]


def request(request_id: str, level: int, new_tokens: int = 24, prompt_len: int = 40) -> EngineRequest:
    prompt = tuple((index * 7 + len(request_id)) % VOCAB for index in range(1, prompt_len + 1))
    return EngineRequest(request_id, prompt, level, new_tokens, new_tokens)


async def collect(stream: AsyncIterator[TokenChunk]) -> list[TokenChunk]:
    return [chunk async for chunk in stream]


def tokens_of(chunks: list[TokenChunk]) -> list[int]:
    return [token for chunk in chunks for token in chunk.token_ids]


@pytest.fixture(scope="module")
def event_loop_runner() -> Iterator[asyncio.Runner]:
    with asyncio.Runner() as runner:
        yield runner


@pytest.fixture(scope="module")
def semantic_engine(model_dir: Path, event_loop_runner: asyncio.Runner) -> Iterator[VLLMEngine]:
    engine = VLLMEngine(config_for(model_dir))
    event_loop_runner.run(engine.start())
    yield engine
    event_loop_runner.run(engine.stop())


async def burst(engine: VLLMEngine, override: tuple[str, int] | None = None) -> dict[str, list[TokenChunk]]:
    """Four routine requests fill the batch of two; an ESI 1 request arrives while they run."""
    routine = [request(f"routine-{index}", 5 - index % 2) for index in range(4)]
    tasks = {item.request_id: asyncio.create_task(collect(engine.submit(item))) for item in routine}
    await asyncio.sleep(0.1)
    urgent = request("urgent", 1, new_tokens=8)
    tasks["urgent"] = asyncio.create_task(collect(engine.submit(urgent)))
    if override is not None:
        await asyncio.sleep(0.02)
        engine.override(*override)
    results = await asyncio.gather(*tasks.values())
    return dict(zip(tasks, results, strict=True))


def test_engine_args_carry_our_scheduler_the_priority_policy_and_the_offloading_connector(model_dir: Path) -> None:
    config = VLLMEngineConfig(
        model=str(model_dir), max_model_len=512, kv_offloading_gib=2.0, skip_tokenizer_init=True, async_scheduling=False
    )
    vllm_config = engine_args(config).create_engine_config()
    assert vllm_config.scheduler_config.scheduler_cls == SEMANTIC_SCHEDULER
    assert vllm_config.scheduler_config.policy == "priority"
    assert vllm_config.kv_transfer_config.kv_connector == "OffloadingConnector"
    assert vllm_config.kv_transfer_config.kv_connector_extra_config == {"cpu_bytes_to_use": 2.0 * (1 << 30)}
    stock = engine_args(VLLMEngineConfig(model=str(model_dir), scheduler="stock", max_model_len=512))
    assert stock.scheduler_cls is None and stock.scheduling_policy == "priority" and stock.kv_offloading_size is None
    with pytest.raises(ValueError, match="unknown vllm scheduler 'lottery'"):
        engine_args(VLLMEngineConfig(model=str(model_dir), scheduler="lottery"))


def test_an_urgent_request_preempts_a_full_batch_and_outputs_match_unscheduled_greedy(
    semantic_engine: VLLMEngine, event_loop_runner: asyncio.Runner
) -> None:
    preempted_before = semantic_engine.counters.preemptions
    results = event_loop_runner.run(burst(semantic_engine))
    finish = {request_id: chunks[-1].emitted_s for request_id, chunks in results.items()}
    # Our scheduler in vLLM's engine core preempted a running routine request for it (stock vLLM never does).
    assert semantic_engine.counters.preemptions > preempted_before
    assert min(finish, key=lambda request_id: finish[request_id]) == "urgent"
    for request_id, chunks in results.items():
        item = request(request_id, 1)
        count = 8 if request_id == "urgent" else 24
        assert tokens_of(chunks) == expected_tokens(item.prompt_token_ids, count), request_id
        assert chunks[-1].finished
        timing = semantic_engine.timings[request_id]
        assert timing.submitted_s <= timing.first_token_s <= timing.finished_s  # type: ignore[operator]
        assert timing.tokens == count
    stats = semantic_engine.stats()
    assert stats.steps > 0 and stats.mean_step_s > 0
    assert stats.waiting_per_level == {1: 0, 2: 0, 3: 0, 4: 0, 5: 0}
    assert semantic_engine.health().ok


def test_stock_priority_lets_the_urgent_request_wait_for_a_free_slot(
    model_dir: Path, event_loop_runner: asyncio.Runner
) -> None:
    engine = VLLMEngine(config_for(model_dir, scheduler="stock"))
    event_loop_runner.run(engine.start())
    try:
        results = event_loop_runner.run(burst(engine))
    finally:
        event_loop_runner.run(engine.stop())
    assert engine.counters.preemptions == 0
    first = {request_id: chunks[0].emitted_s for request_id, chunks in results.items()}
    started_before_urgent = [request_id for request_id, at in first.items() if at < first["urgent"]]
    assert len(started_before_urgent) == 2  # the urgent one waited for a slot, then went before the other two
    for request_id, chunks in results.items():
        count = 8 if request_id == "urgent" else 24
        assert tokens_of(chunks) == expected_tokens(request(request_id, 1).prompt_token_ids, count)


def test_an_override_moves_a_waiting_request_ahead_at_once_and_keeps_its_output(
    semantic_engine: VLLMEngine, event_loop_runner: asyncio.Runner
) -> None:
    resubmitted = semantic_engine.resubmissions

    async def scenario() -> dict[str, list[TokenChunk]]:
        items = [request(f"queued-{index}", 5, new_tokens=16) for index in range(5)]
        tasks = {item.request_id: asyncio.create_task(collect(semantic_engine.submit(item))) for item in items}
        await asyncio.sleep(0.05)
        waiting = semantic_engine.stats().waiting_per_level
        assert waiting[5] >= 3 and waiting[1] == 0
        semantic_engine.override("queued-4", 1)  # submitted last, waiting behind the others
        results = await asyncio.gather(*tasks.values())
        return dict(zip(tasks, results, strict=True))

    results = event_loop_runner.run(scenario())
    assert semantic_engine.resubmissions == resubmitted + 1
    first = {request_id: chunks[0].emitted_s for request_id, chunks in results.items()}
    assert first["queued-4"] < first["queued-2"] and first["queued-4"] < first["queued-3"]
    for request_id, chunks in results.items():
        assert tokens_of(chunks) == expected_tokens(request(request_id, 5).prompt_token_ids, 16)
    with pytest.raises(KeyError, match="not queued or running"):
        semantic_engine.override("queued-4", 2)  # finished
    with pytest.raises(ValueError, match=r"esi_level must be 1\.\.5"):
        semantic_engine.override("queued-4", 0)


def test_abort_ends_that_stream_and_the_others_finish(
    semantic_engine: VLLMEngine, event_loop_runner: asyncio.Runner
) -> None:
    async def scenario() -> tuple[list[TokenChunk], list[TokenChunk]]:
        keep = asyncio.create_task(collect(semantic_engine.submit(request("keep", 3, new_tokens=20))))
        started = asyncio.Event()

        async def collect_drop() -> list[TokenChunk]:
            chunks = []
            async for chunk in semantic_engine.submit(request("drop", 3, new_tokens=200)):
                chunks.append(chunk)
                started.set()
            return chunks

        drop = asyncio.create_task(collect_drop())
        await started.wait()  # abort once it is generating (a fixed sleep raced a busy machine)
        semantic_engine.abort("drop")
        return await keep, await drop

    keep, drop = event_loop_runner.run(scenario())
    assert tokens_of(keep) == expected_tokens(request("keep", 3).prompt_token_ids, 20)
    assert drop[-1].token_ids == () and drop[-1].finished
    assert 0 < len(tokens_of(drop)) < 200
    assert "drop" not in semantic_engine.timings


def test_requests_it_can_never_serve_are_refused_up_front_and_the_engine_serves_on(
    semantic_engine: VLLMEngine, event_loop_runner: asyncio.Runner
) -> None:
    with pytest.raises(RequestRejectedError, match="needs up to 600 tokens; the model serves 512"):
        semantic_engine.submit(request("huge", 3, new_tokens=100, prompt_len=500))
    with pytest.raises(RequestRejectedError, match="outside the model's vocabulary"):
        semantic_engine.submit(EngineRequest("oov", (5, VOCAB + 3), 3, 4, 4))
    with pytest.raises(RequestRejectedError, match=r"esi_level must be 1\.\.5"):
        semantic_engine.submit(request("bad-level", 7))

    async def after() -> list[TokenChunk]:
        return await collect(semantic_engine.submit(request("after", 2, new_tokens=5)))

    assert tokens_of(event_loop_runner.run(after())) == expected_tokens(request("after", 2).prompt_token_ids, 5)
    with pytest.raises(EngineError, match="call it from a coroutine"):
        semantic_engine.submit(request("outside", 2))


def test_a_dead_engine_core_is_restarted_and_every_request_in_flight_finishes(
    model_dir: Path, event_loop_runner: asyncio.Runner, tmp_path: Path
) -> None:
    crash_file = tmp_path / "crash-once"
    crash_file.touch()
    engine = VLLMEngine(config_for(model_dir, fake_crash_at_step=6, fake_crash_file=str(crash_file)))
    event_loop_runner.run(engine.start())

    async def scenario() -> dict[str, list[TokenChunk]]:
        items = [request(f"survivor-{index}", 1 + index % 5, new_tokens=12) for index in range(4)]
        tasks = {item.request_id: asyncio.create_task(collect(engine.submit(item))) for item in items}
        results = await asyncio.gather(*tasks.values())
        return dict(zip(tasks, results, strict=True))

    try:
        results = event_loop_runner.run(scenario())
    finally:
        event_loop_runner.run(engine.stop())
    assert not crash_file.exists()  # the fake model did fail once
    assert engine.restarts == 1
    for request_id, chunks in results.items():
        assert tokens_of(chunks) == expected_tokens(request(request_id, 1).prompt_token_ids, 12), request_id
    assert engine.health().detail == "not started"
    with pytest.raises(EngineError, match="not started"):
        engine.submit(request("late", 3))
