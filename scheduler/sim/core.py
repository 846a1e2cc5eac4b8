"""The scheduler: heaps, batch formation and KV eviction per engine step, for any policy (Algorithm 5's engine loop)."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from scheduler.cost_model import CostModel, estimate_remaining_s
from scheduler.indexed_heap import IndexedHeap, KeyedQueue, SortKey
from scheduler.policy import (
    ESI_LEVELS,
    KeyView,
    Policy,
    PolicyOptions,
    aged_level,
    eviction_key,
    get_policy,
    is_protected,
    next_key_change_s,
    protection_holds,
)
from scheduler.sim.arrival_buffer import ArrivalBuffer, extract_top_b
from scheduler.sim.batching import BatchEntry, select_batch
from scheduler.sim.config import SchedulerConfig
from scheduler.sim.eviction import EvictionKind, decide_eviction
from scheduler.sim.plan import Eviction, ScheduledWork, StepPlan
from scheduler.sim.request import Request, Stage

_NO_OPTIONS = PolicyOptions(limited_preemption=None, max_preemptions=None, aging_interval_s=None, reserved_kv_share=0.0)


class RequestTooLargeError(ValueError):
    """A request that can never fit in the KV cache its urgency tier may use."""


@dataclass(slots=True)
class SchedulerStats:
    """Counters an operator watches: queue depth per ESI level, running, evictions by kind, preemptions."""

    waiting_per_level: dict[int, int]
    running: int
    resident: int
    kv_used_tokens: int
    kv_capacity_tokens: int
    evictions: dict[str, int]
    preemptions: int
    steps: int
    finished: int

    @property
    def waiting(self) -> int:
        return sum(self.waiting_per_level.values())


@dataclass(slots=True)
class _Candidate:
    """A request being placed into the step: its entry and whether it came from the ongoing batch."""

    entry: BatchEntry
    was_running: bool


@dataclass(slots=True)
class _StepState:
    """Mutable bookkeeping of one `schedule()` call."""

    plan: StepPlan = field(default_factory=StepPlan)
    token_budget: int = 0
    evicted: set[str] = field(default_factory=set)
    scheduled: set[str] = field(default_factory=set)
    returned: list[str] = field(default_factory=list)


class Scheduler:
    """Decides every engine step which requests run and whose KV is evicted; no I/O, no clock.

    Life of a request: `add_request` puts it in the arrival buffer; `drain_buffer` (the heap-maintenance
    loop) moves arrivals into the waiting min-heap; `schedule(now_s)` takes the top-b candidates from
    heap and buffer, merges them with the ongoing batch, admits them under the token budget and the KV
    capacity (evicting the least urgent resident KV when needed) and returns a `StepPlan`; the engine
    executes it and reports back through `update_from_step`. The caller passes the time in; keys that change
    with the clock (aging, deadlines: `scheduler.policy`) are re-keyed at that point, never inside a comparison.
    """

    def __init__(
        self,
        policy: Policy | str,
        config: SchedulerConfig,
        cost_model: CostModel,
        heap_factory: Callable[[], KeyedQueue] = IndexedHeap,
    ) -> None:
        self.policy = get_policy(policy) if isinstance(policy, str) else policy
        self.config = config
        self.cost_model = cost_model
        self.requests: dict[str, Request] = {}
        self._buffer = ArrivalBuffer()
        self._waiting = heap_factory()
        self._running: list[str] = []
        self._resident = heap_factory()
        # Scheduling keys cached per request; dropped whenever the request's state changes.
        self._keys: dict[str, SortKey] = {}
        self._kv_used_blocks = 0
        # Moments at which a key changes by the clock alone: a heap of (due, seq, id), and the one moment that counts
        # per request (an entry whose due differs was superseded).
        self._key_changes: list[tuple[float, int, str]] = []
        self._key_due: dict[str, float] = {}
        self._now_s = 0.0
        self._next_seq = 0
        self._evictions = {kind.value: 0 for kind in EvictionKind}
        self._preemptions = 0
        self._steps = 0
        self._finished = 0
        # Baselines run without the semantic options: no pins, no aging, no reserved KV.
        self.options = config.options if self.policy.semantic_options else _NO_OPTIONS
        self.overloaded = False
        capacity = config.capacity_blocks
        self._unreserved_blocks = capacity - int(capacity * self.options.reserved_kv_share)

    # ----- keys and estimates -------------------------------------------------------------------------

    def est_remaining_s(self, request: Request) -> float:
        """Estimated remaining compute: reload owed, prefill owed, and the predicted decode still to go."""
        return estimate_remaining_s(
            self.cost_model,
            request.prompt_tokens + request.tokens_generated,
            request.predicted_remaining_tokens,
            cached_tokens=request.kv_device_tokens + request.kv_offloaded_tokens,
            offloaded_tokens=request.kv_offloaded_tokens,
        )

    def key_view(self, request: Request) -> KeyView:
        """What the policy computes the request's key from."""
        return KeyView(
            esi_level=request.esi_level,
            est_remaining_s=self.est_remaining_s(request),
            arrival_seq=request.arrival_seq,
            arrival_s=request.arrival_s,
            clock_start_s=request.clock_start_s,
        )

    def order_key(self, request: Request) -> SortKey:
        """The policy's scheduling key for a request as it stands at the scheduler's current time."""
        return self.policy.key(self.key_view(request), self.options, self._now_s)

    def _key_by_id(self, request_id: str) -> SortKey:
        """The request's current key, from the cache when its state has not changed since. A key computed afresh
        also refreshes the effective level and queues the next moment the clock alone changes the key (its
        estimate may have changed since the last one was queued)."""
        key = self._keys.get(request_id)
        if key is None:
            request = self.requests[request_id]
            view = self.key_view(request)
            key = self._keys[request_id] = self.policy.key(view, self.options, self._now_s)
            self._schedule_key_change(request, view)
        return key

    def _is_pinned(self, request: Request) -> bool:
        """Pinned requests are neither displaced nor evicted (`policy.is_protected`), except for ESI 1."""
        return is_protected(
            self.options, request.tokens_generated, request.predicted_output_tokens, request.preemption_count
        )

    def _tier_limit_blocks(self, esi_level: int) -> int:
        """KV blocks a level may fill: all of them for the most urgent levels, the unreserved part otherwise."""
        if esi_level <= self.options.reserved_max_level:
            return self.config.capacity_blocks
        return self._unreserved_blocks

    def _limit_blocks(self, request: Request) -> int:
        """An admitted request's limit: its tier's, but never less than its own size, so that an override
        from an urgent level to a routine one cannot strand a request admitted under the larger limit."""
        own = self.config.blocks_for(request.prompt_tokens + request.max_output_tokens)
        return max(self._tier_limit_blocks(request.esi_level), min(own, self.config.capacity_blocks))

    # ----- arrivals, overrides, aborts -----------------------------------------------------------------

    def add_request(self, request: Request, now_s: float = 0.0) -> None:
        """Accept a new request into the arrival buffer; one that can never fit raises `RequestTooLargeError`."""
        if request.request_id in self.requests:
            raise ValueError(f"request {request.request_id} was already added")
        largest = request.prompt_tokens + request.max_output_tokens
        limit_tokens = self._tier_limit_blocks(request.esi_level) * self.config.block_size
        if largest > limit_tokens:
            raise RequestTooLargeError(
                f"request {request.request_id} needs up to {largest} tokens of KV "
                f"(prompt {request.prompt_tokens} + max output {request.max_output_tokens}) "
                f"but ESI {request.esi_level} may use at most {limit_tokens}"
            )
        request.arrival_seq = self._next_seq
        self._next_seq += 1
        request.arrival_s = now_s
        request.clock_start_s = None
        request.stage = Stage.WAITING
        self._apply_key_changes(now_s)  # keys stay current whenever the clock moves
        self.requests[request.request_id] = request
        self._buffer.append(request.request_id)
        self._key_by_id(request.request_id)

    def drain_buffer(self, max_items: int | None = None) -> int:
        """Heap maintenance (Algorithm 1): insert buffered arrivals into the waiting heap, O(log n) each."""
        moved = self._buffer.take(max_items)
        for request_id in moved:
            self._waiting.push(request_id, self._key_by_id(request_id))
        return len(moved)

    def override(self, request_id: str, esi_level: int, now_s: float = 0.0) -> None:
        """Apply an acuity override: the request is re-keyed now and ordered by its new level from the next step.

        Aging and the deadline start afresh from `now_s` at the new level.
        """
        request = self._live(request_id)
        if esi_level not in ESI_LEVELS:
            raise ValueError(f"esi_level must be 1..5, got {esi_level}")
        self._apply_key_changes(now_s)  # keys stay current whenever the clock moves
        request.esi_level = esi_level
        request.clock_start_s = now_s
        self._rekey(request)

    def set_overloaded(self, overloaded: bool) -> bool:
        """Enter or leave the overload mode (`PolicyOptions.when_overloaded`; baselines have none): every live
        request is re-keyed when the options change. Whether they did."""
        if overloaded == self.overloaded or not self.policy.semantic_options:
            return False
        self.overloaded = overloaded
        options = self.config.options.when_overloaded() if overloaded else self.config.options
        if options == self.options:
            return False
        self.options = options
        for request in list(self.requests.values()):
            self._rekey(request)
        return True

    def _live(self, request_id: str) -> Request:
        try:
            return self.requests[request_id]
        except KeyError:
            raise KeyError(
                f"request {request_id} is not queued or running (finished, aborted or never added)"
            ) from None

    def abort(self, request_id: str) -> Request:
        """Remove a request wherever it is and free its KV."""
        request = self._live(request_id)
        del self.requests[request_id]
        self._keys.pop(request_id, None)
        self._key_due.pop(request_id, None)
        if request_id in self._buffer:
            self._buffer.remove(request_id)
        self._waiting.discard(request_id)
        if request_id in self._running:
            self._running.remove(request_id)
        self._release_kv(request)
        request.kv_offloaded_tokens = 0
        request.stage = Stage.FINISHED
        return request

    # ----- the step --------------------------------------------------------------------------------------

    def schedule(self, now_s: float = 0.0) -> StepPlan:
        """Form the next step: top-b selection (Alg. 2), then admission under token budget and KV (Alg. 4)."""
        self._apply_key_changes(now_s)
        batch_size = self.config.max_batch_size
        candidates = [
            self._entry(request_id, key, pinned=False)
            for key, request_id in extract_top_b(self._waiting, self._buffer, batch_size, self._key_by_id)
        ]
        # Pins protect work from less urgent arrivals, never from an immediate life threat.
        pins_hold = all(protection_holds(self.requests[entry.request_id].esi_level) for entry in candidates)
        ongoing = [
            self._entry(request_id, self._key_by_id(request_id), pinned=None if pins_hold else False)
            for request_id in self._running
        ]
        selection = select_batch(
            candidates,
            ongoing,
            batch_size,
            stage_aware=self.policy.stage_aware,
            waiting_preempts_running=self.policy.waiting_preempts_running,
        )
        was_running = set(self._running)
        state = _StepState(token_budget=self.config.max_step_tokens)
        state.plan.held_for_stage = selection.held_for_stage
        state.plan.stage_hold_level = selection.stage_hold_level
        state.returned = [entry.request_id for entry in selection.returned]
        ordered = [_Candidate(entry, entry.request_id in was_running) for entry in selection.batch]
        decoders: list[_Candidate] = []
        if not self.config.mixed_steps and any(candidate.entry.needs_prefill for candidate in ordered):
            # This engine runs a step's prefills alone; its decoding members keep their place and KV and wait.
            decoders = [candidate for candidate in ordered if not candidate.entry.needs_prefill]
            ordered = [candidate for candidate in ordered if candidate.entry.needs_prefill]
        for candidate in ordered:
            self._admit(candidate, state, force=False)
        if not state.plan.work and decoders:
            # No prefill could be placed: run the decoders instead of an empty step.
            ordered, decoders = decoders, []
            for candidate in ordered:
                self._admit(candidate, state, force=False)
        if not state.plan.work and ordered:
            # Progress guarantee: if pins blocked everything, the most urgent request may evict pinned KV.
            first = next((c for c in ordered if c.entry.request_id not in state.evicted), None)
            if first is not None:
                state.returned.remove(first.entry.request_id)
                state.plan.blocked.remove(first.entry.request_id)
                self._admit(first, state, force=True)
        return self._close_step(state, decoders, was_running)

    def _close_step(self, state: _StepState, decoders: list[_Candidate], was_running: set[str]) -> StepPlan:
        """Record the step: stalled decoders keep their slot, the rest go back to waiting, displaced ones count."""
        state.plan.stalled = [
            candidate.entry.request_id for candidate in decoders if candidate.entry.request_id not in state.evicted
        ]
        for request_id in state.plan.stalled:
            self.requests[request_id].stage = Stage.DECODING
        self._running = state.plan.request_ids + state.plan.stalled
        scheduled = set(self._running)
        for request_id in state.returned:
            if request_id in scheduled or request_id not in self.requests:
                continue
            self._waiting.upsert(request_id, self._key_by_id(request_id))
        held = set(state.plan.held_for_stage)
        for request_id in was_running - scheduled:
            if request_id in self.requests and request_id not in state.evicted and request_id not in held:
                self.requests[request_id].preemption_count += 1
                self._preemptions += 1
                state.plan.preempted.append(request_id)
        state.plan.preempted.sort()
        self._steps += 1
        return state.plan

    def update_from_step(self, plan: StepPlan, finished_ids: Collection[str] = ()) -> list[Request]:
        """Record what the engine did: sampled tokens, finished requests (EOS or length); returns the finished."""
        finished: list[Request] = []
        for work in plan.work:
            request = self.requests.get(work.request_id)
            if request is None or request.arrival_seq != work.arrival_seq:  # aborted (and maybe re-added) mid-step
                continue
            if work.samples_token:
                request.tokens_generated += 1
            done = work.request_id in finished_ids or request.tokens_generated >= request.max_output_tokens
            if done and work.samples_token:
                self._finish(request)
                finished.append(request)
                continue
            request.stage = Stage.PREFILLING if request.needs_prefill else Stage.DECODING
            self._keys.pop(request.request_id, None)
            self._resident.update(request.request_id, eviction_key(self._key_by_id(request.request_id)))
        if finished:
            gone = {request.request_id for request in finished}
            self._running = [request_id for request_id in self._running if request_id not in gone]
        return finished

    # ----- admission and eviction ------------------------------------------------------------------------

    def _entry(self, request_id: str, key: SortKey, pinned: bool | None = None) -> BatchEntry:
        request = self.requests[request_id]
        return BatchEntry(
            key=key,
            request_id=request_id,
            needs_prefill=request.needs_prefill,
            pinned=self._is_pinned(request) if pinned is None else pinned,
        )

    def _admit(self, candidate: _Candidate, state: _StepState, *, force: bool) -> None:
        """Give one batch member its tokens and KV blocks, evicting less urgent KV if the policy allows."""
        request_id = candidate.entry.request_id
        if request_id in state.evicted:
            state.returned.append(request_id)
            return
        request = self.requests[request_id]
        new_tokens = min(request.tokens_to_compute, state.token_budget)
        if new_tokens <= 0:
            state.returned.append(request_id)
            state.plan.blocked.append(request_id)
            return
        reload = request.kv_offloaded_tokens
        cached = request.kv_device_tokens + reload
        needed = self.config.blocks_for(cached + new_tokens) - self.config.blocks_for(request.kv_device_tokens)
        may_evict = force or candidate.was_running or self.policy.waiting_may_evict
        if not self._make_room(request, candidate.entry.key, needed, state, may_evict=may_evict, force=force):
            state.returned.append(request_id)
            state.plan.blocked.append(request_id)
            return
        is_prefill = request.needs_prefill
        samples = cached + new_tokens == request.sequence_tokens
        state.plan.work.append(
            ScheduledWork(
                request_id=request_id,
                esi_level=request.esi_level,
                arrival_seq=request.arrival_seq,
                is_prefill=is_prefill,
                cached_tokens=cached,
                new_tokens=new_tokens,
                reload_tokens=reload,
                samples_token=samples,
            )
        )
        state.token_budget -= new_tokens
        state.scheduled.add(request_id)
        old_blocks = self.config.blocks_for(request.kv_device_tokens)
        request.kv_device_tokens = cached + new_tokens
        request.kv_offloaded_tokens = 0
        self._kv_used_blocks += self.config.blocks_for(request.kv_device_tokens) - old_blocks
        request.stage = Stage.PREFILLING if is_prefill else Stage.DECODING
        self._keys.pop(request_id, None)
        if request_id not in self._resident:
            # Scheduled members cannot be victims this step; update_from_step sets the exact key.
            self._resident.push(request_id, eviction_key(candidate.entry.key))

    def _make_room(
        self, request: Request, key: SortKey, needed: int, state: _StepState, *, may_evict: bool, force: bool
    ) -> bool:
        """Evict the least urgent resident KV until `needed` blocks fit under the request's tier limit."""
        limit = self._limit_blocks(request)
        if self._kv_used_blocks + needed <= limit:
            return True
        if not may_evict:
            return False
        own_eviction_key = eviction_key(key)
        victims: list[tuple[SortKey, str]] = []
        skipped: list[tuple[SortKey, str]] = []
        freed = 0
        while self._kv_used_blocks - freed + needed > limit and self._resident:
            victim_key, victim_id = self._resident.pop()
            victim = self.requests[victim_id]
            if victim_key >= own_eviction_key or victim_id == request.request_id:
                # Every remaining resident request is at least as urgent as this one: stop.
                skipped.append((victim_key, victim_id))
                break
            pin_holds = protection_holds(request.esi_level) and self._is_pinned(victim)
            if victim_id in state.scheduled or (not force and pin_holds):
                skipped.append((victim_key, victim_id))
                continue
            victims.append((victim_key, victim_id))
            freed += self.config.blocks_for(victim.kv_device_tokens)
        for item_key, item_id in skipped:
            self._resident.push(item_id, item_key)
        if self._kv_used_blocks - freed + needed > limit:
            for item_key, item_id in victims:
                self._resident.push(item_id, item_key)
            return False
        for _, victim_id in victims:
            self._evict(self.requests[victim_id], state)
        return True

    def _evict(self, victim: Request, state: _StepState) -> None:
        """Offload or discard a victim's KV (cost-model choice), then re-key it in the waiting heap."""
        decision = decide_eviction(
            self.cost_model,
            victim.prompt_tokens,
            victim.kv_device_tokens,
            offload_allowed=self.policy.offload and self.config.offload_enabled,
            decoded_rule=self.config.decoded_kv_rule,
        )
        self._kv_used_blocks -= self.config.blocks_for(victim.kv_device_tokens)
        victim.kv_device_tokens = 0
        victim.kv_offloaded_tokens += decision.offloaded_tokens
        victim.preemption_count += 1
        victim.stage = Stage.PREFILLING
        self._evictions[decision.kind.value] += 1
        state.evicted.add(victim.request_id)
        state.plan.evictions.append(
            Eviction(
                request_id=victim.request_id,
                esi_level=victim.esi_level,
                kind=decision.kind,
                offloaded_tokens=decision.offloaded_tokens,
                recomputed_tokens=decision.recomputed_tokens,
            )
        )
        self._keys.pop(victim.request_id, None)
        if victim.request_id in self._waiting:
            self._waiting.update(victim.request_id, self._key_by_id(victim.request_id))
        elif victim.request_id not in state.returned:
            state.returned.append(victim.request_id)

    def _release_kv(self, request: Request) -> None:
        self._kv_used_blocks -= self.config.blocks_for(request.kv_device_tokens)
        request.kv_device_tokens = 0
        self._resident.discard(request.request_id)

    def _finish(self, request: Request) -> None:
        self._release_kv(request)
        request.kv_offloaded_tokens = 0
        request.stage = Stage.FINISHED
        self._finished += 1
        del self.requests[request.request_id]
        self._keys.pop(request.request_id, None)
        self._key_due.pop(request.request_id, None)

    # ----- keys that change with the clock (aging, deadlines) ------------------------------------------------

    def _schedule_key_change(self, request: Request, view: KeyView) -> None:
        """Set the effective level, and queue the next moment the clock alone changes the request's key (unless
        that moment is already the one queued)."""
        request.effective_level = aged_level(self.options, request.esi_level, self._now_s - request.since_s)
        due_s = next_key_change_s(self.policy, self.options, view, self._now_s)
        if due_s is None:
            self._key_due.pop(request.request_id, None)
        elif self._key_due.get(request.request_id) != due_s:
            self._key_due[request.request_id] = due_s
            heapq.heappush(self._key_changes, (due_s, request.arrival_seq, request.request_id))

    def _apply_key_changes(self, now_s: float) -> None:
        """Re-key every request whose key changed by `now_s` (aging steps, deadline windows opening or closing)."""
        self._now_s = max(self._now_s, now_s)
        while self._key_changes and self._key_changes[0][0] <= self._now_s:
            due_s, _, request_id = heapq.heappop(self._key_changes)
            if self._key_due.get(request_id) != due_s:
                continue  # finished, aborted, or superseded by a later moment since this one was queued
            del self._key_due[request_id]
            self._rekey(self.requests[request_id])

    def _rekey(self, request: Request) -> None:
        """Drop the cached key and compute it now (`_key_by_id`), wherever the request is ordered."""
        self._keys.pop(request.request_id, None)
        key = self._key_by_id(request.request_id)
        if request.request_id in self._waiting:
            self._waiting.update(request.request_id, key)
        if request.request_id in self._resident:
            self._resident.update(request.request_id, eviction_key(key))

    # ----- observation -------------------------------------------------------------------------------------

    @property
    def kv_used_tokens(self) -> int:
        """Device KV in use, in tokens (whole blocks)."""
        return self._kv_used_blocks * self.config.block_size

    @property
    def running_ids(self) -> list[str]:
        """The batch of the last step, most urgent first."""
        return list(self._running)

    def waiting_ids(self) -> list[str]:
        """Every request not in the last step's batch: buffered and heaped."""
        return [*self._buffer, *self._waiting]

    def has_unfinished(self) -> bool:
        return bool(self.requests)

    def stats(self) -> SchedulerStats:
        """A snapshot of the counters (O(waiting): not for the step's hot path)."""
        per_level = dict.fromkeys(ESI_LEVELS, 0)
        for request_id in self.waiting_ids():
            per_level[self.requests[request_id].esi_level] += 1
        return SchedulerStats(
            waiting_per_level=per_level,
            running=len(self._running),
            resident=len(self._resident),
            kv_used_tokens=self.kv_used_tokens,
            kv_capacity_tokens=self.config.capacity_blocks * self.config.block_size,
            evictions=dict(self._evictions),
            preemptions=self._preemptions,
            steps=self._steps,
            finished=self._finished,
        )
