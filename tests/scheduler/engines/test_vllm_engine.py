"""The vLLM engine wrapper with real model execution on the CPU: vLLM's AsyncLLM, its engine-core process running
our scheduler, its CPU worker running a tiny random-weight Llama with a real KV cache, real preemption and recompute.

Every output is compared with vLLM's stock scheduler serving the same requests: greedy decoding must give the same
tokens whatever order, preemptions or restarts the semantic scheduler chose. Exact step-by-step traces (which request
runs in which step) are tested against vLLM's scheduler directly, with faked model outputs, in
test_vllm_scheduler.py: real execution cannot pin steps down.
"""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import subprocess
import sys
import weakref
from collections.abc import AsyncIterator, Awaitable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar

import pytest

pytest.importorskip("vllm", reason="the vllm extra is installed by `make test`")

from scheduler.engines.base import EngineError, EngineRequest, RequestRejectedError, TokenChunk
from scheduler.engines.tiny_models import build_tiny_llama
from scheduler.engines.vllm_engine import (
    DEFAULT_CPU_KV_CACHE_GIB,
    SEMANTIC_ASYNC_SCHEDULER,
    SEMANTIC_SCHEDULER,
    VLLMEngine,
    VLLMEngineConfig,
    _check_scheduler,
    cpu_threads_environment,
    engine_args,
    release_shut_down,
)
from scheduler.policy import band_of_priority
from scheduler.scheduling_contract import SCHEDULING_KEY, Scheduling

T = TypeVar("T")
WAIT_S = 180.0
"""The most any scenario may take before the test fails instead of hanging (an engine restart included)."""
ROUTINE_TOKENS = 160
"""Routine answers are long, so an urgent request arrives well before any of them could finish."""
REPOSITORY = Path(__file__).resolve().parents[3]
SERVE_ONE_AND_EXIT = """
import asyncio, sys
from pathlib import Path
from scheduler.engines.vllm_engine import VLLMEngine
from tests.scheduler.engines.test_vllm_engine import collect, config_for, request, tokens_of

async def serve_one() -> int:
    engine = VLLMEngine(config_for(Path(sys.argv[1])))
    await engine.start()
    try:
        return len(tokens_of(await collect(engine.submit(request("exit", 3, new_tokens=8)))))
    finally:
        await engine.stop()

print("served", asyncio.run(serve_one()), "tokens")
"""
"""A whole process's life with the engine: start, one request, stop, interpreter exit."""


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_llama(tmp_path_factory.mktemp("vllm-model"))


def config_for(model_dir: Path, scheduler: str = "semantic") -> VLLMEngineConfig:
    return VLLMEngineConfig(
        model=str(model_dir),
        scheduler=scheduler,
        max_model_len=512,
        max_num_seqs=2,
        num_gpu_blocks=64,
        kv_cache_gib=0.25,
        enforce_eager=True,  # no torch.compile: the engine starts in seconds
        skip_tokenizer_init=True,
        dtype="float32",
    )


def request(request_id: str, level: int, new_tokens: int = 24, prompt_len: int = 40) -> EngineRequest:
    prompt = tuple(5 + (index * 7 + len(request_id) * 13) % 250 for index in range(1, prompt_len + 1))
    return EngineRequest(request_id, prompt, level, new_tokens, new_tokens)


async def collect(stream: AsyncIterator[TokenChunk], started: asyncio.Event | None = None) -> list[TokenChunk]:
    chunks = []
    async for chunk in stream:
        chunks.append(chunk)
        if started is not None and chunk.token_ids:
            started.set()
    return chunks


def tokens_of(chunks: list[TokenChunk]) -> list[int]:
    return [token for chunk in chunks for token in chunk.token_ids]


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.Runner]:
    with asyncio.Runner() as runner:
        yield runner


def run(loop: asyncio.Runner, scenario: Awaitable[T]) -> T:
    return loop.run(asyncio.wait_for(scenario, WAIT_S))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def semantic_engine(model_dir: Path, loop: asyncio.Runner) -> Iterator[VLLMEngine]:
    engine = VLLMEngine(config_for(model_dir))
    loop.run(engine.start())
    yield engine
    loop.run(engine.stop())


