"""Our vLLM scheduler against the real vLLM 0.32 scheduler code, with faked model outputs (as vLLM's tests do)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("vllm", reason="the vllm extra is installed by `make test`")

from vllm.v1.core.sched.scheduler import Scheduler

from scheduler.bench.vllm_sim import build_scheduler, burst_after_fill, fake_output, make_request, run_workload
from scheduler.cost_model import get_profile
from scheduler.engines.vllm_scheduler import (
    PRIORITY_SCALE,
    SemanticVLLMAsyncScheduler,
    SemanticVLLMScheduler,
    semantic_priority,
)


def prio(level: int, remaining_ms: int = 0) -> int:
    return level * PRIORITY_SCALE + remaining_ms


def step(scheduler: Any) -> Any:
    output = scheduler.schedule()
    scheduler.update_from_output(output, fake_output(scheduler, output))
    return output


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("vllm")


def full_batch(cls: Any, workdir: Path, **sizes: int) -> Any:
    """Two ESI 5 requests decoding in a batch of two."""
    scheduler = build_scheduler(cls, workdir, max_num_seqs=2, **sizes)
    scheduler.add_request(make_request("low-short", 10, 30, prio(5, 100), 0.0, 30))
    scheduler.add_request(make_request("low-long", 10, 30, prio(5, 900), 0.1, 30))
    step(scheduler)
    step(scheduler)
    return scheduler


def test_stock_priority_leaves_an_urgent_request_waiting_behind_a_full_batch(workdir: Path) -> None:
    scheduler = full_batch(Scheduler, workdir)
    scheduler.add_request(make_request("urgent", 10, 5, prio(1), 1.0, 5))
    for _ in range(5):
        output = step(scheduler)
        assert set(output.num_scheduled_tokens) == {"low-short", "low-long"}  # vllm#40004


def test_semantic_preempts_the_least_urgent_longest_running_request_at_the_next_step(workdir: Path) -> None:
    scheduler = full_batch(SemanticVLLMScheduler, workdir)
    scheduler.add_request(make_request("urgent", 10, 5, prio(1), 1.0, 5))
    output = step(scheduler)
    assert set(output.num_scheduled_tokens) == {"low-short", "urgent"}
    assert set(output.preempted_req_ids) == {"low-long"}
    assert scheduler.requests["low-long"].num_preemptions == 1


def test_limited_preemption_keeps_a_nearly_done_request_except_for_esi_1(workdir: Path) -> None:
    for level, expected in [(2, {"low-short", "low-long"}), (1, {"low-short", "urgent"})]:
        scheduler = build_scheduler(SemanticVLLMScheduler, workdir, max_num_seqs=2)
        scheduler.add_request(make_request("low-short", 10, 30, prio(5, 100), 0.0, 30))
        scheduler.add_request(make_request("low-long", 10, 30, prio(5, 900), 0.1, 4))  # predicted 4, runs on
        for _ in range(6):
            step(scheduler)
        scheduler.add_request(make_request("urgent", 10, 5, prio(level), 1.0, 5))
        scheduler.add_request(make_request("other", 10, 30, prio(5, 50), 0.2, 30))
        output = step(scheduler)
        # low-long is past 80 % of its predicted 4 tokens: protected from ESI 2, not from ESI 1;
        # low-short is not protected, so ESI 2 takes its place instead.
        if level == 2:
            assert set(output.preempted_req_ids) == {"low-short"}
        else:
            assert set(output.num_scheduled_tokens) == expected


def test_stage_awareness_defers_less_urgent_prefills_while_the_urgent_request_decodes(workdir: Path) -> None:
    scheduler = build_scheduler(SemanticVLLMScheduler, workdir, max_num_seqs=4)
    scheduler.add_request(make_request("urgent", 10, 20, prio(1), 0.0, 20))
    step(scheduler)
    scheduler.add_request(make_request("routine", 40, 20, prio(4), 0.5, 20))
    output = step(scheduler)
    assert set(output.num_scheduled_tokens) == {"urgent"}
    stock = build_scheduler(Scheduler, workdir, max_num_seqs=4)
    stock.add_request(make_request("urgent", 10, 20, prio(1), 0.0, 20))
    step(stock)
    stock.add_request(make_request("routine", 40, 20, prio(4), 0.5, 20))
    assert set(step(stock).num_scheduled_tokens) == {"urgent", "routine"}


def test_priority_encodes_level_then_remaining_work() -> None:
    cost = get_profile("a100-qwen1.5-4b")
    short, long = semantic_priority(2, 50, 20, cost), semantic_priority(2, 50, 400, cost)
    assert short < long < semantic_priority(3, 10, 1, cost)
    assert short // PRIORITY_SCALE == 2
    with pytest.raises(ValueError, match=r"1\.\.5"):
        semantic_priority(6, 1, 1, cost)


@pytest.mark.parametrize("cls", [SemanticVLLMScheduler, SemanticVLLMAsyncScheduler])
def test_a_whole_workload_finishes_and_urgent_requests_start_at_once(cls: Any, workdir: Path) -> None:
    arrivals = burst_after_fill(30, seed=3)
    cost = get_profile("a100-qwen1.5-4b")
    result = run_workload(cls, arrivals, cost=cost, workdir=workdir)
    stock = run_workload(Scheduler, arrivals, cost=cost, workdir=workdir)
    assert result.finished == stock.finished == 30
    assert max(result.ttft_steps["1"]) < max(stock.ttft_steps["1"])


def test_a_request_without_our_priority_counts_as_esi_5_and_preempts_nothing(workdir: Path) -> None:
    scheduler = full_batch(SemanticVLLMScheduler, workdir)
    scheduler.add_request(make_request("plain", 10, 5, 0, 1.0))  # vLLM's default priority
    output = step(scheduler)
    assert not output.preempted_req_ids
    assert set(output.num_scheduled_tokens) == {"low-short", "low-long"}


def test_prefills_are_deferred_for_a_bounded_number_of_steps(workdir: Path) -> None:
    scheduler = build_scheduler(SemanticVLLMScheduler, workdir, max_num_seqs=4)
    scheduler.add_request(make_request("urgent", 10, 50, prio(1), 0.0, 50))
    step(scheduler)
    scheduler.add_request(make_request("routine", 40, 20, prio(4), 0.5, 20))
    first_routine_step = next(n for n in range(1, 20) if "routine" in step(scheduler).num_scheduled_tokens)
    assert first_routine_step == SemanticVLLMScheduler.max_deferred_steps + 1
