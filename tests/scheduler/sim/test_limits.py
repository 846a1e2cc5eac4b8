"""Tests for the per-level limit: the same workload with only the requests of levels 1..k."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli.main import cli
from scheduler.cost_model import CostModel
from scheduler.sim.config import SchedulerConfig
from scheduler.sim.experiments import PointParams, run_point
from scheduler.sim.limits import level_limits, mean_limits, requests_up_to
from scheduler.sim.predictors import Prediction, PredictorSpec, predict
from scheduler.sim.simulator import simulate
from scheduler.sim.workload import SimRequest, WorkloadSpec, generate_workload

# Prefill 1 ms per token, decode 10 ms per token whatever the context: waits can be worked out by hand.
LINEAR_COSTS = CostModel(a1=0.0, a2=1e-3, g1=0.0, g2=1e-2, beta=1e-4)
# Free prefill, constant 1/64 s decode steps, bursts every 8 steps: every arrival lands on a step boundary,
# so less urgent work can reach an ESI 1 request only through batch slots or by being served first.
STEP_GRID_COSTS = CostModel(a1=0.0, a2=0.0, g1=0.0, g2=1 / 64, beta=0.0)
ROOMY = SchedulerConfig(kv_capacity_tokens=1 << 20, max_batch_size=4, mixed_steps=False)


def sim_request(request_id: str, esi_level: int, prompt_tokens: int, output_tokens: int) -> SimRequest:
    return SimRequest(request_id, 0.0, esi_level, prompt_tokens, output_tokens)


def exact_predictions(requests: list[SimRequest]) -> list[Prediction]:
    return [Prediction(r.esi_level, r.output_tokens, r.arrival_s) for r in requests]


def seeded_workload(seed: int) -> tuple[list[SimRequest], list[Prediction]]:
    requests = generate_workload(WorkloadSpec(gap_s=0.125, max_concurrent=10, bursts=6, seed=seed))
    return requests, predict(requests, PredictorSpec(latency_s=0.0), 500, seed)


def test_requests_up_to_keeps_levels_1_to_k_with_their_own_predictions() -> None:
    requests, predictions = seeded_workload(3)
    for esi_level in range(1, 6):
        kept, kept_predictions = requests_up_to(requests, predictions, esi_level)
        assert {request.esi_level for request in kept} <= set(range(1, esi_level + 1))
        assert len(kept) == sum(1 for request in requests if request.esi_level <= esi_level)
        assert kept == [request for request in requests if request.esi_level <= esi_level]
        by_id = {request.request_id: prediction for request, prediction in zip(requests, predictions, strict=True)}
        assert kept_predictions == [by_id[request.request_id] for request in kept]
    assert requests_up_to(requests, predictions, 5) == (requests, predictions)


def test_level_limits_of_a_hand_built_workload_match_the_worked_answer() -> None:
    # Both arrive at t=0 and prefill in one step: 0.3 s (the ESI 3 prompt is the longer), then 10 ms a token.
    requests = [sim_request("urgent", 1, 100, 10), sim_request("later", 3, 300, 20)]
    predictions = exact_predictions(requests)
    full = simulate("semantic", requests, predictions, ROOMY, LINEAR_COSTS)
    limits = level_limits(requests, predictions, policy="semantic", config=ROOMY, cost_model=LINEAR_COSTS)
    assert full.per_level[1] == pytest.approx((0.3 + 9 * 0.01) / 10, abs=1e-9)
    # Alone, the ESI 1 request prefills in 0.1 s: its limit is what it gets with only ESI 1 running.
    assert limits[1] == pytest.approx((0.1 + 9 * 0.01) / 10, abs=1e-9)
    alone = simulate("semantic", requests[:1], predictions[:1], ROOMY, LINEAR_COSTS)
    assert limits[1] == pytest.approx(alone.per_level[1], abs=1e-9)
    assert limits[1] <= full.per_level[1]
    assert limits[3] == pytest.approx((0.3 + 19 * 0.01) / 20, abs=1e-9)  # levels 1..3 are the whole workload
    assert [math.isnan(limits[level]) for level in (2, 4, 5)] == [True, True, True]  # no request of that level


def test_strict_order_keeps_esi_1_at_its_limit_on_a_seeded_workload() -> None:
    requests, predictions = seeded_workload(3)
    for policy, at_limit in (("semantic", True), ("fcfs", False)):
        full = simulate(policy, requests, predictions, ROOMY, STEP_GRID_COSTS)
        limits = level_limits(
            requests, predictions, policy=policy, config=ROOMY, cost_model=STEP_GRID_COSTS, full_run=full
        )
        assert limits[1] <= full.per_level[1] + 1e-9, policy
        if at_limit:
            assert full.per_level[1] == pytest.approx(limits[1], abs=1e-9)
        else:  # FCFS serves ESI 1 behind everything that arrived earlier: far from its limit
            assert full.per_level[1] > 5 * limits[1]


def test_the_full_run_is_reused_where_the_filtered_workload_is_the_whole_one() -> None:
    requests, predictions = seeded_workload(3)
    full = simulate("semantic", requests, predictions, ROOMY, STEP_GRID_COSTS)
    marked = dataclasses.replace(full, per_level={**full.per_level, 5: 123.0})
    limits = level_limits(
        requests, predictions, policy="semantic", config=ROOMY, cost_model=STEP_GRID_COSTS, full_run=marked
    )
    assert limits[5] == 123.0


def test_mean_limits_ignore_seeds_without_the_level() -> None:
    runs = [{1: 0.1, 2: math.nan, 3: 0.3, 4: 0.4, 5: 0.5}, {1: 0.3, 2: 0.2, 3: 0.5, 4: 0.4, 5: 0.5}]
    means = mean_limits(runs)
    assert means[1] == pytest.approx(0.2) and means[2] == pytest.approx(0.2) and means[3] == pytest.approx(0.4)
    assert math.isnan(mean_limits([{1: math.nan}])[1])


def test_point_json_has_limits_and_each_policys_ratio_to_them() -> None:
    point = run_point(PointParams(concurrency=8, bursts=3, seed=4), ["semantic", "fcfs"])
    data = point.to_json()
    assert list(data["limits"]) == ["1", "2", "3", "4", "5"]
    assert set(data["policies"]["fcfs"]["ratio_to_limit"]) == {"1", "2", "3", "4", "5"}
    assert "limits" not in run_point(PointParams(concurrency=8, bursts=3), ["fcfs"], limit_policy=None).to_json()


def test_bench_sim_json_and_report_show_the_limits(tmp_path: Path) -> None:
    out = tmp_path / "report"
    args = ["bench", "sim", "--concurrency", "8", "--bursts", "3", "--seed", "4", "--out", str(out), "--json"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data["limits"]) == {"1", "2", "3", "4", "5"}
    assert set(data["policies"]) == {"semantic", "semantic-strict", "fcfs", "sjf", "hpjf", "vllm-priority"}
    report = (out / "report.md").read_text()
    assert "| limit |" in report and "ESI 1 x limit" in report
