"""A transformers continuous-batching `Scheduler` that orders every step by the semantic key.

transformers (5.19) asks its scheduler for each step's batch through `schedule_batch(token_budget, cache_budget)`
and evicts, after the step, the requests the scheduler left in `starved_requests`, taking them from the end of
that list. This class:
- orders active and waiting requests by `(effective ESI level, estimated remaining seconds, arrival)`;
- keeps prefills of a less urgent level out of the step while the most urgent request decodes (Algorithm 2);
- when the most urgent waiting request cannot get cache blocks, marks the least urgent, longest-remaining active
  requests as starved so the library evicts them after this step (Algorithm 4's victim order), and the urgent
  request gets in at the next step;
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

from scheduler.cost_model import CostModel

DECODING, PREFILLING, PENDING = 2, 1, 0  # transformers' RequestStatus values


@dataclass(slots=True)
class BookEntry:
    """What the scheduler knows of a request beyond the library's state."""

    esi_level: int
    predicted_output_tokens: int
    prompt_tokens: int
    arrival_seq: int
    generated: int = 0


@dataclass(slots=True)
class RequestBook:
    """Thread-safe side table, written by the engine (submit, tokens, overrides), read by the scheduler."""

    entries: dict[str, BookEntry] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _seq: itertools.count[int] = field(default_factory=itertools.count)

    def add(self, request_id: str, esi_level: int, predicted_output_tokens: int, prompt_tokens: int) -> None:
        with self._lock:
            self.entries[request_id] = BookEntry(esi_level, predicted_output_tokens, prompt_tokens, next(self._seq))

    def set_level(self, request_id: str, esi_level: int) -> None:
        with self._lock:
            self.entries[request_id].esi_level = esi_level

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