@pytest.fixture(scope="module")
def stock_engine(model_dir: Path, loop: asyncio.Runner) -> Iterator[VLLMEngine]:
    engine = VLLMEngine(config_for(model_dir, scheduler="stock"))
    loop.run(engine.start())
    yield engine
    loop.run(engine.stop())


async def serve_all(engine: VLLMEngine, items: list[EngineRequest]) -> dict[str, list[int]]:
    """Each request's greedy output, all submitted at once."""
    results = await asyncio.gather(*(collect(engine.submit(item)) for item in items))
    return {item.request_id: tokens_of(chunks) for item, chunks in zip(items, results, strict=True)}


async def burst(engine: VLLMEngine) -> dict[str, list[TokenChunk]]:
    """Four routine requests fill the batch of two; an ESI 1 request arrives once two of them are decoding."""
    routine = [request(f"routine-{index}", 5 - index % 2, new_tokens=ROUTINE_TOKENS) for index in range(4)]
    started = [asyncio.Event() for _ in routine]
    tasks = {
        item.request_id: asyncio.create_task(collect(engine.submit(item), event))
        for item, event in zip(routine, started, strict=True)
    }
    await asyncio.wait([asyncio.create_task(event.wait()) for event in started], return_when=asyncio.FIRST_COMPLETED)
    tasks["urgent"] = asyncio.create_task(collect(engine.submit(request("urgent", 1, new_tokens=8))))
    results = await asyncio.gather(*tasks.values())
    return dict(zip(tasks, results, strict=True))


