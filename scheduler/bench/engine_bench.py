"""`bench engine`: a burst of requests through a real engine (hf or vLLM, real forward passes), semantic vs its
baseline, side by side in one process, plus the ESI-1-alone limit run."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scheduler.engines.base import Engine, EngineRequest
from scheduler.engines.profiling import profile_engine
from scheduler.policy import ESI_LEVELS
from scheduler.sim.metrics import percentile

BASELINES = {"hf": "fifo", "vllm": "stock-priority"}
"""Each engine's baseline scheduler: the hf engine's own FIFO; vLLM's own `policy="priority"` given the same
priority values as ours, so the comparison isolates what our scheduler adds."""
LIMIT_RUN = "limit"
"""The run of the burst's ESI 1 requests alone under the semantic scheduler: ESI 1's limit."""


@dataclass(frozen=True, slots=True)
class EngineBenchSpec:
    """The burst and the engine's size: a cache small enough that the burst forces evictions."""

    requests: int = 60
    seed: int = 0
    num_blocks: int = 48
    block_size: int = 16
    max_requests_per_batch: int = 8
    max_batch_tokens: int = 256
    level_weights: tuple[float, ...] = (0.15, 0.2, 0.3, 0.2, 0.15)
    vocab_size: int = 200
    """Prompt token ids are drawn below this (the tiny model's vocabulary is a few hundred tokens)."""
    prompt_tokens: tuple[int, int] = (16, 48)
    answer_tokens: tuple[int, int] = (48, 160)
    """Long enough that a full batch does not free a slot every other step (guidance answers run to 256)."""
    measure_cost_model: bool = True
    """Time the semantic engine at start-up and run the fitted cost model, as the engine worker does
    (`TRIAGE_ENGINE_COST_MODEL=measure`); False: the engine's starting model (`cpu-default`)."""


def burst_workload(spec: EngineBenchSpec) -> list[EngineRequest]:
    """Mixed ESI levels, the most urgent last (ESI 5 first ... ESI 1 last)."""
    rng = random.Random(spec.seed)
    drawn = []
    for index in range(spec.requests):
        level = rng.choices(ESI_LEVELS, weights=spec.level_weights)[0]
        prompt = tuple(rng.randint(5, spec.vocab_size - 1) for _ in range(rng.randint(*spec.prompt_tokens)))
        answer = rng.randint(*spec.answer_tokens)
        drawn.append((level, index, prompt, answer))
    drawn.sort(key=lambda item: (-item[0], item[1]))
    return [
        EngineRequest(f"q{index:03d}-esi{level}", prompt, level, answer, answer)
        for level, index, prompt, answer in drawn
    ]


@dataclass(frozen=True, slots=True)
class EngineRunResult:
    """One scheduler's figures on the burst."""

    ttft_p50_ms: dict[str, float]
    ttft_p99_ms: dict[str, float]
    normalized_wait_s: dict[str, float]
    evictions: int
    """Requests that lost their KV cache (hf: evicted and recomputed; vLLM: preempted)."""
    tokens_per_s: float
    outputs: dict[str, tuple[int, ...]]

    def to_json(self, evictions_key: str = "evictions") -> dict[str, Any]:
        return {
            "ttft_p50_ms": self.ttft_p50_ms,
            "ttft_p99_ms": self.ttft_p99_ms,
            "normalized_wait_s": self.normalized_wait_s,
            evictions_key: self.evictions,
            "tokens_per_s": self.tokens_per_s,
        }


async def _consume(engine: Engine, request: EngineRequest, first: asyncio.Event) -> tuple[str, tuple[int, ...]]:
    tokens: list[int] = []
    async for chunk in engine.submit(request):
        tokens.extend(chunk.token_ids)
        if chunk.token_ids:
            first.set()
    return request.request_id, tuple(tokens)


