"""The real vLLM 0.32 V1 scheduler without a model: faked outputs, step times from a cost profile.

Builds vLLM's `Scheduler` the way vLLM's own tests do (a directory with only a tiny Llama `config.json`, a KV cache
config with one full-attention group, no weights), feeds it a workload in simulated time, and after each
`schedule()` answers with one fake token per request whose prefill is complete, then `update_from_output()`.
Used by the tests and by `bench vllm-scheduler`. Needs the `vllm` extra; import it only where vLLM is installed.
"""

from __future__ import annotations

import os
import random
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scheduler.cost_model import CostModel, get_profile
from scheduler.policy import ESI_LEVELS
from scheduler.sim.metrics import percentile

BLOCK_SIZE = 16
FAKE_TOKEN = 7


def _environment(workdir: Path) -> None:
    os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("VLLM_CACHE_ROOT", str(workdir / "vllm-cache"))
    os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")


def _tiny_llama_config(workdir: Path, max_model_len: int) -> Path:
    """A directory with only a tiny Llama `config.json`: all vLLM's scheduler reads of a model."""
    from transformers import LlamaConfig

    model_dir = workdir / "tiny-llama-config"
    if not (model_dir / "config.json").is_file():
        config: Any = LlamaConfig(
            vocab_size=1000,
            hidden_size=64,
            intermediate_size=128,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=4,
            max_position_embeddings=max_model_len,
        )
        config.save_pretrained(model_dir)
    return model_dir


def build_scheduler(
    scheduler_cls: Any,
    workdir: Path,
    *,
    max_num_seqs: int = 8,
    max_num_batched_tokens: int = 2048,
    num_blocks: int = 400,
    max_model_len: int = 2048,
    async_scheduling: bool = False,
    additional_config: dict[str, Any] | None = None,
) -> Any:
    """A real vLLM scheduler of class `scheduler_cls` (policy "priority") over a fake KV cache of `num_blocks`;
    `additional_config` is vLLM's, as `engine_args` fills it (our scheduling under `triage_scheduling`)."""
    _environment(workdir)
    import torch
    from vllm.config import CacheConfig, ModelConfig, SchedulerConfig, VllmConfig
    from vllm.v1.kv_cache_interface import FullAttentionSpec, KVCacheConfig, KVCacheGroupSpec
    from vllm.v1.structured_output import StructuredOutputManager

    model_dir = _tiny_llama_config(workdir, max_model_len)
    scheduler_config = SchedulerConfig(
        max_num_seqs=max_num_seqs,
        max_num_batched_tokens=max_num_batched_tokens,
        max_model_len=max_model_len,
        is_encoder_decoder=False,
        enable_chunked_prefill=True,
        policy="priority",
        async_scheduling=async_scheduling,
    )
    model_config = ModelConfig(
        model=str(model_dir), skip_tokenizer_init=True, dtype="float32", seed=0, max_model_len=max_model_len
    )
    cache_config = CacheConfig(block_size=BLOCK_SIZE, enable_prefix_caching=False)
    vllm_config = VllmConfig(
        scheduler_config=scheduler_config,
        model_config=model_config,
        cache_config=cache_config,
        additional_config=dict(additional_config or {}),
    )
    kv_cache_config = KVCacheConfig(
        num_blocks=num_blocks,
        kv_cache_tensors=[],
        kv_cache_groups=[
            KVCacheGroupSpec(
                ["layer"], FullAttentionSpec(block_size=BLOCK_SIZE, num_kv_heads=1, head_size=1, dtype=torch.float32)
            )
        ],
    )
    cache_config.num_gpu_blocks = num_blocks
    return scheduler_cls(
        vllm_config=vllm_config,
        kv_cache_config=kv_cache_config,
        structured_output_manager=StructuredOutputManager(vllm_config),
        block_size=BLOCK_SIZE,
        log_stats=True,
    )


_hash_ready = False


def make_request(
    request_id: str,
    prompt_tokens: int,
    max_tokens: int,
    priority: int,
    arrival_time: float,
    predicted_output_tokens: int | None = None,
) -> Any:
    """A vLLM request carrying its priority and (in `extra_args`) its predicted answer length."""
    global _hash_ready
    from vllm.sampling_params import SamplingParams
    from vllm.v1.core.kv_cache_utils import get_request_block_hasher, init_none_hash
    from vllm.v1.request import Request

    if not _hash_ready:
        init_none_hash(hash)
        _hash_ready = True
    extra = {"predicted_output_tokens": predicted_output_tokens} if predicted_output_tokens else None
    params = SamplingParams(ignore_eos=True, max_tokens=max_tokens, extra_args=extra)
    return Request(
        request_id=request_id,
        prompt_token_ids=[1] * prompt_tokens,
        sampling_params=params,
        pooling_params=None,
        arrival_time=arrival_time,
        priority=priority,
        block_hasher=get_request_block_hasher(BLOCK_SIZE, hash),
    )


def fake_output(scheduler: Any, output: Any) -> Any:
    """One fake token for each scheduled request whose prefill is complete after this step."""
    from vllm.v1.outputs import ModelRunnerOutput

    ids = list(output.num_scheduled_tokens)
    sampled = [[] if scheduler.requests[rid].is_prefill_chunk else [FAKE_TOKEN] for rid in ids]
    return ModelRunnerOutput(
        req_ids=ids, req_id_to_index={rid: i for i, rid in enumerate(ids)}, sampled_token_ids=sampled
    )


@dataclass(frozen=True, slots=True)
class Arrival:
    """A request of the workload: when it arrives, how urgent it is, its sizes."""

    request_id: str
    arrival_s: float
    esi_level: int
    prompt_tokens: int
    output_tokens: int


