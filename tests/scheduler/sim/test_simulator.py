"""Tests for the discrete-event simulator and the experiment runner."""

from __future__ import annotations

import math

import pytest

from scheduler.cost_model import CostModel, get_profile
from scheduler.sim.config import SchedulerConfig
from scheduler.sim.eviction import EvictionKind
from scheduler.sim.experiments import PointParams, experiment_points, get_experiment, run_experiment, run_point
from scheduler.sim.plan import Eviction, ScheduledWork, StepPlan
from scheduler.sim.predictors import PredictorSpec, predict
from scheduler.sim.simulator import simulate, step_duration_s
from scheduler.sim.workload import WorkloadSpec, generate_workload


def work(request_id: str, prefill: bool, cached: int, new: int, reload: int = 0) -> ScheduledWork:
    return ScheduledWork(request_id, 1, 0, prefill, cached, new, reload, samples_token=True)


def test_step_time_is_slowest_prefill_then_slowest_decode() -> None:
    costs = CostModel(a1=0.0, a2=1e-3, g1=1e-5, g2=1e-2, beta=1e-4)
    plan = StepPlan(
        work=[
            work("p1", True, 0, 100),
            work("p2", True, 50, 100, reload=50),
            work("d1", False, 300, 1),
            work("d2", False, 10, 1),
        ],
        evictions=[Eviction("v", 5, EvictionKind.OFFLOAD, 10, 0)],
    )
    # prefill: max(0.1, 50*1e-4 + 100*1e-3) = 0.105; decode: max(1e-5*300 + 1e-2, ...) = 0.013
    assert step_duration_s(plan, costs) == pytest.approx(0.105 + 0.013)


def test_every_request_finishes_with_its_true_length_under_every_policy() -> None:
    requests = generate_workload(WorkloadSpec(gap_s=0.1, max_concurrent=12, bursts=4, seed=5))
    predictions = predict(requests, PredictorSpec(length_error_rate=0.3), 500, seed=5)
    config = SchedulerConfig(kv_capacity_tokens=4_896, max_batch_size=8)
    for policy in ("semantic", "semantic-strict", "fcfs", "sjf", "hpjf", "vllm-priority"):
        summary = simulate(policy, requests, predictions, config, get_profile("a100-qwen1.5-7b"))
        assert sum(summary.count_per_level.values()) == len(requests), policy
        assert not math.isnan(summary.overall)
        assert summary.makespan_s > 0


def test_tight_kv_forces_evictions_and_semantic_keeps_esi_1_fastest() -> None:
    result = run_point(
        PointParams(profile="a100-qwen1.5-7b", concurrency=40, bursts=5, seed=2),
        ["semantic", "fcfs", "vllm-priority"],
    )
    semantic = result.summaries["semantic"]
    assert sum(semantic.evictions.values()) > 0
    assert semantic.per_level[1] == min(semantic.per_level.values())
    assert result.summaries["fcfs"].per_level[1] > 2 * semantic.per_level[1]
    assert result.summaries["vllm-priority"].evictions["offload"] == 0  # recompute-only


def test_experiment_json_has_the_documented_shape() -> None:
    result = run_experiment("spikes", {"concurrency": 10, "bursts": 3}, sweep=False)
    data = result.to_json()
    assert data["experiment"] == "spikes"
    assert data["params"]["gap_s"] == 0.1 and data["params"]["concurrency"] == 10
    assert list(data["policies"]) == ["semantic", "semantic-strict", "fcfs", "sjf", "hpjf", "vllm-priority"]
    semantic = data["policies"]["semantic"]
    assert list(semantic["per_level"]) == ["1", "2", "3", "4", "5"]
    assert set(semantic["p99_per_level"]) == {"1", "2", "3", "4", "5"}
    assert isinstance(semantic["overall"], float)
    assert set(data["policies"]["fcfs"]["ratio_to_semantic"]) == {"1", "2", "3", "4", "5", "overall"}
    assert "points" not in data


def test_sweep_visits_the_experiment_values_and_reuses_the_headline() -> None:
    headline, points = experiment_points("urgency-error", {"bursts": 2}, sweep=True)
    assert headline.urgency_error_rate == 0.5 and headline.concurrency == 5
    assert [point.urgency_error_rate for point in points] == [0.1, 0.3, 0.5, 0.7, 0.9]
    result = run_experiment("urgency-error", {"bursts": 2}, sweep=True, policies=["semantic", "fcfs"])
    assert result.points[2] is result.headline
    assert len(result.to_json()["points"]) == 5


def test_unknown_experiment_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="known experiments: spikes, urgency-error"):
        get_experiment("tsunami")


def test_repeats_average_each_figure_over_the_seeds() -> None:
    single = [run_point(PointParams(concurrency=10, bursts=3, seed=seed), ["semantic"]) for seed in (7, 8)]
    averaged = run_point(PointParams(concurrency=10, bursts=3, seed=7, repeats=2), ["semantic"])
    for level in range(1, 6):
        values = [point.summaries["semantic"].per_level[level] for point in single]
        finite = [value for value in values if not math.isnan(value)]
        if finite:
            assert averaged.summaries["semantic"].per_level[level] == pytest.approx(sum(finite) / len(finite))
    assert averaged.to_json()["params"]["repeats"] == 2


def test_a_run_with_shedding_gives_the_call_that_would_miss_template_guidance_at_the_sweep() -> None:
    from scheduler.shedding import SheddingOptions
    from scheduler.sim.predictors import Prediction
    from scheduler.sim.simulator import SimShedding, run_requests
    from scheduler.sim.workload import SimRequest

    one_second_a_token = CostModel(a1=0.0, a2=0.0, g1=0.0, g2=1.0, beta=0.0)
    requests = [
        SimRequest("serious", 0.0, 3, 8, 20),  # weighted work 20 / 2 = 10: first
        SimRequest("rash", 0.0, 5, 8, 100),  # 100 / 1 = 100: behind it, projected 120 s > 50 s
        SimRequest("breathing", 0.0, 2, 8, 300),  # never shed, however late
    ]
    predictions = [Prediction(r.esi_level, r.output_tokens, 0.0) for r in requests]
    config = SchedulerConfig(kv_capacity_tokens=4096, max_batch_size=1)
    shedding = SimShedding(SheddingOptions(), (None, 10.0, 100.0, 50.0, 50.0), sweep_interval_s=1000.0)
    run = run_requests("semantic", requests, predictions, config, one_second_a_token, shedding=shedding)
    outcomes = {o.request_id: o for o in run.outcomes}
    assert outcomes["rash"].shed and outcomes["rash"].finish_s == 0.0 and outcomes["rash"].first_token_s == 0.0
    assert not outcomes["serious"].shed and outcomes["serious"].output_tokens == 20
    assert not outcomes["breathing"].shed and outcomes["breathing"].output_tokens == 300
    unshed = run_requests("semantic", requests, predictions, config, one_second_a_token)
    assert not any(o.shed for o in unshed.outcomes) and len(unshed.outcomes) == 3
