"""Scheduling policies behind one interface, chosen by name: semantic and the baselines it is compared with."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from scheduler.indexed_heap import SortKey
from scheduler.request import Request

OrderKey = Callable[[Request, float], SortKey]
"""(request, estimated remaining seconds) -> scheduling key; smaller runs first."""


def _semantic_key(request: Request, est_remaining_s: float) -> SortKey:
    return (request.effective_level, est_remaining_s, request.arrival_seq)


def _fcfs_key(request: Request, est_remaining_s: float) -> SortKey:
    return (request.arrival_seq,)


def _sjf_key(request: Request, est_remaining_s: float) -> SortKey:
    return (est_remaining_s, request.arrival_seq)


def _hpjf_key(request: Request, est_remaining_s: float) -> SortKey:
    return (request.esi_level, request.arrival_seq)


def _vllm_priority_key(request: Request, est_remaining_s: float) -> SortKey:
    # vLLM's Request.__lt__: (priority, arrival_time, request_id); arrival_seq stands in for the id.
    return (request.esi_level, request.arrival_s, request.arrival_seq)


@dataclass(frozen=True, slots=True)
class Policy:
    """How a policy orders, batches, preempts and evicts; the mechanics live in `scheduler.core`."""

    name: str
    order_key: OrderKey
    stage_aware: bool
    """Algorithm 2: hold prefilling candidates back while the most urgent request decodes."""
    waiting_preempts_running: bool
    """Whether a better waiting request may take a running request's slot (continuous re-ranking)."""
    waiting_may_evict: bool
    """Whether admitting a waiting request may evict a less urgent request's KV."""
    offload: bool
    """Whether evictions may offload (cost-model choice) or always recompute."""
    semantic_options: bool
    """Whether limited preemption, the preemption cap, aging and the reserved KV share apply."""


POLICIES: dict[str, Policy] = {
    "semantic": Policy("semantic", _semantic_key, True, True, True, True, True),
    "fcfs": Policy("fcfs", _fcfs_key, False, True, True, True, False),
    "sjf": Policy("sjf", _sjf_key, False, True, True, True, False),
    "hpjf": Policy("hpjf", _hpjf_key, False, True, True, True, False),
    # vLLM 0.32 policy="priority": waiting never preempts running (vllm#40004), only a running request
    # that cannot grow preempts the least urgent, latest-arrived running one, and preemption recomputes.
    "vllm-priority": Policy("vllm-priority", _vllm_priority_key, False, False, False, False, False),
}


def get_policy(name: str) -> Policy:
    """The named policy; an unknown name is an error that lists the known ones."""
    try:
        return POLICIES[name]
    except KeyError:
        raise ValueError(f"unknown scheduling policy {name!r}; known policies: {', '.join(POLICIES)}") from None
