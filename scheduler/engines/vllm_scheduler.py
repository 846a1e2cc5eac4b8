"""vLLM 0.32 V1 schedulers ordered by the semantic key, passed to vLLM as `scheduler_cls`.

vLLM's engine core may run in another process, so everything the scheduler needs travels with the request:
- `Request.priority` carries the policy's scheduling key encoded as one integer (`scheduler.policy.encode_priority`,
  through `semantic_priority`), the same encoding as the Redis heap's score, so vLLM's own priority heap orders the
  waiting queue by the policy's key and its arrival time breaks ties; its preemption victim, the running request
  with the largest (priority, arrival), is then the least urgent, longest-remaining one.
- `SamplingParams.extra_args["predicted_output_tokens"]` carries the predicted answer length (limited preemption).

A priority outside that encoding (vLLM's default 0, a client's own scale) is read, everywhere, as ESI 5 with the
longest remaining work the encoding can carry (`decoded_priority`): the scheduler stores the decoded value on the
request at `add_request`, so vLLM's own waiting heap and OOM victim choice read it exactly as this policy does.

On top of the stock `policy="priority"` behaviour this scheduler:
- fixes vllm-project/vllm#40004: before each step, if the most urgent waiting request is of an earlier band than
  some running request (under `semantic`: ESI 1 ahead of the rest; under `semantic-strict`: a more urgent level)
  and the batch is full (vLLM's admission limit) or the KV cache cannot hold its prompt, the least urgent,
  longest-remaining running request is preempted (recompute), honouring limited preemption (a request past 80 %
  of its predicted answer is kept, except for an ESI 1 request) and a cap on preemptions per request;
- is stage-aware: while the most urgent running request is decoding and only requests of a later band wait,
  prefills are deferred for that step (vLLM's `throttle_prefills`), for at most `max_deferred_steps` steps in a row;
- does neither while vLLM's scheduler is paused (`pause_state`): the step is vLLM's own.

The options (limited preemption, the preemption cap, `max_deferred_steps`) are read in `__init__` from vLLM's own
config, `vllm_config.additional_config["triage_scheduling"]` (`scheduler.scheduling_contract`), which vLLM hands
to the engine-core process; `scheduling()` reports them back, and vLLM's utility call reaches it from the client
(`VLLMEngine.scheduling_in_force`).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from vllm.v1.core.sched.async_scheduler import AsyncScheduler
from vllm.v1.core.sched.interface import PauseState
from vllm.v1.core.sched.scheduler import Scheduler

from scheduler.cost_model import CostModel, estimate_remaining_s
from scheduler.policy import (
    DEFAULT_POLICY,
    ESI_LEVELS,
    KeyView,
    PolicyOptions,
    band_of_priority,
    decoded_priority,
    defers_prefills,
    encode_priority,
    get_policy,
    is_protected,
    level_of_priority,
    protection_holds,
)
from scheduler.scheduling_contract import Scheduling, scheduling_from_vllm_config


def semantic_priority(
    esi_level: int,
    prompt_tokens: int,
    predicted_output_tokens: int,
    cost_model: CostModel,
    policy: str = DEFAULT_POLICY,
    options: PolicyOptions | None = None,
) -> int:
    """The integer vLLM orders by (lower first): the policy's key at submission, encoded (`policy.encode_priority`).

    vLLM keeps a request's priority fixed while it waits, so aging and deadline windows, which change a key with
    the clock, act in the simulator's core and the transformers engine, not here (docs/engines.md)."""
    if esi_level not in ESI_LEVELS:
        raise ValueError(f"esi_level must be 1..5, got {esi_level}")
    view = KeyView(
        esi_level=esi_level, est_remaining_s=estimate_remaining_s(cost_model, prompt_tokens, predicted_output_tokens)
    )
    return encode_priority(get_policy(policy).key(view, options or PolicyOptions(), 0.0))


def level_of(request: Any) -> int:
    """The ESI level a request carries in its priority (ESI 5 for a priority outside the encoding)."""
    return level_of_priority(int(request.priority))


def band_of(request: Any) -> float:
    """The band a request is scheduled in: ESI 1 / at risk / the rest under `semantic`, the level under strict."""
    return band_of_priority(int(request.priority))