def burst_after_fill(requests: int = 60, seed: int = 0, urgent_at_s: float = 0.5) -> list[Arrival]:
    """Routine requests (ESI 2-5) at time 0 fill the batch; the ESI 1 requests arrive `urgent_at_s` later."""
    rng = random.Random(seed)
    arrivals = []
    for index in range(requests):
        level = rng.choices(ESI_LEVELS, weights=(0.15, 0.2, 0.3, 0.2, 0.15))[0]
        arrivals.append(
            Arrival(
                f"v{index:03d}-esi{level}",
                urgent_at_s if level == 1 else 0.0,
                level,
                rng.randint(32, 256),
                rng.randint(32, 160),
            )
        )
    return sorted(arrivals, key=lambda arrival: (arrival.arrival_s, -arrival.esi_level))


@dataclass(slots=True)
class VllmRunResult:
    """Times to first token (steps and seconds) per ESI level and how many preemptions happened."""

    ttft_steps: dict[str, list[int]] = field(default_factory=dict)
    ttft_s: dict[str, list[float]] = field(default_factory=dict)
    preemptions: int = 0
    steps: int = 0
    finished: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "ttft_steps_p99": {level: percentile(values, 0.99) for level, values in self.ttft_steps.items()},
            "ttft_s_p99": {level: percentile(values, 0.99) for level, values in self.ttft_s.items()},
            "preemptions": self.preemptions,
            "steps": self.steps,
            "finished": self.finished,
        }


def _step_seconds(scheduler: Any, output: Any, cost: CostModel) -> float:
    """One vLLM forward: every prefill chunk's tokens go through the model (their costs add up), then the decodes
    run as one batch (the slowest sets the time)."""
    prefill = decode = 0.0
    for request_id, tokens in output.num_scheduled_tokens.items():
        request = scheduler.requests[request_id]
        done = request.num_computed_tokens - tokens  # computed before this step
        if tokens > 1 or done < request.num_prompt_tokens:
            prefill += cost.extend_s(max(0, done), done + tokens)
        else:
            decode = max(decode, cost.decode_token_s(done))
    return prefill + decode


def bucketed(tokens: int, width: int = 50) -> int:
    """What a 50-token-bucket length predictor says: the midpoint of the true length's bucket."""
    return (max(tokens, 1) - 1) // width * width + width // 2


def run_workload(
    scheduler_cls: Any,
    arrivals: Sequence[Arrival],
    *,
    cost: CostModel,
    workdir: Path,
    max_num_seqs: int = 16,
    num_blocks: int = 400,
    max_steps: int = 100_000,
) -> VllmRunResult:
    """Drive one scheduler through the workload in simulated time."""
    from scheduler.engines.vllm_scheduler import semantic_priority

    scheduler = build_scheduler(scheduler_cls, workdir, max_num_seqs=max_num_seqs, num_blocks=num_blocks)
    result = VllmRunResult()
    pending = list(arrivals)
    arrived_at: dict[str, tuple[float, int, int]] = {}
    first_seen: set[str] = set()
    now, step = 0.0, 0
    for _ in range(max_steps):
        while pending and pending[0].arrival_s <= now:
            arrival = pending.pop(0)
            # Both schedulers get the same priority (level, predicted remaining work), from a bucketed length
            # prediction: the comparison isolates what ours adds (the vllm#40004 fix, stage awareness).
            predicted = bucketed(arrival.output_tokens)
            priority = semantic_priority(arrival.esi_level, arrival.prompt_tokens, predicted, cost)
            scheduler.add_request(
                make_request(
                    arrival.request_id,
                    arrival.prompt_tokens,
                    arrival.output_tokens,
                    priority,
                    arrival.arrival_s,
                    predicted,
                )
            )
            arrived_at[arrival.request_id] = (now, step, arrival.esi_level)
        if not scheduler.has_requests():
            if not pending:
                break
            now = pending[0].arrival_s
            continue
        output = scheduler.schedule()
        result.preemptions += len(getattr(output, "preempted_req_ids", ()) or ())
        duration = _step_seconds(scheduler, output, cost)
        runner_output = fake_output(scheduler, output)
        engine_outputs = scheduler.update_from_output(output, runner_output)
        now += max(duration, 1e-4)
        step += 1
        for request_id, tokens in zip(runner_output.req_ids, runner_output.sampled_token_ids, strict=True):
            if tokens and request_id not in first_seen:
                first_seen.add(request_id)
                arrived_s, arrived_step, level = arrived_at[request_id]
                result.ttft_steps.setdefault(str(level), []).append(step - arrived_step)
                result.ttft_s.setdefault(str(level), []).append(now - arrived_s)
        for outputs in engine_outputs.values():
            result.finished += sum(1 for item in outputs.outputs if item.finish_reason is not None)
    result.steps = step
    return result


def compare_stock_and_semantic(
    requests: int = 60, seed: int = 0, profile: str = "a100-qwen1.5-4b", num_blocks: int = 400
) -> dict[str, VllmRunResult]:
    """Stock `policy="priority"` against ours on the same workload, in this process."""
    from vllm.v1.core.sched.scheduler import Scheduler

    from scheduler.engines.vllm_scheduler import SemanticVLLMScheduler

    arrivals = burst_after_fill(requests, seed)
    cost = get_profile(profile)
    with tempfile.TemporaryDirectory(prefix="vllm-sim-") as scratch:
        workdir = Path(scratch)
        stock = run_workload(Scheduler, arrivals, cost=cost, workdir=workdir, num_blocks=num_blocks)
        ours = run_workload(SemanticVLLMScheduler, arrivals, cost=cost, workdir=workdir, num_blocks=num_blocks)
        return {"stock-priority": stock, "semantic": ours}
