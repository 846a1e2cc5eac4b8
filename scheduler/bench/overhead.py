"""Time one scheduling decision (batch selection + eviction) against queue size, heap vs sorted list."""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from scheduler.bench.sorted_list import SortedListQueue
from scheduler.cost_model import get_profile
from scheduler.indexed_heap import IndexedHeap, KeyedQueue
from scheduler.sim.config import SchedulerConfig
from scheduler.sim.core import Scheduler
from scheduler.sim.request import Request

DEFAULT_SIZES = (1_000, 10_000, 100_000)


@dataclass(frozen=True, slots=True)
class OverheadResult:
    """Median microseconds per decision for each queue, and the evictions the decisions made."""

    waiting: int
    semantic_us: float
    baseline_us: float
    evictions_per_decision: float


def _random_request(index: int, rng: random.Random, esi_level: int | None = None) -> Request:
    return Request(
        request_id=f"q{index}",
        esi_level=esi_level or rng.randint(1, 5),
        prompt_tokens=rng.randint(1, 499),
        predicted_output_tokens=rng.randint(1, 499) if esi_level is None else rng.randint(1, 50),
        max_output_tokens=500,
        arrival_seq=0,
    )


def _time_decisions(
    waiting: int, decisions: int, heap_factory: Callable[[], KeyedQueue], seed: int
) -> tuple[float, float]:
    """Fill a scheduler with `waiting` requests, then time `decisions` calls of schedule() (median, us)."""
    rng = random.Random(seed)
    config = SchedulerConfig(kv_capacity_tokens=4_096, max_batch_size=16)
    scheduler = Scheduler("semantic", config, get_profile("a100-qwen1.5-4b"), heap_factory=heap_factory)
    for index in range(waiting):
        scheduler.add_request(_random_request(index, rng))
    scheduler.drain_buffer()
    now_s = 0.0
    samples: list[float] = []
    evictions = 0
    for step in range(decisions + 10):
        # A short ESI-1 arrival every step displaces a running request, so resident KV piles up and the
        # decision has to evict: the timing covers batch selection and eviction.
        scheduler.add_request(_random_request(waiting + step, rng, esi_level=1), now_s)
        scheduler.drain_buffer()
        started = time.perf_counter_ns()
        plan = scheduler.schedule(now_s)
        elapsed = time.perf_counter_ns() - started
        scheduler.update_from_step(plan)
        now_s += 0.012
        if step >= 10:  # the first steps fill the batch and the KV cache
            samples.append(elapsed / 1_000)
            evictions += len(plan.evictions)
    return statistics.median(samples), evictions / decisions


def run_overhead(sizes: Sequence[int] = DEFAULT_SIZES, decisions: int = 300, seed: int = 0) -> list[OverheadResult]:
    """For each queue size, the semantic scheduler's decision time with its heap and with a sorted list."""
    results = []
    for waiting in sizes:
        semantic_us, evictions = _time_decisions(waiting, decisions, IndexedHeap, seed)
        baseline_us, _ = _time_decisions(waiting, decisions, SortedListQueue, seed)
        results.append(OverheadResult(waiting, semantic_us, baseline_us, evictions))
    return results
