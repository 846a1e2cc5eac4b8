"""One trace of arrivals, an override and a finish, through the core and every adapter: the same order and victims."""

from __future__ import annotations

import itertools
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import redis

from scheduler.bench.vllm_sim import build_scheduler, fake_output, make_request
from scheduler.cost_model import get_profile
from scheduler.engines.hf_scheduler import PENDING, RequestBook, state_key
from scheduler.engines.vllm_scheduler import SemanticVLLMScheduler, semantic_priority
from scheduler.policy import KeyView, PolicyOptions, Resident, eviction_victims, get_policy
from scheduler.redis_heap import RedisSemanticHeap
from scheduler.sim.config import SchedulerConfig
from scheduler.sim.core import Scheduler
from scheduler.sim.request import Request

COST = get_profile("a100-qwen1.5-4b")
OPTIONS = PolicyOptions(aging_interval_s=None, limited_preemption=None, max_preemptions=None, reserved_kv_share=0.0)

# (id, ESI level, prompt tokens, predicted answer tokens), in arrival order; sizes far enough apart that the
# millisecond encoding never ties two requests the core tells apart.
TRACE = [
    ("a", 3, 40, 300),
    ("b", 2, 30, 400),
    ("c", 5, 20, 10),
    ("d", 1, 60, 200),
    ("e", 4, 50, 90),
    ("f", 2, 10, 25),
    ("g", 3, 25, 5),
    ("h", 5, 45, 480),
]
OVERRIDE = ("e", 1)  # a dispatcher raises e to ESI 1
FINISHED = "c"  # answered (or withdrawn) before the step


def levels_after_trace() -> dict[str, int]:
    levels = {name: level for name, level, _, _ in TRACE}
    levels[OVERRIDE[0]] = OVERRIDE[1]
    del levels[FINISHED]
    return levels


def core_order(policy: str) -> list[str]:
    config = SchedulerConfig(kv_capacity_tokens=1 << 16, max_batch_size=len(TRACE), block_size=16, options=OPTIONS)
    core = Scheduler(policy, config, COST)
    for name, level, prompt, predicted in TRACE:
        core.add_request(Request(name, level, prompt, predicted, predicted, 0))
    core.override(*OVERRIDE)
    core.abort(FINISHED)
    core.drain_buffer()
    return core.schedule().request_ids  # a step that fits everyone lists it in the policy's order


def redis_order(redis_url: str, policy: str, prefix: str) -> list[str]:
    heap = RedisSemanticHeap(redis.Redis.from_url(redis_url), prefix=prefix, policy=policy, options=OPTIONS)
    for arrival, (name, level, prompt, predicted) in enumerate(TRACE):
        heap.push(name, level, COST.prefill_s(prompt) + COST.decode_s(prompt, predicted), arrival)
    heap.override(*OVERRIDE)
    heap.remove(FINISHED)
    return [item.incident_id for item in iter(lambda: heap.pop_lease("test", 30.0), None)]


def vllm_order(policy: str) -> list[str]:
    levels = levels_after_trace()
    requests = [
        make_request(name, prompt, predicted, semantic_priority(levels[name], prompt, predicted, COST, policy), t)
        for t, (name, _, prompt, predicted) in enumerate(TRACE)
        if name in levels
    ]
    return [request.request_id for request in sorted(requests)]  # vLLM's own Request.__lt__


def hf_order(policy: str) -> list[str]:
    book = RequestBook()
    states = []
    for name, level, prompt, predicted in TRACE:
        book.add(name, level, predicted, prompt)
        states.append(SimpleNamespace(request_id=name, status=PENDING, remaining_prefill_tokens=[0] * prompt))
        states[-1].current_len = lambda: 0
    book.set_level(*OVERRIDE)
    book.remove(FINISHED)
    live = [state for state in states if book.get(state.request_id) is not None]
    keys = {state.request_id: state_key(book, COST, get_policy(policy), OPTIONS, state, 0.0) for state in live}
    return sorted(keys, key=lambda name: keys[name])


_prefixes = itertools.count()


@pytest.mark.parametrize("policy", ["semantic", "semantic-strict"])
def test_one_trace_is_ordered_the_same_by_the_core_redis_vllm_and_transformers(redis_url: str, policy: str) -> None:
    expected = core_order(policy)
    assert redis_order(redis_url, policy, f"one-policy-{next(_prefixes)}") == expected
    assert vllm_order(policy) == expected
    assert hf_order(policy) == expected


