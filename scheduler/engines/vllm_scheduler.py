"""vLLM 0.32 V1 schedulers ordered by the semantic key, passed to vLLM as `scheduler_cls`.

vLLM's engine core may run in another process, so everything the scheduler needs travels with the request:
- `Request.priority` carries the scheduling key: `esi_level * PRIORITY_SCALE + estimated remaining milliseconds`
  (see `semantic_priority`), so vLLM's own priority heap orders the waiting queue by (ESI, remaining work) and its
  arrival time breaks ties; its preemption victim, the running request with the largest (priority, arrival),
  is then the least urgent, longest-remaining one.
- `SamplingParams.extra_args["predicted_output_tokens"]` carries the predicted answer length (limited preemption).

On top of the stock `policy="priority"` behaviour this scheduler:
- fixes vllm-project/vllm#40004: before each step, if the most urgent waiting request is of a more urgent ESI
  level than some running request and the batch is full or the KV cache cannot hold its prompt, the least urgent,
  longest-remaining running request is preempted (recompute), honouring limited preemption (a request past 80 % of
  its predicted answer is kept, except for an ESI 1 request) and a cap on preemptions per request;
- is stage-aware: while the most urgent running request is decoding and only less urgent requests wait, prefills
  are deferred for that step (vLLM's `throttle_prefills`).
"""

from __future__ import annotations

import time
from typing import Any

from vllm.v1.core.sched.async_scheduler import AsyncScheduler
from vllm.v1.core.sched.scheduler import Scheduler

from scheduler.cost_model import CostModel

PRIORITY_SCALE = 10**8
"""ESI level times this, plus milliseconds of estimated remaining work (capped below the scale)."""


def semantic_priority(esi_level: int, prompt_tokens: int, predicted_output_tokens: int, cost_model: CostModel) -> int:
    """The integer vLLM orders by (lower first): ESI level, then estimated remaining milliseconds."""
    if esi_level not in (1, 2, 3, 4, 5):
        raise ValueError(f"esi_level must be 1..5, got {esi_level}")
    remaining_s = cost_model.prefill_s(prompt_tokens) + cost_model.decode_s(prompt_tokens, predicted_output_tokens)
    return esi_level * PRIORITY_SCALE + min(PRIORITY_SCALE - 1, int(remaining_s * 1000))


def level_of(request: Any) -> int:
    """The ESI level a request was submitted with (its priority's leading part); a request submitted without our
    encoding (vLLM's default priority 0, say) counts as ESI 5, so it never outranks triaged work."""
    level = int(request.priority) // PRIORITY_SCALE
    return level if 1 <= level <= 5 else 5


class SemanticVLLMScheduler(Scheduler):  # type: ignore[misc]
    """vLLM's V1 scheduler with the semantic additions described in the module docstring."""

    limited_preemption: float = 0.8
    max_preemptions: int = 3
    stage_aware: bool = True
    max_deferred_steps: int = 4
    """Prefills are deferred for at most this many steps in a row, then one step lets them in: an endless
    stream of urgent decodes must not starve everyone else."""
    _deferred_in_a_row: int = 0

    def schedule(self, throttle_prefills: bool = False) -> Any:
        self._preempt_for_urgent_waiting()
        defer = self.stage_aware and self._urgent_request_decoding()
        defer = defer and self._deferred_in_a_row < self.max_deferred_steps
        self._deferred_in_a_row = self._deferred_in_a_row + 1 if defer else 0
        return super().schedule(throttle_prefills=throttle_prefills or defer)

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
        return min(waiting, key=lambda r: (r.priority, r.arrival_time)) if waiting else None

    def _protected(self, running: Any, for_level: int) -> bool:
        if running.num_preemptions >= self.max_preemptions:
            return True
        extra = getattr(running.sampling_params, "extra_args", None) or {}
        predicted = extra.get("predicted_output_tokens")
        nearly_done = predicted is not None and running.num_output_tokens >= self.limited_preemption * predicted
        return bool(nearly_done and for_level > 1)

    def _blocks_for(self, request: Any) -> int:
        return int(-(-len(request.prompt_token_ids or []) // self.block_size))

    def _preempt_for_urgent_waiting(self) -> None:
        """Make room, before the step, for waiting requests more urgent than running ones (vllm#40004).

        Waiting requests are taken most urgent first; for each, while the batch would be full or the free KV
        blocks would not hold its prompt, the least urgent, longest-remaining running request of a less urgent
        level (not protected) is preempted.
        """
        if not self.running:
            return
        worst_running = max(level_of(r) for r in self.running)
        urgent = sorted(
            (r for r in self._ready_waiting() if level_of(r) < worst_running),
            key=lambda r: (r.priority, r.arrival_time),
        )
        blocks_wanted = 0
        for admitted, head in enumerate(urgent):
            level = level_of(head)
            blocks_wanted += self._blocks_for(head)
            while (
                len(self.running) + admitted >= self.max_num_running_reqs
                or self.kv_cache_manager.block_pool.get_num_free_blocks() < blocks_wanted
            ):
                victims = [
                    r
                    for r in self.running
                    if level_of(r) > level and not self._protected(r, level) and self._request_blocks_can_be_freed(r)
                ]
                if not victims:
                    return
                victim = max(victims, key=lambda r: (r.priority, r.arrival_time))
                self.running.remove(victim)
                # As vLLM's own preemption does: drop in-flight output when a connector needs the KV delivered.
                self._preempt_request(victim, time.monotonic(), drop_stale_output=self.requires_kv_delivery)

    # ----- stage awareness ---------------------------------------------------------------------------------

    def _urgent_request_decoding(self) -> bool:
        """The most urgent running request is decoding and everything waiting is of a less urgent level."""
        if not self.running:
            return False
        leader = min(self.running, key=lambda r: (r.priority, r.arrival_time))
        if leader.num_computed_tokens < leader.num_prompt_tokens:
            return False  # it is still prefilling
        head = self._most_urgent_waiting()
        return head is not None and level_of(head) > level_of(leader)


class SemanticVLLMAsyncScheduler(SemanticVLLMScheduler, AsyncScheduler):  # type: ignore[misc]
    """The same policy over vLLM's AsyncScheduler (what vLLM uses on GPUs)."""
