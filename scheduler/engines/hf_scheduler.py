"""A transformers continuous-batching `Scheduler` that orders every step by the semantic key.

transformers (5.19) asks its scheduler for each step's batch through `schedule_batch(token_budget, cache_budget)`
and evicts, after the step, the requests the scheduler left in `starved_requests`, taking them from the end of
that list. This class:
- orders active and waiting requests by the policy's scheduling key (`scheduler.policy`, recomputed every step, so
  aging and deadline windows apply);
- keeps prefills of a later band out of the step while the most urgent request decodes (Algorithm 2);
- when the most urgent waiting request cannot get cache blocks, evicts the victims `policy.eviction_victims` names
  (Algorithm 4's order), and the urgent request gets in at the next step;
- keeps `starved_requests` sorted so that the least urgent is last (the library's first victim).
Per-request facts (ESI level, predicted length) live in a `RequestBook` shared with the engine, because the
library's request state has no room for them and is rebuilt when a request is evicted.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from scheduler.cost_model import CostModel, estimate_remaining_s
from scheduler.policy import (
    DEFAULT_POLICY,
    KeyView,
    Policy,
    PolicyOptions,
    Resident,
    SortKey,
    defers_prefills,
    eviction_victims,
    get_policy,
    is_protected,
)

DECODING, PREFILLING, PENDING = 2, 1, 0  # transformers' RequestStatus values


@dataclass(slots=True)
class BookEntry:
    """What the scheduler knows of a request beyond the library's state."""

    esi_level: int
    predicted_output_tokens: int
    prompt_tokens: int
    arrival_seq: int
    since_s: float
    """When aging and the deadline started counting (monotonic seconds): submission, or the last override."""
    generated: int = 0


@dataclass(slots=True)
class RequestBook:
    """Thread-safe side table, written by the engine (submit, tokens, overrides), read by the scheduler."""

    entries: dict[str, BookEntry] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _seq: itertools.count[int] = field(default_factory=itertools.count)

    def add(self, request_id: str, esi_level: int, predicted_output_tokens: int, prompt_tokens: int) -> None:
        with self._lock:
            self.entries[request_id] = BookEntry(
                esi_level, predicted_output_tokens, prompt_tokens, next(self._seq), time.monotonic()
            )

    def set_level(self, request_id: str, esi_level: int) -> None:
        with self._lock:
            entry = self.entries[request_id]
            entry.esi_level, entry.since_s = esi_level, time.monotonic()

    def set_generated(self, request_id: str, generated: int) -> None:
        with self._lock:
            entry = self.entries.get(request_id)
            if entry is not None:
                entry.generated = generated

    def remove(self, request_id: str) -> None:
        with self._lock:
            self.entries.pop(request_id, None)

    def get(self, request_id: str) -> BookEntry | None:
        with self._lock:
            return self.entries.get(request_id)


@dataclass(slots=True)
class DecisionLog:
    """Every step's decision, for stats and for tests that prove each step went through the policy."""

    decisions: int = 0
    first_step_s: float = 0.0
    last_step_s: float = 0.0
    victims_total: int = 0
    victim_history: list[list[str]] = field(default_factory=list)
    """Victim lists of the steps that chose any, in order (kept short: the last 100)."""
    running_at_eviction: list[list[str]] = field(default_factory=list)
    """For each entry of `victim_history`, the requests that were running when the victims were chosen."""
    scheduled_total: int = 0
    """Request-steps scheduled (divided by `decisions`: the mean batch size)."""
    tokens_total: int = 0
    """Query tokens scheduled over all steps."""
    evictions: int = 0
    """Requests the library sent back to waiting after they had been running (offloaded or reset)."""
    seen_active: set[str] = field(default_factory=set)
    evicted: Counter[str] = field(default_factory=Counter)
    """Evictions per request still in the engine (the engine pops a request's count when it finishes)."""

    @property
    def mean_step_s(self) -> float:
        """Mean time between two steps of the engine (0 before the second step)."""
        return (self.last_step_s - self.first_step_s) / (self.decisions - 1) if self.decisions > 1 else 0.0

    def record_step(self, scheduled: int, q_tokens: int) -> None:
        """Count one decision, what it scheduled, and when."""
        now = time.monotonic()
        if not self.decisions:
            self.first_step_s = now
        self.last_step_s = now
        self.decisions += 1
        self.scheduled_total += scheduled
        self.tokens_total += q_tokens

    def observe(self, active_ids: list[str], waiting_ids: list[str]) -> None:
        """Count evictions: a request seen running that is waiting again was evicted since the last step."""
        for request_id in waiting_ids:
            if request_id in self.seen_active:
                self.evictions += 1
                self.evicted[request_id] += 1
        # Only requests still known to the library are remembered (finished ones drop out).
        self.seen_active = set(active_ids)


