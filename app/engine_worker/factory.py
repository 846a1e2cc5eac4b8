"""The engine, its model and tokenizer, built from Settings: hf, vllm, or the built-in tiny Llama."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.engine_worker.builtin_models import BUILTIN_TINY
from app.engine_worker.cost_model import configured_cost_model
from app.settings import DATA_DIR, Settings
from scheduler.engines.base import Engine


def resolve_model(name: str) -> str:
    """A model path or hub id; `builtin:tiny-llama` is built into the data directory on first use."""
    if name != BUILTIN_TINY:
        return name
    from scheduler.engines.tiny_models import build_tiny_llama

    directory = DATA_DIR / "models"
    if not _is_current_tiny_llama(directory / "tiny-llama"):
        build_tiny_llama(directory)
    return str(directory / "tiny-llama")


def _is_current_tiny_llama(directory: Path) -> bool:
    """Whether the built-in model was built by this version's builder (older ones are too narrow for vLLM)."""
    from scheduler.engines.tiny_models import TINY_LLAMA_HIDDEN

    try:
        config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(config, dict) and config.get("hidden_size") == TINY_LLAMA_HIDDEN


def build_engine(settings: Settings) -> Engine:
    """The engine named in settings, sized from settings."""
    model = resolve_model(settings.model)
    if settings.engine == "hf":
        return _hf_engine(settings, model)
    return _vllm_engine(settings, model)


def _hf_engine(settings: Settings, model: str) -> Engine:
    from scheduler.engines.hf import HFEngine, HFEngineConfig

    return HFEngine(
        HFEngineConfig(
            model_path=model,
            num_blocks=settings.engine_num_blocks,
            block_size=settings.engine_block_size,
            max_batch_tokens=settings.engine_max_batch_tokens,
            max_requests_per_batch=settings.engine_max_requests,
            policy=settings.scheduling_policy,
            policy_options=settings.policy_options,
            cost_model=configured_cost_model(settings),
        )
    )


def _vllm_engine(settings: Settings, model: str) -> Engine:
    from scheduler.engines.vllm_engine import VLLMEngine, VLLMEngineConfig

    return VLLMEngine(
        VLLMEngineConfig(
            model=model,
            max_model_len=min(settings.vllm_max_model_len, model_positions(model)),
            max_num_seqs=settings.engine_max_requests * 4,
            gpu_memory_utilization=settings.vllm_gpu_memory_utilization,
            kv_cache_gib=settings.vllm_kv_cache_gib,
            kv_offloading_gib=settings.vllm_kv_offloading_gib,
            enforce_eager=settings.vllm_enforce_eager,
            policy=settings.scheduling_policy,
            policy_options=settings.policy_options,
            cost_model=configured_cost_model(settings),
        )
    )


def model_positions(model: str) -> int:
    """The longest sequence the model takes."""
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(model)
    return int(getattr(config, "max_position_embeddings", 4096) or 4096)


def load_tokenizer(model: str) -> Any:
    """The model's tokenizer."""
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(model)


def serving_positions(engine: Engine, model: str) -> int:
    """The longest sequence the engine serves with this model: the model's positions, capped by the engine's own
    `max_model_len` when it has one (vLLM). Shared with the `llm` triage backend (`app/incidents/triage_llm.py`)."""
    max_positions = model_positions(model)
    engine_limit = getattr(getattr(engine, "config", None), "max_model_len", None)
    if isinstance(engine_limit, int):
        max_positions = min(max_positions, engine_limit)
    return max_positions
