"""Tests for the per-victim offload/recompute decision."""

from __future__ import annotations

from scheduler.cost_model import PROFILES, CostModel
from scheduler.policy import eviction_key
from scheduler.sim.eviction import DecodedKVRule, EvictionKind, decide_eviction


def test_eviction_key_reverses_the_scheduling_key() -> None:
    keys = [(1.0, 5.0, 3), (4.0, 1.0, 1), (4.0, 9.0, 2)]
    assert min(keys, key=eviction_key) == (4.0, 9.0, 2)


def test_cheap_reload_offloads_everything() -> None:
    decision = decide_eviction(PROFILES["a100-qwen1.5-4b"], 300, 400, offload_allowed=True)
    assert (decision.offloaded_tokens, decision.recomputed_tokens, decision.kind) == (400, 0, EvictionKind.OFFLOAD)


def test_short_prompt_on_a5000_is_recomputed_with_its_decoded_kv_so_offload_stays_a_prefix() -> None:
    decision = decide_eviction(PROFILES["a5000-qwen1.5-7b"], 300, 420, offload_allowed=True)
    assert (decision.offloaded_tokens, decision.recomputed_tokens, decision.kind) == (0, 420, EvictionKind.RECOMPUTE)


def test_kept_prompt_with_some_decoded_kv_is_a_partial_eviction() -> None:
    # beta = 5 ms: reloading beats a 10 ms prefill token; eq. 5's optimum, 8 + 2 + 1/2 - (5 - 1)/1 = 6.5,
    # keeps 6 of the 8 decoded tokens.
    model = CostModel(a1=0.0, a2=1e-2, g1=1e-3, g2=1e-3, beta=5e-3)
    assert model.decoded_tokens_to_save(2, 8) == 6
    decision = decide_eviction(model, 2, 10, offload_allowed=True)
    assert (decision.offloaded_tokens, decision.recomputed_tokens, decision.kind) == (8, 2, EvictionKind.PARTIAL)


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