def test_the_semantic_order_of_the_trace_is_esi_1_then_weighted_remaining_work() -> None:
    # e (overridden) and d are ESI 1, shortest first. Below ESI 1 remaining work divided by the level's weight
    # (2: 4, 3: 2, 5: 1) decides: g (ESI 3, 5 tokens) before f (ESI 2, 25), and b (ESI 2, 400) before a (ESI 3, 300).
    assert core_order("semantic") == ["e", "d", "g", "f", "b", "a", "h"]
    assert core_order("semantic-strict") == ["e", "d", "f", "b", "g", "a", "h"]


def running_then_urgent_core() -> tuple[list[str], list[Resident]]:
    """Four requests fill the KV; an ESI 1 request needs two of them gone. The core's victims, and its residents."""
    config = SchedulerConfig(kv_capacity_tokens=256, max_batch_size=5, block_size=16, options=OPTIONS)
    core = Scheduler("semantic", config, COST)
    for name, level, predicted in (("r2", 2, 60), ("r3", 3, 50), ("r4", 4, 40), ("r5", 5, 30)):
        core.add_request(Request(name, level, 64, predicted, predicted, 0))
    core.drain_buffer()
    core.update_from_step(core.schedule())
    residents = [
        Resident(name, core.order_key(request), config.blocks_for(request.kv_device_tokens), False)
        for name, request in core.requests.items()
    ]
    core.add_request(Request("urgent", 1, 100, 10, 10, 0))
    core.drain_buffer()
    return [eviction.request_id for eviction in core.schedule().evictions], residents


def test_the_core_and_the_engines_victim_choice_evict_the_same_requests() -> None:
    core_victims, residents = running_then_urgent_core()
    urgent = KeyView(esi_level=1, est_remaining_s=COST.prefill_s(100) + COST.decode_s(100, 10), arrival_seq=4)
    urgent_key = get_policy("semantic").key(urgent, OPTIONS, 0.0)
    free_blocks = 256 // 16 - sum(resident.blocks for resident in residents)
    needed = -(-100 // 16) - free_blocks
    assert core_victims == ["r5", "r4"]
    assert eviction_victims(urgent_key, 1, residents, needed) == core_victims


def test_vllm_preempts_the_same_victims_for_the_urgent_request(tmp_path: Path) -> None:
    # As in the core: 16 blocks of KV (plus vLLM's null block), four running, an ESI 1 prompt needing 7.
    scheduler: Any = build_scheduler(SemanticVLLMScheduler, tmp_path, max_num_seqs=4, num_blocks=16 + 1)
    for t, (name, level, predicted) in enumerate((("r2", 2, 60), ("r3", 3, 50), ("r4", 4, 40), ("r5", 5, 30))):
        scheduler.add_request(make_request(name, 64, predicted, semantic_priority(level, 64, predicted, COST), t))
    fake_output(scheduler, scheduler.schedule())
    scheduler.add_request(make_request("urgent", 100, 10, semantic_priority(1, 100, 10, COST), 10.0))
    output = scheduler.schedule()
    assert set(output.preempted_req_ids) == {"r5", "r4"}
    assert "urgent" in output.num_scheduled_tokens


def test_strict_max_level_2_puts_every_esi_2_request_before_esi_3_to_5_whatever_its_work() -> None:
    from scheduler.policy import KeyView, PolicyOptions, get_policy

    semantic = get_policy("semantic")
    long_esi2 = KeyView(esi_level=2, est_remaining_s=400.0, arrival_seq=1)
    short_esi3 = KeyView(esi_level=3, est_remaining_s=1.0, arrival_seq=2)
    short_esi1 = KeyView(esi_level=1, est_remaining_s=900.0, arrival_seq=3)
    weighted, strict = PolicyOptions(), PolicyOptions(strict_max_level=2)
    assert semantic.key(short_esi3, weighted, 0.0) < semantic.key(long_esi2, weighted, 0.0)  # the default
    order = sorted([long_esi2, short_esi3, short_esi1], key=lambda view: semantic.key(view, strict, 0.0))
    assert [view.esi_level for view in order] == [1, 2, 3]
