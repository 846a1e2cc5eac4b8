"""pytest plugin: vLLM 0.32.0's own `tests/v1/core` scheduler tests, run with our scheduler in place of vLLM's.

`make vllm-upstream-tests` downloads the `vllm==0.32.0` source distribution from PyPI, extracts its `tests/v1/core`
(and the few helper modules those tests import) into `.vllm-upstream/` and runs them from there with
`-p vllm_upstream`. This plugin, loaded before any test module is imported:

- replaces `vllm.v1.core.sched.scheduler.Scheduler` and `vllm.v1.core.sched.async_scheduler.AsyncScheduler` by
  `SemanticVLLMScheduler` and `SemanticVLLMAsyncScheduler`, so that every `from ... import Scheduler` in the test
  modules and their helpers (`tests/v1/core/utils.py:create_scheduler`, `tests/v1/kv_connector/unit/utils.py`, the
  tests that build their own) binds ours; and checks it: every scheduler a test constructs is recorded (through vLLM's
  `Scheduler.__init__`), and a test that built a stock vLLM scheduler fails;
- gives the tests the Hugging Face model configurations they name (`facebook/opt-125m`, `facebook/opt-350m`) in an
  offline hub cache of its own: a `config.json` only, as vLLM's scheduler needs no weights and no tokenizer;
- leaves out, skips or expects to fail exactly the files and tests in `NOT_SELECTED`, `SKIPS` and `XFAILS`, each
  with its reason (the one list); an entry that matches no test is an error.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

# Before vLLM or huggingface_hub is imported: the CPU platform, no hub access, a hub cache of our own.
_HUB = Path(tempfile.mkdtemp(prefix="vllm-upstream-hub-"))
os.environ["HF_HUB_CACHE"] = str(_HUB)
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")
_CACHE = Path(tempfile.mkdtemp(prefix="vllm-upstream-cache-"))
os.environ.setdefault("VLLM_CACHE_ROOT", str(_CACHE))

# ----- what does not run, and why (the one list) -----------------------------------------------------------------

_LLAVA = (
    "multimodal (llava-hf/llava-1.5-7b-hf): vLLM inspects the Llava model class, whose module imports "
    "`mistral_common`, not in the lean vLLM install, and the model's configuration and processor files are on the "
    "Hugging Face Hub (no network here but PyPI)"
)
_QWEN_VL = (
    "multimodal (Qwen/Qwen2.5-VL-3B-Instruct, random image inputs): that model's configuration and processor are on "
    "the Hugging Face Hub (no network here but PyPI)"
)
_E2E = (
    "end to end: loads and runs a real model ({}) from the Hugging Face Hub (no network here but PyPI; vLLM's CPU "
    "kernels are not in the lean install either)"
)

NOT_SELECTED: dict[str, str] = {
    "tests/v1/core/test_kv_cache_utils.py": (
        "not a scheduler test: KV cache configuration utilities (page sizes, layer grouping, memory sizing) that build "
        "no scheduler; here 49 of its cases would fail for the model configurations they name (Qwen/Qwen3-0.6B, "
        "Qwen/Qwen1.5-7B), which are on the Hub, and 8 for upstream's `caplog_vllm` fixture (its tests/conftest.py)"
    ),
}
"""Files of tests/v1/core left out of the selection on purpose, with why."""

SKIPS: dict[str, str] = {
    "tests/v1/core/test_scheduler_e2e.py": _E2E.format("hmellor/tiny-random-LlamaForCausalLM"),
    "tests/v1/core/test_reset_prefix_cache_e2e.py": _E2E.format("Qwen/Qwen3-0.6B"),
    "tests/v1/core/prefix_cache/test_hybrid_prefix_cache_hit_rate.py": _E2E.format(
        "Qwen/Qwen3.5-0.8B, behind vLLM's OpenAI server; its helper module tests/utils.py also needs `anthropic`"
    ),
    "tests/v1/core/test_priority_scheduler_random.py::test_priority_scheduling_blast": _QWEN_VL,
    **{
        f"tests/v1/core/test_scheduler.py::{name}": _LLAVA
        for name in (
            "test_schedule_multimodal_requests",
            "test_schedule_partial_requests",
            "test_encoder_only_prompt_longer_than_budget_is_chunked",
            "test_same_step_duplicate_encoder_input_stays_cached",
            "test_no_mm_input_chunking",
            "test_no_mm_input_chunking_for_same_step_duplicate",
            "test_ec_connector_text_only_request",
            "test_ec_connector_cache_hit_external_load",
            "test_ec_connector_cache_miss_computes_locally",
            "test_ec_connector_with_partial_cache_hit_multi_round",
            "test_ec_connector_schedule_multiple_requests",
            "test_ec_connector_unable_to_allocate",
            "test_priority_scheduling_ec_connector_preemption_and_resumption",
            "test_ec_connector_allocate_encoder_tokens_with_external_load",
            "test_ec_connector_update_connector_output_called",
            "test_eagle3_mm_encoder_cache_with_shift",
            "test_free_encoder_inputs_respects_unconfirmed_placeholders",
            "test_free_encoder_inputs_notifies_the_ec_connector",
            "test_unavailable_encoder_input_fails_the_request_as_retryable",
            "test_encoder_cache_accepts_matching_embed_count",
            "test_encoder_cache_rejects_mismatched_embed_count",
            "test_encoder_cache_embed_count_mismatch_restores_prior_hit_state",
            "test_encoder_cache_rejects_mismatched_embed_count_within_request",
            "test_free_encoder_inputs_defers_for_eagle_lookahead",
            "test_free_encoder_inputs_unchanged_without_spec_decode",
            "test_encoder_cache_retained_across_preemption_and_resume",
            "test_encoder_cache_recomputed_when_evicted_during_preemption",
            "test_ec_connector_ensure_cache_available_defers_request",
            "test_ec_connector_defers_running_request_for_async_reload",
        )
    },
}
"""Test id (relative to the sdist root, with or without its parameters), or a whole file -> why it cannot run here.
Whole files are not even imported."""

_ENCODING = (
    "policy, on purpose (docs/engines.md, `decoded_priority`): the test orders requests by raw vLLM priorities "
    "({}), which are outside our encoding (ESI level * 10^8 + remaining ms), so ours reads every one of them as "
    "the same unencoded ESI 5 priority and orders them by arrival alone{}"
)

XFAILS: dict[str, str] = {
    "tests/v1/core/test_scheduler.py::test_priority_scheduling_basic_ordering": _ENCODING.format("2, 0, 1", ""),
    "tests/v1/core/test_scheduler.py::test_priority_scheduling_mixed_priority_and_arrival": _ENCODING.format(
        "2, 1, 1, 0", ""
    ),
    "tests/v1/core/test_scheduler.py::test_priority_scheduling_preemption": _ENCODING.format(
        "low and high", ": under KV pressure vLLM's victim is then the last arrived, not the raw-low-priority one"
    ),
    "tests/v1/core/test_scheduler.py::test_priority_scheduling_preemption_victim_selection": _ENCODING.format(
        "3, 2, 0", ""
    ),
    "tests/v1/core/test_scheduler.py::test_priority_scheduling_waiting_queue_order": _ENCODING.format(
        "distinct small integers", ""
    ),
    "tests/v1/core/test_scheduler.py::test_priority_scheduling_with_limited_slots": _ENCODING.format(
        "distinct small integers", ""
    ),
    "tests/v1/core/test_scheduler.py::test_priority_scheduling_heap_property": _ENCODING.format(
        "1..N", "; and it reads `request.priority` back, which ours stores decoded at add_request (599999999)"
    ),
    "tests/v1/core/test_scheduler.py::test_priority_scheduling_preemption_and_resumption_when_out_of_kv": (
        _ENCODING.format("1 and 0", ": the later, raw-higher-priority request is the KV-pressure victim")
    ),
    "tests/v1/core/test_worker_slot_overflow.py::test_reset_prefix_cache_priority_does_not_over_admit_worker_slot": (
        _ENCODING.format(
            "10 and 0",
            ": the raw-0 newcomer B does not outrank the force-preempted A, so A, not B, is re-admitted into the "
            "one slot (the test's first check, that A's force-preemption is reported in that step's output, passes)",
        )
    ),
}
"""Test id -> why it fails with our scheduler. Strict: a listed test that passes fails the run. Each of these passes
when `decoded_priority` is replaced by the identity (checked by hand): the raw priorities are the only cause."""


# ----- the swap ----------------------------------------------------------------------------------------------------

from vllm.v1.core.sched import async_scheduler as _async_scheduler_module  # noqa: E402
from vllm.v1.core.sched import scheduler as _scheduler_module  # noqa: E402

from scheduler.engines.vllm_scheduler import SemanticVLLMAsyncScheduler, SemanticVLLMScheduler  # noqa: E402

_STOCK_SCHEDULER: Any = _scheduler_module.Scheduler
_STOCK_ASYNC_SCHEDULER: Any = _async_scheduler_module.AsyncScheduler
assert issubclass(SemanticVLLMScheduler, _STOCK_SCHEDULER)
assert issubclass(SemanticVLLMAsyncScheduler, _STOCK_ASYNC_SCHEDULER)

_scheduler_module.Scheduler = SemanticVLLMScheduler
_async_scheduler_module.AsyncScheduler = SemanticVLLMAsyncScheduler

_built: list[type[Any]] = []
_stock_init = _STOCK_SCHEDULER.__init__


_built_total: dict[type[Any], int] = {}


def _recording_init(self: Any, *args: Any, **kwargs: Any) -> None:
    _built.append(type(self))
    _built_total[type(self)] = _built_total.get(type(self), 0) + 1
    _stock_init(self, *args, **kwargs)


_STOCK_SCHEDULER.__init__ = _recording_init


def _is_ours(cls: type[Any]) -> bool:
    if issubclass(cls, _STOCK_ASYNC_SCHEDULER):
        return issubclass(cls, SemanticVLLMAsyncScheduler)
    return issubclass(cls, SemanticVLLMScheduler)


@pytest.fixture(autouse=True)
def _every_scheduler_is_ours() -> Any:
    """Fails a test that constructed a stock vLLM scheduler (one not of our classes)."""
    _built.clear()
    yield
    stock = sorted({cls.__qualname__ for cls in _built if not _is_ours(cls)})
    assert not stock, f"the test built a stock vLLM scheduler: {stock}"


# ----- the model configurations the tests name -------------------------------------------------------------------


def _hub_config(repo_id: str, config: Any) -> None:
    revision = "0" * 40
    root = _HUB / ("models--" + repo_id.replace("/", "--"))
    snapshot = root / "snapshots" / revision
    snapshot.mkdir(parents=True, exist_ok=True)
    (root / "refs").mkdir(exist_ok=True)
    (root / "refs" / "main").write_text(revision)
    config.save_pretrained(snapshot)


def _fake_hub() -> None:
    from transformers import OPTConfig

    # The architecture of the models the tests name; the scheduler reads max_model_len and little else.
    _hub_config("facebook/opt-125m", OPTConfig(architectures=["OPTForCausalLM"], torch_dtype="float16"))
    _hub_config(
        "facebook/opt-350m",
        OPTConfig(
            architectures=["OPTForCausalLM"],
            hidden_size=1024,
            ffn_dim=4096,
            num_hidden_layers=24,
            num_attention_heads=16,
            word_embed_proj_dim=512,
            torch_dtype="float16",
        ),
    )


_fake_hub()


# ----- skips and expected failures -------------------------------------------------------------------------------


def _reason(nodeid: str, table: dict[str, str]) -> tuple[str, str] | None:
    """The entry of `table` for a test: its exact id, or its id without parameters."""
    for key in (nodeid, nodeid.split("[", 1)[0]):
        if key in table:
            return key, table[key]
    return None


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Whole files in `SKIPS` are not even imported (they need packages or models this machine does not have)."""
    relative = collection_path.relative_to(config.rootpath).as_posix() if collection_path.is_file() else ""
    return True if relative in SKIPS or relative in NOT_SELECTED else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    used = {key for key in SKIPS if key.endswith(".py")}
    for item in items:
        if (entry := _reason(item.nodeid, SKIPS)) is not None:
            item.add_marker(pytest.mark.skip(reason=entry[1]))
            used.add(entry[0])
        elif (entry := _reason(item.nodeid, XFAILS)) is not None:
            item.add_marker(pytest.mark.xfail(reason=entry[1], strict=True))
            used.add(entry[0])
    # An entry that matches nothing (a renamed test, a wrong id) would hide nothing yet look like it does: when the
    # whole of tests/v1/core runs, that is an error.
    stale = sorted(key for key in (*SKIPS, *XFAILS) if key not in used)
    if stale and not config.option.keyword and config.args == ["tests/v1/core"]:
        raise pytest.UsageError(f"skip/xfail entries that match no collected test: {stale}")


def pytest_terminal_summary(terminalreporter: Any) -> None:
    terminalreporter.section("vLLM 0.32.0 tests/v1/core with our scheduler")
    terminalreporter.write_line(
        f"schedulers built: {_built_total.get(SemanticVLLMScheduler, 0)} SemanticVLLMScheduler, "
        f"{_built_total.get(SemanticVLLMAsyncScheduler, 0)} SemanticVLLMAsyncScheduler, "
        f"{sum(n for cls, n in _built_total.items() if not _is_ours(cls))} stock"
    )
    for key, reason in (*NOT_SELECTED.items(), *((k, r) for k, r in SKIPS.items() if k.endswith(".py"))):
        terminalreporter.write_line(f"not collected: {key}: {reason}")


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(_HUB, ignore_errors=True)
    shutil.rmtree(_CACHE, ignore_errors=True)