def make_semantic_scheduler_class(
    book: RequestBook,
    cost_model: CostModel,
    log: DecisionLog,
    held_prefill_share: float = 0.25,
    preempt_for_levels: int = 2,
    limited_preemption: float = 0.8,
) -> type[Any]:
    """A `transformers` Scheduler subclass bound to this engine's book, cost model and decision log.

    `held_prefill_share`: while the most urgent request decodes, less urgent prefills may still use this share of
    the step's token budget (0 = the paper's strict rule). A bounded prefill chunk delays the urgent decode a
    little; leaving the rest of the batch empty costs the engine much more throughput (docs/engines.md).
    `preempt_for_levels`: only a waiting request of ESI 1..this level evicts running ones (evicting for routine
    work wastes computed KV for little gain). `limited_preemption`: a running request past this share of its
    predicted answer is not evicted, except for an ESI 1 request (TRAIL's C, as in the core).
    """
    from transformers.generation.continuous_batching.scheduler import Scheduler

    def key_of(state: Any) -> tuple[float, float, int]:
        entry = book.get(state.request_id)
        if entry is None:  # not submitted through the engine (warmup): least urgent, in arrival order
            return (9.0, 0.0, 0)
        remaining = max(1, entry.predicted_output_tokens - entry.generated)
        prefill = len(state.remaining_prefill_tokens) if state.status != DECODING else 0
        context = state.current_len()
        est = cost_model.extend_s(context, context + prefill) + cost_model.decode_s(context + prefill, remaining)
        return (float(entry.esi_level), est, entry.arrival_seq)

    class SemanticCBScheduler(Scheduler):
        """Orders each continuous-batching step by the semantic key (see the module docstring)."""

        def __init__(self, cache: Any, safety_margin: float | None, max_requests_per_batch: int) -> None:
            # Like FIFO, keep 15 % of the blocks free for running requests to grow into before admitting new ones.
            super().__init__(cache, 0.15 if safety_margin is None else safety_margin, max_requests_per_batch)

        def schedule_batch(self, token_budget: int, cache_budget: int) -> tuple[Any, bool, int, int]:
            active = list(self.active_requests.values())
            waiting = self._get_waiting_candidates()
            log.observe([state.request_id for state in active], [state.request_id for state in waiting])
            keys = {state.request_id: key_of(state) for state in (*active, *waiting)}  # once per step
            if self.block_new_requests and active:
                # After an eviction the library admits nothing new until a request finishes (against thrashing);
                # a waiting request more urgent than a running one is still let in: that is what we evicted for.
                worst_active = max(keys[state.request_id] for state in active)
                waiting = [state for state in waiting if keys[state.request_id] < worst_active]
            # Within one ESI level running requests keep their place (their KV is already paid for); a waiting request
            # goes ahead of running ones only if it is of a more urgent level. Across levels the order is strict.
            active_ids = {state.request_id for state in active}
            keyed = sorted(
                ((keys[state.request_id], state) for state in (*active, *waiting)),
                key=lambda item: (item[0][0], item[1].request_id not in active_ids, item[0][1], item[0][2]),
            )
            held: list[Any] = []
            if keyed and keyed[0][1].status == DECODING:
                level = keyed[0][0][0]
                held = [state for key, state in keyed if state.status != DECODING and key[0] > level]
            held_ids = {state.request_id for state in held}
            ordered = [(key, state) for key, state in keyed if state.request_id not in held_ids]
            victims = self._victims_for_urgent_waiting(ordered)
            victim_ids = {state.request_id for state in victims}
            for victim in victims:
                self._soft_reset(victim)
            candidates = [state for _, state in ordered if state.request_id not in victim_ids]
            to_remove: set[str] = set()
            scheduled, failed, fast_path, q_tokens, kv_read = self._process_candidates(
                candidates, token_budget, cache_budget, to_remove
            )
            starved_list = list(self.starved_requests)
            slots = self.max_requests_per_batch - len(scheduled)
            allowance = min(int(token_budget * held_prefill_share), token_budget - q_tokens)
            if held and slots > 0 and allowance > 0 and not failed:
                # Bounded fill: less urgent prefills take what is left, within the allowance.
                full_slots, self.max_requests_per_batch = self.max_requests_per_batch, slots
                try:
                    more, more_failed, more_fast, more_q, more_kv = self._process_candidates(
                        held, allowance, cache_budget - kv_read, to_remove
                    )
                finally:
                    self.max_requests_per_batch = full_slots
                scheduled = [*scheduled, *more]
                failed, fast_path = failed or more_failed, fast_path and (more_fast or not more)
                q_tokens, kv_read = q_tokens + more_q, kv_read + more_kv
                starved_list += self.starved_requests
                held_ids -= {future.state.request_id for future in more}
            self._cleanup_waiting_queue(to_remove)
            # The library evicts starved requests from the end: put the least urgent last.
            starved = {state.request_id: (state, length) for state, length in starved_list}
            self.starved_requests = sorted(
                starved.values(), key=lambda item: keys.get(item[0].request_id) or key_of(item[0])
            )
            log.record_step(len(scheduled), q_tokens)
            log.victims_total += len(victims)
            if victims:
                log.victim_history = [*log.victim_history[-99:], [state.request_id for state in victims]]
                log.running_at_eviction = [*log.running_at_eviction[-99:], [state.request_id for state in active]]
            if not scheduled and failed:
                return None, fast_path, 0, 0
            return scheduled, fast_path, q_tokens, kv_read

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

        def _victims_for_urgent_waiting(self, ordered: list[tuple[tuple[float, float, int], Any]]) -> list[Any]:
            """Active requests less urgent than the first waiting one that cannot get its blocks, least urgent
            first, until their blocks would cover its need."""
            first_waiting = next(((key, state) for key, state in ordered if state.status == PENDING), None)
            if first_waiting is None:
                return []
            key, state = first_waiting
            if key[0] > preempt_for_levels:
                return []
            need = len(state.remaining_prefill_tokens) or len(state.initial_tokens)
            if self.cache.can_store_request_tokens(state, need, dry_run=True):
                return []
            block = max(1, int(getattr(self.cache, "block_size", 0) or getattr(self.cache, "page_size", 16)))
            allocator = next(iter(self.cache.cache_allocators.values()))
            free_blocks = int(self.cache.compute_free_capacity(relative=False) // allocator.bytes_per_block)
            blocks_needed = -(-need // block) - free_blocks
            victims, freed = [], 0
            for victim_key, victim in reversed(ordered):
                if freed >= blocks_needed or victim_key <= key:
                    break
                entry = book.get(victim.request_id)
                nearly_done = (
                    entry is not None and entry.generated >= limited_preemption * entry.predicted_output_tokens
                )
                if victim.request_id in self.active_requests and (key[0] <= 1 or not nearly_done):
                    victims.append(victim)
                    freed += max(1, -(-victim.current_len() // block))
            return victims

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