async def run_burst(engine: Engine, requests: Sequence[EngineRequest]) -> EngineRunResult:
    """Serve `requests` on a started engine: all but the ESI 1 ones at once, then the ESI 1 ones as soon as the
    engine streams its first token (so they arrive into a running batch, on either engine, whatever its speed)."""
    evicted_before = sum(engine.stats().evictions.values())
    first = asyncio.Event()
    routine = [request for request in requests if request.esi_level != 1]
    urgent = [request for request in requests if request.esi_level == 1]
    tasks = [asyncio.create_task(_consume(engine, request, first)) for request in routine]
    if routine:
        await first.wait()
    tasks += [asyncio.create_task(_consume(engine, request, first)) for request in urgent]
    outputs = dict(await asyncio.gather(*tasks))
    timings = {request.request_id: engine.timings[request.request_id] for request in requests}
    ttft = {rid: ((t.first_token_s or t.submitted_s) - t.submitted_s) * 1000 for rid, t in timings.items()}
    wait = {rid: ((t.finished_s or t.submitted_s) - t.submitted_s) / max(1, t.tokens) for rid, t in timings.items()}
    start = min(t.submitted_s for t in timings.values())
    end = max(t.finished_s or t.submitted_s for t in timings.values())
    by_level = {level: [r.request_id for r in requests if r.esi_level == level] for level in ESI_LEVELS}

    def per_level(values: dict[str, float], share: float | None) -> dict[str, float]:
        result = {}
        for level, ids in by_level.items():
            if ids:
                picked = [values[rid] for rid in ids]
                result[str(level)] = percentile(picked, share) if share is not None else sum(picked) / len(picked)
        return result

    return EngineRunResult(
        ttft_p50_ms=per_level(ttft, 0.5),
        ttft_p99_ms=per_level(ttft, 0.99),
        normalized_wait_s=per_level(wait, None),
        evictions=sum(engine.stats().evictions.values()) - evicted_before,
        tokens_per_s=sum(len(tokens) for tokens in outputs.values()) / max(end - start, 1e-9),
        outputs=outputs,
    )


def _mean_result(runs: Sequence[EngineRunResult]) -> EngineRunResult:
    def mean_map(values: Sequence[dict[str, float]]) -> dict[str, float]:
        return {key: sum(value[key] for value in values) / len(values) for key in values[0]}

    return EngineRunResult(
        ttft_p50_ms=mean_map([run.ttft_p50_ms for run in runs]),
        ttft_p99_ms=mean_map([run.ttft_p99_ms for run in runs]),
        normalized_wait_s=mean_map([run.normalized_wait_s for run in runs]),
        evictions=round(sum(run.evictions for run in runs) / len(runs)),
        tokens_per_s=sum(run.tokens_per_s for run in runs) / len(runs),
        outputs=runs[0].outputs,
    )


EngineBuilder = Callable[[str, Path, EngineBenchSpec], Engine]
"""(scheduler, model directory, spec) -> an engine, not started."""


def hf_engine(scheduler: str, model_dir: Path, spec: EngineBenchSpec) -> Engine:
    """The embedded transformers engine sized by the spec (scheduler: semantic or fifo)."""
    from scheduler.engines.hf import HFEngine, HFEngineConfig

    return HFEngine(
        HFEngineConfig(
            model_path=str(model_dir),
            scheduler=scheduler,
            num_blocks=spec.num_blocks,
            block_size=spec.block_size,
            max_requests_per_batch=spec.max_requests_per_batch,
            max_batch_tokens=spec.max_batch_tokens,
        )
    )


def vllm_engine(scheduler: str, model_dir: Path, spec: EngineBenchSpec) -> Engine:
    """vLLM's engine sized by the spec (scheduler: semantic or stock-priority), started without torch.compile."""
    from scheduler.engines.vllm_engine import VLLMEngine, VLLMEngineConfig

    return VLLMEngine(
        VLLMEngineConfig(
            model=str(model_dir),
            scheduler="stock" if scheduler == BASELINES["vllm"] else scheduler,
            max_model_len=max(256, spec.prompt_tokens[1] + spec.answer_tokens[1]),
            max_num_seqs=spec.max_requests_per_batch,
            max_num_batched_tokens=spec.max_batch_tokens,
            num_gpu_blocks=spec.num_blocks,
            kv_cache_gib=0.5,
            enforce_eager=True,
            skip_tokenizer_init=True,
            dtype=checkpoint_dtype(model_dir),
        )
    )


