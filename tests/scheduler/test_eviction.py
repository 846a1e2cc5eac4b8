"""Tests for the per-victim offload/recompute decision."""

from __future__ import annotations

from scheduler.cost_model import PROFILES, CostModel
from scheduler.eviction import DecodedKVRule, EvictionKind, decide_eviction, eviction_key


def test_eviction_key_reverses_the_scheduling_key() -> None:
    keys = [(1.0, 5.0, 3), (4.0, 1.0, 1), (4.0, 9.0, 2)]
    assert min(keys, key=eviction_key) == (4.0, 9.0, 2)


def test_cheap_reload_offloads_everything() -> None:
    decision = decide_eviction(PROFILES["a100-qwen1.5-4b"], 300, 400, offload_allowed=True)
    assert (decision.offloaded_tokens, decision.recomputed_tokens, decision.kind) == (400, 0, EvictionKind.OFFLOAD)


def test_short_prompt_on_a5000_is_recomputed_and_decoded_kv_kept() -> None:
    decision = decide_eviction(PROFILES["a5000-qwen1.5-7b"], 300, 420, offload_allowed=True)
    assert (decision.offloaded_tokens, decision.recomputed_tokens, decision.kind) == (120, 300, EvictionKind.PARTIAL)


def test_paper_eq6_rule_recomputes_decoded_kv() -> None:
    decision = decide_eviction(
        PROFILES["a100-qwen1.5-4b"], 300, 400, offload_allowed=True, decoded_rule=DecodedKVRule.PAPER_EQ6
    )
    assert (decision.offloaded_tokens, decision.recomputed_tokens) == (300, 100)


def test_without_offload_everything_is_recomputed() -> None:
    decision = decide_eviction(CostModel(0, 1, 0, 1, 0), 10, 15, offload_allowed=False)
    assert (decision.offloaded_tokens, decision.recomputed_tokens, decision.kind) == (0, 15, EvictionKind.RECOMPUTE)


def test_partially_prefilled_prompt_uses_only_the_computed_part() -> None:
    decision = decide_eviction(PROFILES["a100-qwen1.5-4b"], 500, 128, offload_allowed=True)
    assert (decision.offloaded_tokens, decision.recomputed_tokens) == (128, 0)
