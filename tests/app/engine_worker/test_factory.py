"""The factory hands every engine the same scheduling from Settings, and the heartbeat carries what it reports."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from app.engine_worker.factory import build_engine
from app.engine_worker.scheduling_beat import scheduling_beat
from app.settings import Settings
from scheduler.engines.hf import HFEngine
from scheduler.engines.tiny_models import build_tiny_llama
from scheduler.engines.vllm_engine import VLLMEngine
from scheduler.policy import PolicyOptions
from scheduler.scheduling_contract import Scheduling

CAPPED = PolicyOptions(max_preemptions=1, limited_preemption=None, max_deferred_steps=0)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_llama(tmp_path_factory.mktemp("factory-model"))


def capped(engine: str, model_dir: Path) -> Settings:
    return Settings(
        engine=engine,
        model=str(model_dir),
        scheduling_policy="semantic-strict",
        policy_max_preemptions=1,
        policy_limited_preemption=None,
        policy_max_deferred_steps=0,
    )


def test_the_factory_hands_the_vllm_engine_the_policy_and_its_options(model_dir: Path) -> None:
    engine = build_engine(capped("vllm", model_dir))
    assert isinstance(engine, VLLMEngine)
    assert (engine.config.policy, engine.config.policy_options) == ("semantic-strict", CAPPED)
    assert engine.config.scheduling == Scheduling("semantic-strict", CAPPED)


def test_the_factory_hands_the_hf_engine_the_same_scheduling(model_dir: Path) -> None:
    engine = build_engine(capped("hf", model_dir))
    assert isinstance(engine, HFEngine)
    assert (engine.config.policy, engine.config.policy_options) == ("semantic-strict", CAPPED)


def test_the_heartbeat_carries_the_scheduling_the_engine_reports(model_dir: Path) -> None:
    hf = build_engine(capped("hf", model_dir))
    expected = Scheduling("semantic-strict", CAPPED, hf.config.cost_model).to_dict()  # type: ignore[attr-defined]
    assert asyncio.run(scheduling_beat(hf)) == {"scheduling": expected}
    not_started = build_engine(capped("vllm", model_dir))  # nothing to read back from yet
    assert asyncio.run(scheduling_beat(not_started)) == {"scheduling": None}
