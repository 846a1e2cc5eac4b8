"""`bench engines`: the same workload through the hf and the vllm engine on this machine, at the default model's
shape (random weights), one after the other in one process: which engine the product should embed."""

from __future__ import annotations

import asyncio
import os
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scheduler.bench.engine_bench import ENGINE_BUILDERS, EngineBenchSpec, burst_workload, renamed, run_burst

COMPARE_SPEC = EngineBenchSpec(
    requests=16,
    num_blocks=512,
    max_requests_per_batch=8,
    max_batch_tokens=256,
    vocab_size=5000,
    prompt_tokens=(32, 96),
    answer_tokens=(32, 64),
)
"""A burst small enough for a 494M-parameter model on two cores, a cache that holds it all (this compares the
engines, not the schedulers: both run the semantic one)."""


@dataclass(frozen=True, slots=True)
class EngineFigures:
    """One engine's figures on the workload."""

    tokens_per_s: float
    ttft_p50_ms: float
    ttft_p99_ms: float
    """ESI 1's."""
    start_s: float
    peak_rss_mib: float
    """The peak resident memory of this process and its children while the engine served, less what they held
    before it started (vLLM's model runs in child processes, the hf engine's in this one)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "tokens_per_s": self.tokens_per_s,
            "ttft_p50_ms": {"1": self.ttft_p50_ms},
            "ttft_p99_ms": {"1": self.ttft_p99_ms},
            "start_s": self.start_s,
            "peak_rss_mib": self.peak_rss_mib,
        }


def _tree_rss() -> int:
    """Resident bytes of this process and all its descendants."""
    import psutil

    me = psutil.Process(os.getpid())
    total = 0
    for process in [me, *me.children(recursive=True)]:
        try:
            total += int(process.memory_info().rss)
        except psutil.Error:
            continue
    return total


@contextmanager
def _peak_rss(every_s: float = 0.1) -> Iterator[list[int]]:
    """Sample the process tree's resident memory in a thread; yields [baseline, peak] (bytes), final on exit."""
    figures = [_tree_rss(), 0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(every_s):
            figures[1] = max(figures[1], _tree_rss())

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield figures
    finally:
        done.set()
        thread.join()
        figures[1] = max(figures[1], _tree_rss())


async def _measure(engine_name: str, model_dir: Path, spec: EngineBenchSpec, repeats: int) -> EngineFigures:
    burst = burst_workload(spec)
    engine = ENGINE_BUILDERS[engine_name]("semantic", model_dir, spec)
    with _peak_rss() as memory:
        began = time.monotonic()
        await engine.start()
        start_s = time.monotonic() - began
        try:
            await run_burst(engine, renamed(burst[:4], -1))  # warm-up, not measured
            runs = [await run_burst(engine, renamed(burst, repeat)) for repeat in range(repeats)]
        finally:
            await engine.stop()
    return EngineFigures(
        tokens_per_s=sum(run.tokens_per_s for run in runs) / len(runs),
        ttft_p50_ms=sum(run.ttft_p50_ms["1"] for run in runs) / len(runs),
        ttft_p99_ms=sum(run.ttft_p99_ms["1"] for run in runs) / len(runs),
        start_s=start_s,
        peak_rss_mib=(memory[1] - memory[0]) / (1 << 20),
    )


def compare_engines(
    engines: Sequence[str] = ("hf", "vllm"),
    spec: EngineBenchSpec = COMPARE_SPEC,
    repeats: int = 2,
    model_dir: Path | None = None,
) -> dict[str, EngineFigures]:
    """Build the default model's shape with random weights (unless `model_dir` is given) and measure each engine on
    the same burst, one engine at a time (both at once would share two cores)."""
    with tempfile.TemporaryDirectory(prefix="default-shape-") as scratch:
        if model_dir is None:
            from scheduler.engines.tiny_models import build_random_default_shape

            model_dir = build_random_default_shape(Path(scratch))
        return {name: asyncio.run(_measure(name, model_dir, spec, repeats)) for name in engines}
