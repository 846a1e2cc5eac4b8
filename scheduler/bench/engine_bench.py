"""`bench engine`: a burst of requests through the real hf engine (tiny local model), semantic vs FIFO."""

from __future__ import annotations

import asyncio
import random
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scheduler.engines.base import EngineRequest
from scheduler.engines.hf import HFEngine, HFEngineConfig
from scheduler.policy import ESI_LEVELS
from scheduler.sim.metrics import percentile


@dataclass(frozen=True, slots=True)
class EngineBenchSpec:
    """The burst and the engine's size: a cache small enough that the burst forces evictions."""

    requests: int = 60
    seed: int = 0
    num_blocks: int = 24
    block_size: int = 16
    max_requests_per_batch: int = 8
    max_batch_tokens: int = 256
    level_weights: tuple[float, ...] = (0.15, 0.2, 0.3, 0.2, 0.15)
    vocab_size: int = 200
    """Prompt token ids are drawn below this (the tiny model's vocabulary is a few hundred tokens)."""


def burst_workload(spec: EngineBenchSpec) -> list[EngineRequest]:
    """Mixed ESI levels, the most urgent submitted last; prompts 16-48 tokens, answers 16-40 tokens."""
    rng = random.Random(spec.seed)
    drawn = []
    for index in range(spec.requests):
        level = rng.choices(ESI_LEVELS, weights=spec.level_weights)[0]
        prompt = tuple(rng.randint(5, spec.vocab_size - 1) for _ in range(rng.randint(16, 48)))
        answer = rng.randint(16, 40)
        drawn.append((level, index, prompt, answer))
    drawn.sort(key=lambda item: (-item[0], item[1]))  # ESI 5 first ... ESI 1 last
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
    tokens_per_s: float
    outputs: dict[str, tuple[int, ...]]

    def to_json(self) -> dict[str, Any]:
        return {
            "ttft_p50_ms": self.ttft_p50_ms,
            "ttft_p99_ms": self.ttft_p99_ms,
            "normalized_wait_s": self.normalized_wait_s,
            "evictions": self.evictions,
            "tokens_per_s": self.tokens_per_s,
        }


async def _run(model_dir: Path, scheduler: str, spec: EngineBenchSpec, max_level: int = 5) -> EngineRunResult:
    """One run of the burst (only its requests of ESI 1..`max_level`) under `scheduler`."""
    engine = HFEngine(
        HFEngineConfig(
            model_path=str(model_dir),
            scheduler=scheduler,
            num_blocks=spec.num_blocks,
            block_size=spec.block_size,
            max_requests_per_batch=spec.max_requests_per_batch,
            max_batch_tokens=spec.max_batch_tokens,
        )
    )
    await engine.start()
    requests = [request for request in burst_workload(spec) if request.esi_level <= max_level]
    try:

        async def consume(request: EngineRequest) -> tuple[str, tuple[int, ...]]:
            tokens: list[int] = []
            async for chunk in engine.submit(request):
                tokens.extend(chunk.token_ids)
            return request.request_id, tuple(tokens)

        outputs = dict(await asyncio.gather(*(consume(request) for request in requests)))
    finally:
        await engine.stop()
    by_level: dict[int, list[str]] = {level: [] for level in ESI_LEVELS}
    for request in requests:
        by_level[request.esi_level].append(request.request_id)
    ttft = {rid: ((t.first_token_s or t.submitted_s) - t.submitted_s) * 1000 for rid, t in engine.timings.items()}
    wait = {
        rid: ((t.finished_s or t.submitted_s) - t.submitted_s) / max(1, t.tokens) for rid, t in engine.timings.items()
    }
    start = min(t.submitted_s for t in engine.timings.values())
    end = max(t.finished_s or t.submitted_s for t in engine.timings.values())
    total_tokens = sum(len(tokens) for tokens in outputs.values())

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
        evictions=engine.decisions.evictions,
        tokens_per_s=total_tokens / max(end - start, 1e-9),
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


LIMIT_RUN = "limit"
"""The run of the burst's ESI 1 requests alone under the semantic scheduler: ESI 1's limit."""


def run_engine_bench(
    schedulers: Sequence[str] = ("semantic", "fifo"),
    spec: EngineBenchSpec | None = None,
    model_dir: Path | None = None,
    repeats: int = 1,
    with_limit: bool = False,
) -> dict[str, EngineRunResult]:
    """Run the same burst through the engine under each scheduler, in this process; with repeats, the order
    alternates (A B B A ...) so neither scheduler always runs first, and each figure is the mean over repeats.
    `with_limit` adds `LIMIT_RUN`: the burst's ESI 1 requests alone, under the semantic scheduler, in the same
    rotation (no policy can serve them faster than with nothing else in the engine)."""
    spec = spec or EngineBenchSpec()
    names = [*schedulers, *([LIMIT_RUN] if with_limit else [])]
    runs: dict[str, list[EngineRunResult]] = {name: [] for name in names}
    with tempfile.TemporaryDirectory(prefix="tiny-llama-") as scratch:
        if model_dir is None:
            from scheduler.engines.tiny_models import build_tiny_llama

            model_dir = build_tiny_llama(Path(scratch))
        for repeat in range(repeats):
            order = names if repeat % 2 == 0 else list(reversed(names))
            for name in order:
                if name == LIMIT_RUN:
                    runs[name].append(asyncio.run(_run(model_dir, "semantic", spec, max_level=1)))
                else:
                    runs[name].append(asyncio.run(_run(model_dir, name, spec)))
    return {name: _mean_result(results) for name, results in runs.items()}