def state_key(
    book: RequestBook, cost_model: CostModel, policy: Policy, options: PolicyOptions, state: Any, now_s: float
) -> SortKey:
    """The policy's key for a library request state: its book entry, and its remaining prefill and decode."""
    entry = book.get(state.request_id)
    if entry is None:  # not submitted through the engine (warmup): least urgent, in arrival order
        return (9.0, 0.0, 5, 0)
    remaining = max(1, entry.predicted_output_tokens - entry.generated)
    prefill = len(state.remaining_prefill_tokens) if state.status != DECODING else 0
    context = state.current_len()
    est = estimate_remaining_s(cost_model, context + prefill, remaining, cached_tokens=context)
    view = KeyView(entry.esi_level, est, entry.arrival_seq, entry.since_s, entry.since_s)
    return policy.key(view, options, now_s)


@dataclass(slots=True)
class _Fill:
    """What `_process_candidates` placed in the step so far."""

    scheduled: list[Any]
    failed: bool
    fast_path: bool
    q_tokens: int
    kv_read: int


class SemanticSteps:
    """The semantic step decision, mixed into a subclass of the library's `Scheduler` (`make_semantic_scheduler_class`),
    which supplies the library's state and helpers (`active_requests`, `_process_candidates`, ...) and the bindings."""

    book: RequestBook
    cost_model: CostModel
    log: DecisionLog
    policy: Policy
    options: PolicyOptions
    # The library's, declared for the type checker.
    active_requests: Any
    block_new_requests: bool
    starved_requests: Any
    max_requests_per_batch: int
    cache: Any
    _get_waiting_candidates: Any
    _process_candidates: Any
    _cleanup_waiting_queue: Any
    finish_request: Any
    add_waiting_request: Any

    def key_of(self, state: Any) -> SortKey:
        return state_key(self.book, self.cost_model, self.policy, self.options, state, time.monotonic())

    def schedule_batch(self, token_budget: int, cache_budget: int) -> tuple[Any, bool, int, int]:
        active = list(self.active_requests.values())
        waiting = self._get_waiting_candidates()
        self.log.observe([state.request_id for state in active], [state.request_id for state in waiting])
        keys = {state.request_id: self.key_of(state) for state in (*active, *waiting)}  # once per step
        ordered, held = self._ordered(active, waiting, keys)
        victims = self._victims_for_urgent_waiting(ordered)
        victim_ids = {state.request_id for state in victims}
        for victim in victims:
            self._soft_reset(victim)
        candidates = [state for _, state in ordered if state.request_id not in victim_ids]
        to_remove: set[str] = set()
        fill = _Fill(*self._process_candidates(candidates, token_budget, cache_budget, to_remove))
        starved_list = list(self.starved_requests)
        if held:
            starved_list += self._bounded_fill(fill, held, token_budget, cache_budget, to_remove)
        self._cleanup_waiting_queue(to_remove)
        # The library evicts starved requests from the end: put the least urgent last.
        starved = {state.request_id: (state, length) for state, length in starved_list}
        self.starved_requests = sorted(
            starved.values(), key=lambda item: keys.get(item[0].request_id) or self.key_of(item[0])
        )
        self._record(fill, victims, active)
        if not fill.scheduled and fill.failed:
            return None, fill.fast_path, 0, 0
        return fill.scheduled, fill.fast_path, fill.q_tokens, fill.kv_read

    def _ordered(
        self, active: list[Any], waiting: list[Any], keys: dict[str, SortKey]
    ) -> tuple[list[tuple[SortKey, Any]], list[Any]]:
        """The step's candidates in order, and the prefills held back for an urgent decode (stage awareness)."""
        if self.block_new_requests and active:
            # After an eviction the library admits nothing new until a request finishes (against thrashing);
            # a waiting request more urgent than a running one is still let in: that is what we evicted for.
            worst_active = max(keys[state.request_id] for state in active)
            waiting = [state for state in waiting if keys[state.request_id] < worst_active]
        # Within one band running requests keep their place (their KV is already paid for); a waiting request goes
        # ahead of running ones only if it is of an earlier band (under semantic-strict: a more urgent level).
        active_ids = {state.request_id for state in active}
        keyed = sorted(
            ((keys[state.request_id], state) for state in (*active, *waiting)),
            key=lambda item: (item[0][0], item[1].request_id not in active_ids, item[0][1], item[0][2]),
        )
        if not keyed or keyed[0][1].status != DECODING:
            return keyed, []
        band = keyed[0][0][0]
        held = [state for key, state in keyed if state.status != DECODING and defers_prefills(band, True, key[0])]
        held_ids = {state.request_id for state in held}
        return [(key, state) for key, state in keyed if state.request_id not in held_ids], held

    def _bounded_fill(
        self, fill: _Fill, held: list[Any], token_budget: int, cache_budget: int, to_remove: set[str]
    ) -> list[Any]:
        """Held prefills take what is left of the step, within `held_prefill_share`; returns their starved list."""
        slots = self.max_requests_per_batch - len(fill.scheduled)
        allowance = min(int(token_budget * self.options.held_prefill_share), token_budget - fill.q_tokens)
        if slots <= 0 or allowance <= 0 or fill.failed:
            return []
        full_slots, self.max_requests_per_batch = self.max_requests_per_batch, slots
        try:
            more = _Fill(*self._process_candidates(held, allowance, cache_budget - fill.kv_read, to_remove))
        finally:
            self.max_requests_per_batch = full_slots
        fill.scheduled = [*fill.scheduled, *more.scheduled]
        fill.failed = fill.failed or more.failed
        fill.fast_path = fill.fast_path and (more.fast_path or not more.scheduled)
        fill.q_tokens, fill.kv_read = fill.q_tokens + more.q_tokens, fill.kv_read + more.kv_read
        return list(self.starved_requests)

    def _record(self, fill: _Fill, victims: list[Any], active: list[Any]) -> None:
        log = self.log
        log.record_step(len(fill.scheduled), fill.q_tokens)
        log.victims_total += len(victims)
        if victims:
            log.victim_history = [*log.victim_history[-99:], [state.request_id for state in victims]]
            log.running_at_eviction = [*log.running_at_eviction[-99:], [state.request_id for state in active]]

    def _soft_reset(self, state: Any) -> None:
        """Evict a running request now, the way the library's own eviction does without CPU offload: free its
        blocks and queue an equivalent request (prompt + tokens so far) that recomputes on resume. A decoding
        victim needs no new block for its next token, so marking it starved would never get it evicted."""
        from transformers.generation.continuous_batching.requests import RequestStatus

        replacement = state.create_equivalent_initial_request()
        state._status = RequestStatus.FINISHED  # bypass the setter, as the library does, to skip lifespan logs
        self.finish_request(state.request_id)
        self.add_waiting_request(replacement)
        self.block_new_requests = True

    def _victims_for_urgent_waiting(self, ordered: list[tuple[SortKey, Any]]) -> list[Any]:
        """The running requests to evict so that the first waiting one gets its blocks (`policy.eviction_victims`:
        least urgent first, later keys only, pins kept except for ESI 1); none if they would not be enough."""
        first_waiting = next(((key, state) for key, state in ordered if state.status == PENDING), None)
        if first_waiting is None:
            return []
        key, state = first_waiting
        entry = self.book.get(state.request_id)
        level = entry.esi_level if entry is not None else 5
        if level > self.options.evict_for_levels:
            return []
        need = len(state.remaining_prefill_tokens) or len(state.initial_tokens)
        if self.cache.can_store_request_tokens(state, need, dry_run=True):
            return []
        block = max(1, int(getattr(self.cache, "block_size", 0) or getattr(self.cache, "page_size", 16)))
        allocator = next(iter(self.cache.cache_allocators.values()))
        free_blocks = int(self.cache.compute_free_capacity(relative=False) // allocator.bytes_per_block)
        # Only requests of a later band are victims (as vLLM preempts): an eviction here is a recompute on the CPU,
        # and within a band (under `semantic`, ESI 2-5 by weighted remaining work) it cost 13 % of the throughput.
        residents = [
            self._resident(victim_key, victim, block)
            for victim_key, victim in ordered
            if victim.request_id in self.active_requests and victim_key[0] > key[0]
        ]
        chosen = set(eviction_victims(key, level, residents, -(-need // block) - free_blocks))
        return [victim for _, victim in ordered if victim.request_id in chosen]

    def _resident(self, key: SortKey, state: Any, block: int) -> Resident:
        entry = self.book.get(state.request_id)
        protected = entry is not None and is_protected(
            self.options, entry.generated, entry.predicted_output_tokens, self.log.evicted[state.request_id]
        )
        return Resident(state.request_id, key, max(1, -(-state.current_len() // block)), protected)


def make_semantic_scheduler_class(
    book: RequestBook,
    cost_model: CostModel,
    log: DecisionLog,
    policy_name: str = DEFAULT_POLICY,
    options: PolicyOptions | None = None,
) -> type[Any]:
    """A `transformers` Scheduler subclass bound to this engine's book, cost model, decision log and policy.

    From the policy's options: `held_prefill_share` (while the most urgent request decodes, prefills of a later band
    may still use this share of the step's token budget; 0 = the paper's strict rule: a bounded prefill chunk delays
    the urgent decode a little, leaving the rest of the batch empty costs the engine much more throughput,
    docs/engines.md); `evict_for_levels` (only a waiting request of ESI 1..this level evicts running ones: evicting
    for routine work wastes computed KV for little gain); limited preemption and the preemption cap
    (`policy.is_protected`).
    """
    from transformers.generation.continuous_batching.scheduler import Scheduler

    class SemanticCBScheduler(SemanticSteps, Scheduler):
        """Orders each continuous-batching step by the semantic key (see the module docstring)."""

        def __init__(self, cache: Any, safety_margin: float | None, max_requests_per_batch: int) -> None:
            # Like FIFO, keep 15 % of the blocks free for running requests to grow into before admitting new ones.
            super().__init__(cache, 0.15 if safety_margin is None else safety_margin, max_requests_per_batch)

    SemanticCBScheduler.book, SemanticCBScheduler.cost_model, SemanticCBScheduler.log = book, cost_model, log
    SemanticCBScheduler.policy, SemanticCBScheduler.options = get_policy(policy_name), options or PolicyOptions()
    return SemanticCBScheduler


def make_counting_fifo_class(log: DecisionLog) -> type[Any]:
    """The library's FIFOScheduler, unchanged, but counting steps and evictions the same way (for comparisons)."""
    from transformers.generation.continuous_batching.scheduler import FIFOScheduler

    class CountingFIFOScheduler(FIFOScheduler):
        """FIFOScheduler with the same step and eviction counters as ours."""

        def schedule_batch(self, token_budget: int, cache_budget: int) -> tuple[Any, bool, int, int]:
            log.observe(list(self.active_requests), list(self.waiting_requests_order))
            result: tuple[Any, bool, int, int] = super().schedule_batch(token_budget, cache_budget)
            log.record_step(len(result[0] or []), result[2])
            return result

    return CountingFIFOScheduler


def register_scheduler(name: str, scheduler_cls: type[Any]) -> None:
    """Make `scheduler_cls` available to transformers under `name` (its SCHEDULER_MAPPING)."""
    from transformers.generation.continuous_batching.scheduler import SCHEDULER_MAPPING

    SCHEDULER_MAPPING[name] = scheduler_cls
