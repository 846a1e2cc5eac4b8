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
from collections.abc import Callable
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
    last_order: list[str] = field(default_factory=list)
    last_held: list[str] = field(default_factory=list)
    last_victims: list[str] = field(default_factory=list)
    victims_total: int = 0


def make_semantic_scheduler_class(book: RequestBook, cost_model: CostModel, log: DecisionLog) -> type[Any]:
    """A `transformers` Scheduler subclass bound to this engine's book, cost model and decision log."""
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
            super().__init__(cache, 0.0 if safety_margin is None else safety_margin, max_requests_per_batch)

        def schedule_batch(self, token_budget: int, cache_budget: int) -> tuple[Any, bool, int, int]:
            active = list(self.active_requests.values())
            waiting = [] if self.block_new_requests else self._get_waiting_candidates()
            keyed = sorted(((key_of(state), state) for state in (*active, *waiting)), key=lambda item: item[0])
            held: list[Any] = []
            if keyed and keyed[0][1].status == DECODING:
                level = keyed[0][0][0]
                held = [state for key, state in keyed if state.status != DECODING and key[0] > level]
            held_ids = {state.request_id for state in held}
            ordered = [(key, state) for key, state in keyed if state.request_id not in held_ids]
            victims = self._victims_for_urgent_waiting(ordered)
            victim_ids = {state.request_id for state in victims}
            candidates = [state for _, state in ordered if state.request_id not in victim_ids]
            to_remove: set[str] = set()
            scheduled, failed, fast_path, q_tokens, kv_read = self._process_candidates(
                candidates, token_budget, cache_budget, to_remove
            )
            self._cleanup_waiting_queue(to_remove)
            # The library evicts starved requests from the end: put the least urgent last.
            starved = {state.request_id: (state, length) for state, length in self.starved_requests}
            for state in victims:
                starved.setdefault(state.request_id, (state, len(state.tokens_to_process) or 1))
            self.starved_requests = sorted(starved.values(), key=lambda item: key_of(item[0]))
            log.decisions += 1
            log.last_order = [state.request_id for state in candidates]
            log.last_held = sorted(held_ids)
            log.last_victims = [state.request_id for state in victims]
            log.victims_total += len(victims)
            if not scheduled and failed:
                return None, fast_path, 0, 0
            return scheduled, fast_path, q_tokens, kv_read

        def _victims_for_urgent_waiting(self, ordered: list[tuple[tuple[float, float, int], Any]]) -> list[Any]:
            """Active requests less urgent than the first waiting one that cannot get its blocks, least urgent
            first, until their blocks would cover its need."""
            first_waiting = next(((key, state) for key, state in ordered if state.status == PENDING), None)
            if first_waiting is None:
                return []
            key, state = first_waiting
            need = len(state.remaining_prefill_tokens) or len(state.initial_tokens)
            if self.cache.can_store_request_tokens(state, need):
                return []
            block = max(1, int(getattr(self.cache, "block_size", 0) or getattr(self.cache, "page_size", 16)))
            blocks_needed = -(-need // block)
            victims, freed = [], 0
            for victim_key, victim in reversed(ordered):
                if freed >= blocks_needed or victim_key <= key:
                    break
                if victim.request_id in self.active_requests:
                    victims.append(victim)
                    freed += max(1, -(-victim.current_len() // block))
            return victims

    return SemanticCBScheduler


Registrar = Callable[[str, type[Any]], None]


def register_scheduler(name: str, scheduler_cls: type[Any]) -> None:
    """Make `scheduler_cls` available to transformers under `name` (its SCHEDULER_MAPPING)."""
    from transformers.generation.continuous_batching.scheduler import SCHEDULER_MAPPING

    SCHEDULER_MAPPING[name] = scheduler_cls