def test_engine_args_carry_our_scheduler_the_priority_policy_and_the_cache_size(
    model_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VLLM_CPU_KVCACHE_SPACE", raising=False)
    config = VLLMEngineConfig(model=str(model_dir), max_model_len=512, kv_offloading_gib=2.0)
    on_cpu = engine_args(config, "cpu")
    assert (on_cpu.scheduler_cls, on_cpu.async_scheduling) == (SEMANTIC_SCHEDULER, False)
    assert on_cpu.scheduling_policy == "priority"
    assert on_cpu.kv_cache_memory_bytes == int(DEFAULT_CPU_KV_CACHE_GIB * (1 << 30))
    on_gpu = engine_args(config, "gpu")
    assert (on_gpu.scheduler_cls, on_gpu.async_scheduling) == (SEMANTIC_ASYNC_SCHEDULER, True)
    assert on_gpu.kv_cache_memory_bytes is None  # vLLM sizes it from gpu_memory_utilization
    assert (on_cpu.enforce_eager, on_gpu.enforce_eager) == (True, False)  # torch.compile only on a GPU by default
    vllm_config = on_cpu.create_engine_config()
    assert vllm_config.kv_transfer_config.kv_connector == "OffloadingConnector"
    assert vllm_config.kv_transfer_config.kv_connector_extra_config == {"cpu_bytes_to_use": 2.0 * (1 << 30)}
    # The scheduling reaches the VllmConfig the engine core builds our scheduler from (read in its `__init__`).
    assert vllm_config.additional_config == {SCHEDULING_KEY: Scheduling().to_dict()}
    monkeypatch.setenv("VLLM_CPU_KVCACHE_SPACE", "3")
    assert engine_args(config, "cpu").kv_cache_memory_bytes is None  # vLLM reads the variable itself
    sized = VLLMEngineConfig(model=str(model_dir), kv_cache_gib=0.5, async_scheduling=False)
    assert engine_args(sized, "gpu").kv_cache_memory_bytes == 1 << 29
    assert engine_args(sized, "gpu").scheduler_cls == SEMANTIC_SCHEDULER
    stock = engine_args(VLLMEngineConfig(model=str(model_dir), scheduler="stock"), "cpu")
    assert stock.scheduler_cls is None and stock.scheduling_policy == "priority" and stock.kv_offloading_size is None
    with pytest.raises(ValueError, match="unknown vllm scheduler 'lottery'"):
        engine_args(VLLMEngineConfig(model=str(model_dir), scheduler="lottery"), "cpu")


def test_vllm_gets_every_core_of_a_small_machine_unless_told_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VLLM_CPU_NUM_OF_RESERVED_CPU", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 16)
    cpu_threads_environment()
    assert "VLLM_CPU_NUM_OF_RESERVED_CPU" not in os.environ  # vLLM keeps a core for its engine core
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    cpu_threads_environment()
    assert os.environ["VLLM_CPU_NUM_OF_RESERVED_CPU"] == "0"
    monkeypatch.setenv("VLLM_CPU_NUM_OF_RESERVED_CPU", "1")
    cpu_threads_environment()
    assert os.environ["VLLM_CPU_NUM_OF_RESERVED_CPU"] == "1"


def test_an_engine_core_built_with_another_scheduler_is_refused() -> None:
    from vllm.v1.core.sched.scheduler import Scheduler

    def built_with(cls: type) -> Any:
        return SimpleNamespace(
            vllm_config=SimpleNamespace(scheduler_config=SimpleNamespace(get_scheduler_cls=lambda: cls))
        )

    with pytest.raises(EngineError, match=r"runs vllm\.v1\.core\.sched\.scheduler\.Scheduler, not scheduler\.engines"):
        _check_scheduler(built_with(Scheduler), SEMANTIC_SCHEDULER)
    assert _check_scheduler(built_with(Scheduler), None) == "vllm.v1.core.sched.scheduler.Scheduler"


def test_the_engine_runs_on_the_cpu_with_our_scheduler_in_its_engine_core(semantic_engine: VLLMEngine) -> None:
    health = semantic_engine.health()
    assert health.ok and health.detail == "running"
    assert health.extra["executor"] == "cpu"
    assert health.extra["scheduler"] == SEMANTIC_SCHEDULER
    pid = semantic_engine.engine_core_pid()
    assert pid is not None and pid != os.getpid()


def test_esi_1_preempts_a_full_batch_and_greedy_outputs_equal_stock_token_for_token(
    semantic_engine: VLLMEngine, stock_engine: VLLMEngine, loop: asyncio.Runner
) -> None:
    preempted_before = semantic_engine.counters.preemptions
    semantic = run(loop, burst(semantic_engine))
    stock = run(loop, burst(stock_engine))
    # Ours preempted a running routine request for the ESI 1 call; stock vLLM waited for a free slot.
    assert semantic_engine.counters.preemptions > preempted_before
    assert stock_engine.counters.preemptions == 0
    first = {request_id: chunks[0].emitted_s for request_id, chunks in semantic.items()}
    finish = {request_id: chunks[-1].emitted_s for request_id, chunks in semantic.items()}
    assert sorted(first, key=first.__getitem__)[2] == "urgent"  # after the two decoding, before the two waiting
    assert min(finish, key=finish.__getitem__) == "urgent"
    stock_first = {request_id: chunks[0].emitted_s for request_id, chunks in stock.items()}
    assert sum(at < stock_first["urgent"] for at in stock_first.values()) == 2
    assert max(finish, key=finish.__getitem__) != "urgent"
    # Greedy decoding gives the same tokens under both schedulers, the preempted (recomputed) request's included.
    assert {key: tokens_of(chunks) for key, chunks in semantic.items()} == {
        key: tokens_of(chunks) for key, chunks in stock.items()
    }
    assert len(tokens_of(semantic["urgent"])) == 8
    assert all(len(tokens_of(chunks)) == ROUTINE_TOKENS for key, chunks in semantic.items() if key != "urgent")
    for request_id, chunks in semantic.items():
        timing = semantic_engine.timings[request_id]
        assert chunks[-1].finished
        assert timing.submitted_s <= timing.first_token_s <= timing.finished_s  # type: ignore[operator]
    assert semantic_engine.timings["urgent"].tokens == 8
    stats = semantic_engine.stats()
    assert stats.steps > 0 and stats.mean_step_s > 0 and stats.evictions["preempted"] >= 1
    assert stats.waiting_per_level == {1: 0, 2: 0, 3: 0, 4: 0, 5: 0}


def test_an_override_moves_a_waiting_request_ahead_at_the_next_step_and_keeps_its_output(
    semantic_engine: VLLMEngine, stock_engine: VLLMEngine, loop: asyncio.Runner
) -> None:
    items = [request(f"queued-{index}", 5, new_tokens=48) for index in range(5)]
    expected = run(loop, serve_all(stock_engine, items))
    resubmitted = semantic_engine.resubmissions

    async def scenario() -> dict[str, list[TokenChunk]]:
        started = asyncio.Event()
        tasks = {item.request_id: asyncio.create_task(collect(semantic_engine.submit(item), started)) for item in items}
        await started.wait()
        waiting = semantic_engine.stats().waiting_per_level
        assert waiting[5] >= 3 and waiting[1] == 0
        semantic_engine.override("queued-4", 1)  # submitted last, waiting behind two others
        results = await asyncio.gather(*tasks.values())
        return dict(zip(tasks, results, strict=True))

    results = run(loop, scenario())
    assert semantic_engine.resubmissions == resubmitted + 1
    first = {request_id: chunks[0].emitted_s for request_id, chunks in results.items()}
    assert first["queued-4"] < first["queued-2"] and first["queued-4"] < first["queued-3"]
    assert {key: tokens_of(chunks) for key, chunks in results.items()} == expected
    with pytest.raises(KeyError, match="not queued or running"):
        semantic_engine.override("queued-4", 2)  # finished
    with pytest.raises(ValueError, match=r"esi_level must be 1\.\.5"):
        semantic_engine.override("queued-4", 0)


def test_abort_ends_that_stream_and_the_others_finish(
    semantic_engine: VLLMEngine, stock_engine: VLLMEngine, loop: asyncio.Runner
) -> None:
    keep_request = request("keep", 3, new_tokens=20)
    expected = run(loop, serve_all(stock_engine, [keep_request]))["keep"]

    async def scenario() -> tuple[list[TokenChunk], list[TokenChunk]]:
        keep = asyncio.create_task(collect(semantic_engine.submit(keep_request)))
        started = asyncio.Event()
        drop = asyncio.create_task(collect(semantic_engine.submit(request("drop", 3, new_tokens=400)), started))
        await started.wait()  # abort once it is generating
        semantic_engine.abort("drop")
        return await keep, await drop

    keep, drop = run(loop, scenario())
    assert tokens_of(keep) == expected
    assert drop[-1].token_ids == () and drop[-1].finished
    assert 0 < len(tokens_of(drop)) < 400
    assert "drop" not in semantic_engine.timings


def test_requests_it_can_never_serve_are_refused_up_front_and_the_engine_serves_on(
    semantic_engine: VLLMEngine, stock_engine: VLLMEngine, loop: asyncio.Runner
) -> None:
    with pytest.raises(RequestRejectedError, match="needs up to 600 tokens; the model serves 512"):
        semantic_engine.submit(request("huge", 3, new_tokens=100, prompt_len=500))
    vocab = semantic_engine._vocab_size
    with pytest.raises(RequestRejectedError, match="outside the model's vocabulary"):
        semantic_engine.submit(EngineRequest("oov", (5, vocab + 3), 3, 4, 4))
    with pytest.raises(RequestRejectedError, match=r"esi_level must be 1\.\.5"):
        semantic_engine.submit(request("bad-level", 7))
    after = request("after", 2, new_tokens=5)
    assert run(loop, serve_all(semantic_engine, [after])) == run(loop, serve_all(stock_engine, [after]))
    with pytest.raises(EngineError, match="call it from a coroutine"):
        semantic_engine.submit(request("outside", 2))


def test_a_killed_engine_core_is_restarted_and_every_request_in_flight_finishes(
    semantic_engine: VLLMEngine, stock_engine: VLLMEngine, loop: asyncio.Runner
) -> None:
    items = [request(f"survivor-{index}", 1 + index % 5, new_tokens=120) for index in range(4)]
    expected = run(loop, serve_all(stock_engine, items))
    killed = semantic_engine.engine_core_pid()
    assert killed is not None

    async def scenario() -> dict[str, list[TokenChunk]]:
        started = asyncio.Event()
        tasks = {item.request_id: asyncio.create_task(collect(semantic_engine.submit(item), started)) for item in items}
        await started.wait()
        os.kill(killed, signal.SIGKILL)  # mid-generation: two requests decoding, two waiting
        results = await asyncio.gather(*tasks.values())
        return dict(zip(tasks, results, strict=True))

    results = run(loop, scenario())
    assert semantic_engine.restarts == 1
    assert semantic_engine.engine_core_pid() not in (None, killed)
    assert {key: tokens_of(chunks) for key, chunks in results.items()} == expected
    assert all(chunks[-1].finished for chunks in results.values())
    health = semantic_engine.health()
    assert health.ok and health.restarts == 1 and health.extra["scheduler"] == SEMANTIC_SCHEDULER


def test_the_overload_mode_resubmits_only_waiting_requests_whose_priority_it_changes(model_dir: Path) -> None:
    from scheduler.engines.vllm_engine import _RESUBMIT, _InFlight

    engine = VLLMEngine(config_for(model_dir))  # not started: the decision is the adapter's, before vLLM
    requests = {
        "esi2-waiting": (2, False),  # its key moves ahead of ESI 3-5 work: resubmitted with the new priority
        "esi3-waiting": (3, False),  # unchanged key: left where it is
        "esi2-running": (2, True),  # running: keeps its place
    }
    for request_id, (level, running) in requests.items():
        inflight = _InFlight(EngineRequest(request_id, (5,) * 40, level, 20, 20), level, running=running)
        inflight.outputs = asyncio.Queue()
        inflight.priority = engine._priority(inflight)
        engine._inflight[request_id] = inflight
    assert engine.set_overloaded(True) and not engine.set_overloaded(True)
    resubmitted = {request_id for request_id, inflight in engine._inflight.items() if not inflight.outputs.empty()}
    assert resubmitted == {"esi2-waiting"}
    waiting = engine._inflight["esi2-waiting"]
    assert waiting.outputs is not None and waiting.outputs.get_nowait() is _RESUBMIT
    assert band_of_priority(engine._priority(waiting)) == 1.5  # strictly after ESI 1, before every ESI 3-5 request
    assert engine.set_overloaded(False) and band_of_priority(engine._priority(waiting)) == 3


def test_a_process_that_served_and_stopped_the_engine_exits_without_a_traceback(model_dir: Path) -> None:
    # vLLM's AsyncLLM.__del__ shuts down again; left to interpreter exit it fails on vLLM's torn-down module globals.
    # Its output handler, left running while the engine core stops, logs the core's EngineDeadError.
    done = subprocess.run(
        [sys.executable, "-c", SERVE_ONE_AND_EXIT, str(model_dir)],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        timeout=WAIT_S,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert "served 8 tokens" in done.stdout.splitlines()
    said = done.stdout + done.stderr  # vLLM logs to stdout, Python's exit-time errors go to stderr
    assert [word for word in ("Traceback", "TypeError", "EngineDeadError") if word in said] == [], said[-4000:]
    assert "still referenced after its shutdown" not in said  # collected at stop, not disarmed


class _Closable:
    """Stands for vLLM's AsyncLLM: its `__del__` shuts down again (counted here)."""

    deletions = 0

    def __init__(self) -> None:
        self.holder: _Closable | None = None

    def __del__(self) -> None:
        _Closable.deletions += 1


def test_a_shut_down_engine_is_collected_at_release_or_else_disarmed_alone() -> None:
    _Closable.deletions = 0
    in_a_cycle = _Closable()
    in_a_cycle.holder = in_a_cycle  # only the garbage collector frees it
    collected = weakref.ref(in_a_cycle)
    del in_a_cycle
    release_shut_down(collected)
    assert (collected(), _Closable.deletions) == (None, 1)  # its __del__ ran at release, not at exit
    held, other = _Closable(), _Closable()
    release_shut_down(weakref.ref(held))
    assert type(held).__name__ == "ShutDown_Closable" and isinstance(held, _Closable)
    assert type(other) is _Closable
    del held
    gc.collect()
    assert _Closable.deletions == 1  # the disarmed one's __del__ did nothing
    del other
    assert _Closable.deletions == 2  # every other instance keeps its own
