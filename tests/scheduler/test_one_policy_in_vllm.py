"""The configured policy is the one vLLM runs: TRIAGE_POLICY_* options go through the factory and vLLM's own config
into our scheduler, which reads them in `__init__`, acts on them, and reports them back from the engine core."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("vllm", reason="the vllm extra is installed by `make test`")

from app.engine_worker.factory import build_engine
from app.settings import Settings
from scheduler.bench.vllm_sim import build_scheduler, fake_output, make_request
from scheduler.cost_model import CostModel
from scheduler.engines.tiny_models import build_tiny_llama
from scheduler.engines.vllm_engine import VLLMEngine, engine_args
from scheduler.engines.vllm_scheduler import SemanticVLLMScheduler
from scheduler.policy import PolicyOptions, encode_priority
from scheduler.scheduling_contract import SCHEDULING_KEY, Scheduling, SchedulingConfigError

CAPPED = PolicyOptions(max_preemptions=1, limited_preemption=None, max_deferred_steps=0)
"""Non-default: the preemption cap at 1, limited preemption off, prefill deferral off."""


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_llama(tmp_path_factory.mktemp("one-policy-model"))


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("one-policy-vllm")


def capped_settings(model_dir: Path) -> Settings:
    return Settings(
        engine="vllm",
        model=str(model_dir),
        scheduling_policy="semantic-strict",
        policy_max_preemptions=1,
        policy_limited_preemption=None,
        policy_max_deferred_steps=0,
        vllm_max_model_len=512,
        vllm_kv_cache_gib=0.25,
        vllm_enforce_eager=True,
        engine_max_requests=1,
    )


def factory_config(model_dir: Path) -> dict[str, Any]:
    """vLLM's `additional_config` as the factory's engine hands it to vLLM (what the engine core is built from)."""
    engine = build_engine(capped_settings(model_dir))
    assert isinstance(engine, VLLMEngine)
    return dict(engine_args(engine.config, "cpu").additional_config)


def prio(level: int, remaining_ms: int = 0) -> int:
    """A `semantic-strict` priority: the band is the level."""
    return encode_priority((level, remaining_ms / 1000, level, 0))


def step(scheduler: Any) -> Any:
    output = scheduler.schedule()
    scheduler.update_from_output(output, fake_output(scheduler, output))
    return output


def test_the_factory_carries_the_settings_options_into_vllms_config(model_dir: Path) -> None:
    settings = capped_settings(model_dir)
    assert settings.policy_options == CAPPED
    expected = Scheduling("semantic-strict", CAPPED).to_dict()
    assert factory_config(model_dir) == {SCHEDULING_KEY: expected}


def test_the_scheduler_reads_its_options_from_vllms_config_and_reports_them(model_dir: Path, workdir: Path) -> None:
    scheduler = build_scheduler(SemanticVLLMScheduler, workdir, additional_config=factory_config(model_dir))
    assert scheduler.options == CAPPED
    assert scheduler() == scheduler.scheduling() == Scheduling("semantic-strict", CAPPED).to_dict()
    bare = build_scheduler(SemanticVLLMScheduler, workdir)  # as vLLM's own tests build it: the defaults
    assert bare.options == PolicyOptions()
    assert SemanticVLLMScheduler.__dict__.get("options") is None  # no class attribute to fall back on


def test_a_malformed_scheduling_value_is_refused_with_its_reason(workdir: Path) -> None:
    malformed = {SCHEDULING_KEY: {"policy": "semantic", "options": {"max_preemptions": -1}}}
    with pytest.raises(SchedulingConfigError, match="max_preemptions must be >= 0"):
        build_scheduler(SemanticVLLMScheduler, workdir, additional_config=malformed)
    with pytest.raises(SchedulingConfigError, match=r"unknown options \['max_preemption'\]"):
        build_scheduler(
            SemanticVLLMScheduler, workdir, additional_config={SCHEDULING_KEY: {"options": {"max_preemption": 1}}}
        )


def routine_arrives_while_urgent_decodes(scheduler: Any) -> set[str]:
    """An ESI 1 request decoding, then an ESI 4 one arrives: which requests the next step schedules."""
    scheduler.add_request(make_request("urgent", 10, 20, prio(1), 0.0, 20))
    step(scheduler)
    scheduler.add_request(make_request("routine", 40, 20, prio(4), 0.5, 20))
    return set(step(scheduler).num_scheduled_tokens)


def test_with_deferral_off_vllm_never_defers_a_prefill(model_dir: Path, workdir: Path) -> None:
    capped = build_scheduler(
        SemanticVLLMScheduler, workdir, max_num_seqs=4, additional_config=factory_config(model_dir)
    )
    default = build_scheduler(SemanticVLLMScheduler, workdir, max_num_seqs=4)
    assert routine_arrives_while_urgent_decodes(default) == {"urgent"}  # deferred (the default: up to 4 steps)
    assert routine_arrives_while_urgent_decodes(capped) == {"urgent", "routine"}


def preempted_twice_over(scheduler: Any) -> tuple[set[str], set[str], int]:
    """A batch of two (ESI 5 `low`, ESI 4 `mid`, both decoding long answers); an ESI 3 request arrives, finishes,
    `low` runs again; a second ESI 3 request arrives. The victims of each arrival, and `low`'s preemptions."""
    scheduler.add_request(make_request("low", 10, 200, prio(5, 900), 0.0, 200))
    scheduler.add_request(make_request("mid", 10, 200, prio(4, 100), 0.1, 200))
    step(scheduler)
    step(scheduler)
    scheduler.add_request(make_request("first", 10, 2, prio(3), 1.0, 2))
    first = set(step(scheduler).preempted_req_ids)
    for _ in range(12):  # `first` finishes; `low` is admitted again (after at most 4 deferred steps) and decodes
        if "low" in step(scheduler).num_scheduled_tokens and "low" in {r.request_id for r in scheduler.running}:
            break
    step(scheduler)
    scheduler.add_request(make_request("second", 10, 2, prio(3), 2.0, 2))
    second = set(step(scheduler).preempted_req_ids)
    low = scheduler.requests["low"]
    return first, second, int(low.num_preemptions)