def urgency_key(request: Any) -> tuple[int, float]:
    """Lower is more urgent: the decoded priority, then arrival (vLLM's own tie-break)."""
    return decoded_priority(int(request.priority)), float(request.arrival_time)


class SemanticVLLMScheduler(Scheduler):  # type: ignore[misc]
    """vLLM's V1 scheduler with the semantic additions described in the module docstring."""

    scheduling_in_force: Scheduling
    """The policy, options and cost model this scheduler was built with (from vLLM's config, in `__init__`)."""
    options: PolicyOptions
    """Limited preemption, the preemption cap and `max_deferred_steps` (prefills are deferred for at most that many
    steps in a row, then one step lets them in: an endless stream of urgent decodes must not starve the rest; 0 turns
    deferral off)."""
    stage_aware: bool = True
    _deferred_in_a_row: int = 0
    prefill_capacity_bound: bool
    """vLLM's (set in its `__init__`); declared for the type checker, which cannot see into vLLM."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.scheduling_in_force = scheduling_from_vllm_config(self.vllm_config.additional_config)
        self.options = self.scheduling_in_force.options

    def scheduling(self) -> dict[str, Any]:
        """The scheduling this scheduler runs, as `Scheduling.to_dict` (read back by the engine adapter)."""
        return self.scheduling_in_force.to_dict()

    def __call__(self, cost_coefficients: dict[str, float] | None = None) -> dict[str, Any]:
        """vLLM's utility call (`engine_core.call_utility_async(name, *args)`) looks an attribute of the engine core
        up by name and calls it; `call_utility_async("scheduler")` lands here, inside the engine-core process, and
        returns `scheduling()`: the read-back of what runs there, not of what the client asked for. With
        `cost_coefficients` (a `CostModel` as a dict: the one the engine worker measured) it holds that model
        first."""
        if cost_coefficients is not None:
            self.scheduling_in_force = dataclasses.replace(
                self.scheduling_in_force, cost_model=CostModel(**cost_coefficients)
            )
        return self.scheduling()

    def add_request(self, request: Any) -> None:
        # vLLM's waiting heap (`Request.__lt__`) and its own OOM victim (`max(running, key=priority)`) read
        # `request.priority` raw; storing the decoded value makes every ordering in the step agree with ours. (Read
        # raw, priority 0 was a victim here and the most urgent there: preempted and re-admitted in one step.)
        request.priority = decoded_priority(int(request.priority))
        super().add_request(request)

    def schedule(self, throttle_prefills: bool = False) -> Any:
        if self.pause_state != PauseState.UNPAUSED:
            # Paused, the step is vLLM's own. "keep" (PAUSED_ALL) schedules nothing and must keep every running
            # request's KV; "wait" (PAUSED_NEW) drains what runs and counts only running and KV-holding requests as
            # unfinished, so a request we preempted would be left out of the drain; and nothing waiting can be
            # admitted while paused, so a preemption could not help anyone. A paused step is no deferred step either.
            return super().schedule(throttle_prefills=throttle_prefills)
        self._preempt_for_urgent_waiting()
        defer = self.stage_aware and self._urgent_request_decoding()
        defer = defer and self._deferred_in_a_row < self.options.max_deferred_steps
        self._deferred_in_a_row = self._deferred_in_a_row + 1 if defer else 0
        if not defer:
            return super().schedule(throttle_prefills=throttle_prefills)
        return self._schedule_deferring_prefills()

    def _schedule_deferring_prefills(self) -> Any:
        """One step with prefills deferred, whatever vLLM's DP prefill balancing last concluded.

        vLLM ignores `throttle_prefills` while `prefill_capacity_bound` is set, which it does after every step that
        let prefills in and still left requests waiting: under load, always, so our deferral held on about 7 of 17
        steps. The flag is cleared for this step only and then restored: a deferring step does not update it (vLLM
        updates it only on steps that admit prefills), so vLLM's own balancing finds it as it left it. The step
        does defer: a decoding request is running (`_urgent_request_decoding`), which vLLM requires.
        """
        capacity_bound = self.prefill_capacity_bound
        self.prefill_capacity_bound = False
        try:
            return super().schedule(throttle_prefills=True)
        finally:
            self.prefill_capacity_bound = capacity_bound

    # ----- vllm#40004 -------------------------------------------------------------------------------------

    def _ready_waiting(self) -> list[Any]:
        """Waiting requests that could run now (not held for a grammar, streamed input, remote KV, stale output)."""
        return [
            request
            for request in self.waiting
            if not self._is_blocked_waiting_status(request.status)
            and not (request.num_stale_output_tokens and not request.drop_stale_output)
        ]

    def _most_urgent_waiting(self) -> Any | None:
        waiting = self._ready_waiting()
        return min(waiting, key=urgency_key) if waiting else None

    def _protected(self, running: Any, for_level: int) -> bool:
        """Pinned (`policy.is_protected`), unless the request it would make room for is ESI 1."""
        extra = getattr(running.sampling_params, "extra_args", None) or {}
        predicted = extra.get("predicted_output_tokens")
        pinned = is_protected(
            self.options,
            int(running.num_output_tokens),
            None if predicted is None else int(predicted),
            int(running.num_preemptions),
        )
        return pinned and protection_holds(for_level)

    def _blocks_for(self, request: Any) -> int:
        return int(-(-len(request.prompt_token_ids or []) // self.block_size))

    def _batch_full(self, admitted: int) -> bool:
        """Whether vLLM's admission would refuse one more request after `admitted` more: it admits into RUNNING up
        to `max_num_active_reqs` (`max_num_active_seqs`, by default `max_num_seqs`), counting paused streaming
        sessions, which keep a runner slot. (`max_num_running_reqs` is the runner's slot count, which can be more.)"""
        occupied = len(self.running) + self.num_waiting_for_streaming_input + admitted
        return bool(occupied >= self.max_num_active_reqs)

    def _preempt_for_urgent_waiting(self) -> None:
        """Make room, before the step, for waiting requests more urgent than running ones (vllm#40004).

        Waiting requests are taken most urgent first; for each, while the batch would be full or the free KV
        blocks would not hold its prompt, the least urgent, longest-remaining running request of a less urgent
        level (not protected) is preempted.
        """
        if not self.running:
            return
        worst_running = max(band_of(r) for r in self.running)
        urgent = sorted((r for r in self._ready_waiting() if band_of(r) < worst_running), key=urgency_key)
        blocks_wanted = 0
        for admitted, head in enumerate(urgent):
            band, level = band_of(head), level_of(head)
            blocks_wanted += self._blocks_for(head)
            while self._batch_full(admitted) or self.kv_cache_manager.block_pool.get_num_free_blocks() < blocks_wanted:
                victims = [
                    r
                    for r in self.running
                    if band_of(r) > band and not self._protected(r, level) and self._request_blocks_can_be_freed(r)
                ]
                if not victims:
                    return
                victim = max(victims, key=urgency_key)
                self.running.remove(victim)
                # As vLLM's own preemption does: drop in-flight output when a connector needs the KV delivered.
                self._preempt_request(victim, time.monotonic(), drop_stale_output=self.requires_kv_delivery)

    # ----- stage awareness ---------------------------------------------------------------------------------

    def _urgent_request_decoding(self) -> bool:
        """The most urgent running band is all decoding and everything waiting is of a later band.

        vLLM's throttle holds back every prefill chunk in the step, so a request of the leader's band still
        prefilling (a prompt split over steps, or a resumed request recomputing) turns deferral off for the step.
        """
        if not self.running:
            return False
        leader_band = band_of(min(self.running, key=urgency_key))
        decoding = not any(_prefilling(r) for r in self.running if band_of(r) <= leader_band)
        head = self._most_urgent_waiting()
        return defers_prefills(leader_band, decoding, None if head is None else band_of(head))


def _prefilling(request: Any) -> bool:
    """Still prefilling, or (resumed) recomputing its earlier output: vLLM's own test of a decode is
    `is_prefill_chunk`, and it defers prefills only beside a decode."""
    return bool(request.num_computed_tokens < request.num_prompt_tokens or request.is_prefill_chunk)


class SemanticVLLMAsyncScheduler(SemanticVLLMScheduler, AsyncScheduler):  # type: ignore[misc]
    """The same policy over vLLM's AsyncScheduler (what vLLM uses on GPUs)."""