def checkpoint_dtype(model_dir: Path) -> str:
    """The dtype the weights were saved in (vLLM's "auto" on the CPU would run a float32 checkpoint in bfloat16,
    while the hf engine loads it as saved)."""
    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    return str(config.get("dtype") or config.get("torch_dtype") or "auto")


ENGINE_BUILDERS: dict[str, EngineBuilder] = {"hf": hf_engine, "vllm": vllm_engine}


def renamed(requests: Sequence[EngineRequest], run: int) -> list[EngineRequest]:
    """The same requests under ids of their own for one run (engines keep timings by request id)."""
    return [
        EngineRequest(
            f"r{run}-{r.request_id}", r.prompt_token_ids, r.esi_level, r.predicted_output_tokens, r.max_new_tokens
        )
        for r in requests
    ]


async def _run_all(
    engine_name: str, names: Sequence[str], spec: EngineBenchSpec, model_dir: Path, repeats: int
) -> dict[str, list[EngineRunResult]]:
    """Start one engine per scheduler (the limit run uses the semantic one), then run the rotation on them."""
    build = ENGINE_BUILDERS[engine_name]
    engines = {name: build(name, model_dir, spec) for name in names if name != LIMIT_RUN}
    if LIMIT_RUN in names and "semantic" not in engines:
        engines["semantic"] = build("semantic", model_dir, spec)
    runs: dict[str, list[EngineRunResult]] = {name: [] for name in names}
    burst = burst_workload(spec)
    run_ids = itertools.count()  # every run's requests get ids of their own (the limit shares the semantic engine)
    try:
        for name, engine in engines.items():
            await engine.start()
            if name == "semantic" and spec.measure_cost_model:
                profile = await profile_engine(engine, spec.vocab_size, decode_tokens=32, repeats=2)
                await engine.use_cost_model(profile.cost_model)
            await run_burst(engine, renamed(burst, next(run_ids)))  # warm-up, not measured: a first burst is slower
        for repeat in range(repeats):
            for name in names if repeat % 2 == 0 else list(reversed(names)):
                requests = renamed(burst, next(run_ids))
                if name == LIMIT_RUN:
                    requests = [request for request in requests if request.esi_level == 1]
                engine = engines["semantic" if name == LIMIT_RUN else name]
                result = await run_burst(engine, requests)
                runs[name].append(_without_run_prefix(result))
    finally:
        for engine in engines.values():
            await engine.stop()
    return runs


def _without_run_prefix(result: EngineRunResult) -> EngineRunResult:
    outputs = {rid.split("-", 1)[1]: tokens for rid, tokens in result.outputs.items()}
    return EngineRunResult(
        result.ttft_p50_ms, result.ttft_p99_ms, result.normalized_wait_s, result.evictions, result.tokens_per_s, outputs
    )


def run_engine_bench(
    schedulers: Sequence[str] = ("semantic", "fifo"),
    spec: EngineBenchSpec | None = None,
    model_dir: Path | None = None,
    repeats: int = 1,
    with_limit: bool = False,
    engine: str = "hf",
) -> dict[str, EngineRunResult]:
    """Run the same burst through `engine` under each scheduler, in this process, each engine started once; with
    repeats, the order alternates (A B B A ...) so neither scheduler always runs first, and each figure is the mean
    over repeats. `with_limit` adds `LIMIT_RUN`: the burst's ESI 1 requests alone under the semantic scheduler, in
    the same rotation (no policy can serve them faster than with nothing else in the engine)."""
    spec = spec or EngineBenchSpec()
    names = [*schedulers, *([LIMIT_RUN] if with_limit else [])]
    with tempfile.TemporaryDirectory(prefix="tiny-llama-") as scratch:
        if model_dir is None:
            from scheduler.engines.tiny_models import build_tiny_llama

            model_dir = build_tiny_llama(Path(scratch))
        runs = asyncio.run(_run_all(engine, names, spec, model_dir, repeats))
    return {name: _mean_result(results) for name, results in runs.items()}
