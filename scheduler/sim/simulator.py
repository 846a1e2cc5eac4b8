"""The discrete-event engine: steps timed by the cost model, driven by a `Scheduler`, outcomes recorded."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from scheduler.cost_model import CostModel
from scheduler.policy import Policy
from scheduler.shedding import (
    OVERLOAD_CALM_S,
    DrainMeter,
    SheddingOptions,
    WaitingCall,
    overloaded,
    plan_shedding,
    projects_miss,
)
from scheduler.sim.config import SchedulerConfig
from scheduler.sim.core import Scheduler, SchedulerStats
from scheduler.sim.metrics import Outcome, PolicySummary, summarize
from scheduler.sim.plan import StepPlan
from scheduler.sim.predictors import Prediction
from scheduler.sim.request import Request
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


@dataclass(frozen=True, slots=True)
class SimShedding:
    """Overload shedding in a run: swept every `sweep_interval_s` as the product's reconciler does."""

    options: SheddingOptions
    deadlines_s: tuple[float | None, ...]
    sweep_interval_s: float = 2.0
    fallback_drain_rate: float = 1.0
    """The drain rate until the meter has measured one (the product assumes the same per engine)."""
    calm_s: float = OVERLOAD_CALM_S
    """The overload mode holds this long after the last projected miss (`scheduler.shedding.overloaded`)."""


@dataclass(slots=True)
class SimRun:
    """Every request's outcome in one run (shed ones included) and the scheduler's counters."""

    outcomes: list[Outcome]
    stats: SchedulerStats


def simulate(
    policy: Policy | str,
    requests: Sequence[SimRequest],
    predictions: Sequence[Prediction],
    config: SchedulerConfig,
    cost_model: CostModel,
    max_steps: int = 10_000_000,
) -> PolicySummary:
    """Run every request to completion under one policy and summarize the outcomes by true ESI level."""
    run = run_requests(policy, requests, predictions, config, cost_model, max_steps=max_steps)
    stats = run.stats
    return summarize(run.outcomes, evictions=stats.evictions, preemptions=stats.preemptions, steps=stats.steps)


def _sweep(
    scheduler: Scheduler, shedding: SimShedding, meter: DrainMeter, started: set[str], now_s: float
) -> tuple[list[Request], bool]:
    """The product's reconciler sweep: take the waiting requests `plan_shedding` picks out of the scheduler (they
    get template guidance), and whether a miss is projected (`projects_miss`, before shedding). A request the engine
    has started is in service, as a leased incident is in the product: never shed."""
    live = scheduler.requests
    waiting = sorted((live[rid] for rid in scheduler.waiting_ids() if rid not in started), key=scheduler.order_key)
    calls = [WaitingCall(r.request_id, r.esi_level, scheduler.est_remaining_s(r), now_s - r.arrival_s) for r in waiting]
    in_service_s = sum(scheduler.est_remaining_s(live[rid]) for rid in started if rid in live)
    rate = meter.rate() or shedding.fallback_drain_rate
    missing = projects_miss(calls, in_service_s, rate, shedding.deadlines_s)
    decisions = plan_shedding(calls, in_service_s, rate, shedding.deadlines_s, shedding.options)
    return [scheduler.abort(decision.call_id) for decision in decisions], missing


@dataclass(slots=True)
class _Run:
    """What a run keeps beside its scheduler: the true requests, what each has generated, the drain meter (for
    shedding), and the outcomes so far."""

    scheduler: Scheduler
    truth: dict[str, SimRequest]
    cost_model: CostModel
    generated: dict[str, int] = field(default_factory=dict)
    first_token_s: dict[str, float] = field(default_factory=dict)
    est_at_arrival: dict[str, float] = field(default_factory=dict)
    outcomes: list[Outcome] = field(default_factory=list)
    meter: DrainMeter = field(default_factory=DrainMeter)
    started: set[str] = field(default_factory=set)
    """Requests the engine has started: in service, never shed."""
    last_miss_s: float | None = None

    def arrived(self, request_ids: Sequence[str]) -> None:
        """Remember the estimate each new request arrived with (the drain meter counts in those)."""
        for request_id in request_ids:
            self.est_at_arrival[request_id] = self.scheduler.est_remaining_s(self.scheduler.requests[request_id])

    def sweep(self, shedding: SimShedding, now_s: float) -> None:
        """The reconciler's sweep: shed what `plan_shedding` picks (template guidance at once), and enter or leave
        the overload mode."""
        shed_requests, missing = _sweep(self.scheduler, shedding, self.meter, self.started, now_s)
        self.last_miss_s = now_s if missing else self.last_miss_s
        self.scheduler.set_overloaded(overloaded(missing, self.last_miss_s, now_s, shedding.calm_s))
        for shed in shed_requests:
            true_request = self.truth[shed.request_id]
            self.outcomes.append(
                Outcome(shed.request_id, true_request.esi_level, true_request.arrival_s, now_s, now_s, 1, True)
            )

    def step(self, plan: StepPlan, now_s: float) -> float:
        """Execute one step from `now_s`, record the requests it finished; the time after it."""
        self.started.update(plan.request_ids)
        self.meter.in_service(now_s, len(plan.request_ids))
        now_s += step_duration_s(plan, self.cost_model)
        self.meter.in_service(now_s, 0)  # busy time is the steps' time
        finishing = _sampled(plan, self.truth, self.generated, self.first_token_s, now_s)
        for finished in self.scheduler.update_from_step(plan, finishing):
            true_request = self.truth[finished.request_id]
            self.meter.finished(now_s, self.est_at_arrival.pop(finished.request_id))
            self.started.discard(finished.request_id)
            self.outcomes.append(
                Outcome(
                    request_id=finished.request_id,
                    esi_level=true_request.esi_level,
                    arrival_s=true_request.arrival_s,
                    first_token_s=self.first_token_s[finished.request_id],
                    finish_s=now_s,
                    output_tokens=self.generated[finished.request_id],
                )
            )
        return now_s


def run_requests(
    policy: Policy | str,
    requests: Sequence[SimRequest],
    predictions: Sequence[Prediction],
    config: SchedulerConfig,
    cost_model: CostModel,
    *,
    shedding: SimShedding | None = None,
    max_steps: int = 10_000_000,
) -> SimRun:
    """Run every request to completion (or to template guidance, when shedding) under one policy."""
    scheduler = Scheduler(policy, config, cost_model)
    order = sorted(range(len(requests)), key=lambda index: (predictions[index].ready_s, index))
    run = _Run(scheduler, {request.request_id: request for request in requests}, cost_model)
    now_s = next_sweep_s = 0.0
    next_index = 0
    for _ in range(max_steps):
        before = next_index
        next_index = _add_ready(scheduler, requests, predictions, order, next_index, now_s)
        scheduler.drain_buffer()
        run.arrived([requests[index].request_id for index in order[before:next_index]])
        if shedding is not None and now_s >= next_sweep_s:
            next_sweep_s = now_s + shedding.sweep_interval_s
            run.sweep(shedding, now_s)
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
        now_s = run.step(plan, now_s)
    else:
        raise SimulationStalledError(f"{scheduler.policy.name}: still running after {max_steps} steps")
    return SimRun(run.outcomes, scheduler.stats())
