"""The discrete-event engine: steps timed by the cost model, driven by a `Scheduler`, outcomes recorded."""

from __future__ import annotations

from collections.abc import Sequence

from scheduler.config import SchedulerConfig
from scheduler.core import Scheduler
from scheduler.cost_model import CostModel
from scheduler.plan import StepPlan
from scheduler.policy import Policy
from scheduler.request import Request
from scheduler.sim.metrics import Outcome, PolicySummary, summarize
from scheduler.sim.predictors import Prediction
from scheduler.sim.workload import SimRequest


class SimulationStalledError(RuntimeError):
    """The scheduler returned an empty step while requests were still unfinished and nothing else could arrive."""


def step_duration_s(plan: StepPlan, cost_model: CostModel) -> float:
    """One engine step: its prefills run first (in parallel), then its decodes (in parallel).

    A batch runs its members in parallel, so each part costs its slowest member (the authors'
    simulator takes the max over the batch too); the prefill part delays every decode in the step,
    which is the priority inversion that stage-aware batching avoids. Offload copies are assumed to
    overlap with compute; reloads are paid by the request that resumes.
    """
    prefill_s = 0.0
    decode_s = 0.0
    for work in plan.work:
        if work.is_prefill:
            cost = cost_model.reload_s(work.reload_tokens) + cost_model.extend_s(
                work.cached_tokens, work.cached_tokens + work.new_tokens
            )
            prefill_s = max(prefill_s, cost)
        else:
            decode_s = max(decode_s, cost_model.decode_token_s(work.cached_tokens))
    return prefill_s + decode_s


def _add_ready(
    scheduler: Scheduler,
    requests: Sequence[SimRequest],
    predictions: Sequence[Prediction],
    order: list[int],
    next_index: int,
    now_s: float,
) -> int:
    """Hand the scheduler every request whose prediction is ready by `now_s`; the index of the next one."""
    while next_index < len(order) and predictions[order[next_index]].ready_s <= now_s:
        request, prediction = requests[order[next_index]], predictions[order[next_index]]
        scheduler.add_request(
            Request(
                request_id=request.request_id,
                esi_level=prediction.esi_level,
                prompt_tokens=request.prompt_tokens,
                predicted_output_tokens=prediction.output_tokens,
                max_output_tokens=max(request.output_tokens, prediction.output_tokens),
                arrival_seq=0,
            ),
            now_s=prediction.ready_s,
        )
        next_index += 1
    return next_index


def _sampled(
    plan: StepPlan,
    truth: dict[str, SimRequest],
    generated: dict[str, int],
    first_token_s: dict[str, float],
    now_s: float,
) -> set[str]:
    """Count the tokens the step sampled; the requests that reached their true answer length."""
    finishing = set()
    for work in plan.work:
        if not work.samples_token:
            continue
        count = generated.get(work.request_id, 0) + 1
        generated[work.request_id] = count
        first_token_s.setdefault(work.request_id, now_s)
        if count >= truth[work.request_id].output_tokens:
            finishing.add(work.request_id)
    return finishing


def simulate(
    policy: Policy | str,
    requests: Sequence[SimRequest],
    predictions: Sequence[Prediction],
    config: SchedulerConfig,
    cost_model: CostModel,
    max_steps: int = 10_000_000,
) -> PolicySummary:
    """Run every request to completion under one policy and summarize the outcomes by true ESI level."""
    scheduler = Scheduler(policy, config, cost_model)
    order = sorted(range(len(requests)), key=lambda index: (predictions[index].ready_s, index))
    truth = {request.request_id: request for request in requests}
    generated: dict[str, int] = {}
    first_token_s: dict[str, float] = {}
    outcomes: list[Outcome] = []
    now_s = 0.0
    next_index = 0
    for _ in range(max_steps):
        next_index = _add_ready(scheduler, requests, predictions, order, next_index, now_s)
        scheduler.drain_buffer()
        plan = scheduler.schedule(now_s)
        if not plan:
            if next_index < len(order):
                now_s = max(now_s, predictions[order[next_index]].ready_s)
                continue
            if scheduler.has_unfinished():
                raise SimulationStalledError(
                    f"{scheduler.policy.name}: empty step with {len(scheduler.requests)} unfinished"
                )
            break
        now_s += step_duration_s(plan, cost_model)
        finishing = _sampled(plan, truth, generated, first_token_s, now_s)
        for finished in scheduler.update_from_step(plan, finishing):
            true_request = truth[finished.request_id]
            outcomes.append(
                Outcome(
                    request_id=finished.request_id,
                    esi_level=true_request.esi_level,
                    arrival_s=true_request.arrival_s,
                    first_token_s=first_token_s[finished.request_id],
                    finish_s=now_s,
                    output_tokens=generated[finished.request_id],
                )
            )
    else:
        raise SimulationStalledError(f"{scheduler.policy.name}: still running after {max_steps} steps")
    stats = scheduler.stats()
    return summarize(outcomes, evictions=stats.evictions, preemptions=stats.preemptions, steps=stats.steps)