def test_with_the_cap_at_1_vllm_preempts_a_request_at_most_once(model_dir: Path, workdir: Path) -> None:
    capped = build_scheduler(
        SemanticVLLMScheduler, workdir, max_num_seqs=2, additional_config=factory_config(model_dir)
    )
    default = build_scheduler(SemanticVLLMScheduler, workdir, max_num_seqs=2)
    assert preempted_twice_over(default) == ({"low"}, {"low"}, 2)  # the default cap is 3
    assert preempted_twice_over(capped) == ({"low"}, {"mid"}, 1)  # pinned after one: the next victim is `mid`


def test_the_engine_core_reports_the_configured_scheduling_back(model_dir: Path) -> None:
    engine = build_engine(capped_settings(model_dir))

    async def read_back() -> dict[str, Any] | None:
        await engine.start()
        try:
            return await asyncio.wait_for(engine.scheduling_in_force(), 60.0)
        finally:
            await engine.stop()

    assert asyncio.run(asyncio.wait_for(read_back(), 240.0)) == Scheduling("semantic-strict", CAPPED).to_dict()


def test_a_measured_cost_model_reaches_the_scheduler_and_is_reported_back(model_dir: Path, workdir: Path) -> None:
    scheduler = build_scheduler(SemanticVLLMScheduler, workdir, additional_config=factory_config(model_dir))
    measured = CostModel(a1=0.0, a2=2e-4, g1=0.0, g2=5e-3, beta=1e-4)
    # The utility call `VLLMEngine.use_cost_model` makes into the engine core: the scheduler holds it from then on.
    assert scheduler(dataclasses.asdict(measured)) == Scheduling("semantic-strict", CAPPED, measured).to_dict()
    assert scheduler()["cost_coefficients"] == dataclasses.asdict(measured)
    assert scheduler.options == CAPPED
