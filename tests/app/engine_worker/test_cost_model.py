"""The engine's cost model in the product: configured, published in the heartbeat, and what the pipeline scores by."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
import redis

from app.engine_worker.cost_model import ScoringCostModel, configured_cost_model, published_cost_model
from app.redis.keys import ENGINE_HEARTBEAT
from app.settings import Settings
from scheduler.cost_model import CostModel, get_profile
from scheduler.engines.profiling import EngineProfile, save_profile
from scheduler.policy import PolicyOptions
from scheduler.scheduling_contract import Scheduling

MEASURED = CostModel(a1=0.0, a2=3e-4, g1=2e-7, g2=6e-3, beta=1e-4)


def beat(client: redis.Redis, prefix: str, worker: str, **fields: object) -> None:
    client.set(f"{prefix}:{ENGINE_HEARTBEAT}:{worker}", json.dumps(fields))


def test_the_configured_cost_model_is_measure_a_profile_or_a_saved_file(tmp_path: Path) -> None:
    assert configured_cost_model(Settings()) == get_profile("cpu-default")  # measure: the default until measured
    assert configured_cost_model(Settings(engine_cost_model="a100-qwen1.5-7b")) == get_profile("a100-qwen1.5-7b")
    saved = tmp_path / "profile.json"
    save_profile(EngineProfile(MEASURED, [(16, 0.01)], [(17, 0.006)]), saved)
    assert configured_cost_model(Settings(engine_cost_model=str(saved))) == MEASURED
    with pytest.raises(ValueError, match="unknown engine cost model 'h100'"):
        Settings(engine_cost_model="h100")


def test_the_pipeline_scores_with_the_model_an_engine_publishes_else_the_configured_one(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    settings = Settings(redis_url=redis_url, queue_prefix="cost-published", engine_cost_model="a100-qwen1.5-4b")
    assert published_cost_model(client, settings.queue_prefix) is None
    assert ScoringCostModel(settings, client).get() == get_profile("a100-qwen1.5-4b")  # no engine has beaten yet
    # A worker still loading publishes no scheduling; a serving one publishes what its scheduler reports.
    beat(client, settings.queue_prefix, "a-loading", state="loading", ok=False)
    scheduling = Scheduling("semantic", PolicyOptions(), MEASURED).to_dict()
    beat(client, settings.queue_prefix, "b-serving", state="serving", ok=True, scheduling=scheduling)
    assert published_cost_model(client, settings.queue_prefix) == MEASURED
    assert ScoringCostModel(settings, client).get() == MEASURED
    assert dataclasses.asdict(MEASURED) == scheduling["cost_coefficients"]
