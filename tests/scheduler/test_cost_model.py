"""Tests for the cost model: formulas, the offload/recompute rules, profiles and fitting."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scheduler.cost_model import CPU_DEFAULT_PROFILE, PROFILES, CostModel, estimate_remaining_s, fit, get_profile


def test_formulas_match_the_paper() -> None:
    model = CostModel(a1=2e-6, a2=1e-3, g1=1e-5, g2=2e-2, beta=5e-4)
    assert model.prefill_s(100) == pytest.approx(2e-6 * 100**2 + 1e-3 * 100)
    assert model.extend_s(40, 100) == pytest.approx(model.prefill_s(100) - model.prefill_s(40))
    assert model.decode_token_s(300) == pytest.approx(1e-5 * 300 + 2e-2)
    # eq. 4 equals the sum of per-token costs from n+1 to n+m
    assert model.decode_s(100, 7) == pytest.approx(sum(model.decode_token_s(i) for i in range(101, 108)))
    assert model.reload_s(10) == pytest.approx(5e-3)


def test_profiles_carry_the_design_note_numbers() -> None:
    assert get_profile("a100-qwen1.5-4b") == CostModel(1.466e-9, 1.052e-4, 5.913e-9, 1.196e-2, 1e-4)
    assert get_profile("a100-qwen1.5-7b") == CostModel(5.135e-7, 1.481e-4, 1.349e-8, 1.330e-2, 1e-4)
    assert get_profile("a5000-qwen1.5-7b") == CostModel(1.859e-9, 2.175e-4, 2.117e-6, 2.727e-2, 3e-4)


def test_unknown_profile_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"a100-qwen1\.5-4b"):
        get_profile("h100-llama")


def test_negative_coefficient_is_refused() -> None:
    with pytest.raises(ValueError, match="a2"):
        CostModel(a1=0, a2=-1, g1=0, g2=0, beta=0)


def test_prompt_offload_threshold_is_eq3() -> None:
    model = CostModel(a1=1e-6, a2=1e-4, g1=0, g2=1e-2, beta=3e-4)
    # beta < a1*n + a2  <=>  n > (beta - a2) / a1 = 200
    assert not model.should_offload_prompt(200)
    assert model.should_offload_prompt(201)
    assert PROFILES["a100-qwen1.5-4b"].should_offload_prompt(1)
    assert not PROFILES["a5000-qwen1.5-7b"].should_offload_prompt(500)


@given(
    st.integers(1, 2000),
    st.integers(0, 600),
    st.floats(1e-9, 1e-5),
    st.floats(1e-4, 5e-2),
    st.floats(1e-6, 1e-1),
)
def test_decoded_tokens_to_save_minimises_eq5(n: int, m: int, g1: float, g2: float, beta: float) -> None:
    model = CostModel(a1=0, a2=1e-4, g1=g1, g2=g2, beta=beta)
    chosen = model.decoded_tokens_to_save(n, m)
    assert 0 <= chosen <= m
    best = min(model.decoded_recovery_s(n, m, s) for s in range(m + 1))
    assert model.decoded_recovery_s(n, m, chosen) == pytest.approx(best, rel=1e-9, abs=1e-12)


def test_paper_eq6_as_printed_is_kept_for_comparison() -> None:
    model = CostModel(a1=0, a2=0, g1=1e-3, g2=1e-4, beta=1.0)
    # (1 - 1e-3*10 - (1e-3 + 2e-4)/2) / 2e-3 = 494.7 -> 494, clamped to m'
    assert model.paper_eq6_tokens_to_save(10, 1000) == 494
    assert model.paper_eq6_tokens_to_save(10, 100) == 100
    # With the published profiles it saves nothing, although reloading is ~100x cheaper than decoding again.
    assert PROFILES["a100-qwen1.5-4b"].paper_eq6_tokens_to_save(250, 100) == 0
    assert PROFILES["a100-qwen1.5-4b"].decoded_tokens_to_save(250, 100) == 100


def test_fit_recovers_the_coefficients() -> None:
    truth = CostModel(a1=3e-8, a2=2e-4, g1=4e-7, g2=1.5e-2, beta=2e-4)
    prefill = [(n, truth.prefill_s(n)) for n in (16, 64, 128, 512, 1024)]
    decode = [(c, truth.decode_token_s(c)) for c in (10, 100, 400, 900)]
    reload = [(k, truth.reload_s(k)) for k in (32, 256)]
    fitted = fit(prefill, decode, reload)
    for name in ("a1", "a2", "g1", "g2", "beta"):
        assert getattr(fitted, name) == pytest.approx(getattr(truth, name), rel=1e-6)


def test_fit_without_reload_samples_uses_the_default_beta_and_clamps_at_zero() -> None:
    prefill = [(10, 0.01), (20, 0.02), (40, 0.04)]
    decode = [(10, 0.02), (20, 0.02), (30, 0.02)]
    fitted = fit(prefill, decode, default_beta=7e-4)
    assert fitted.a1 == 0.0
    assert fitted.a2 == pytest.approx(1e-3)
    assert fitted.g1 == pytest.approx(0.0, abs=1e-12)
    assert fitted.g2 == pytest.approx(0.02)
    assert fitted.beta == 7e-4


def test_fit_needs_two_samples_of_each() -> None:
    with pytest.raises(ValueError, match="at least two"):
        fit([(10, 0.1)], [(10, 0.1), (20, 0.2)])


def test_one_estimate_of_remaining_work_from_prompt_and_predicted_tokens() -> None:
    model = CostModel(a1=2e-6, a2=1e-3, g1=1e-5, g2=2e-2, beta=5e-4)
    # Not started: prefill of the prompt, then the predicted answer after it.
    assert estimate_remaining_s(model, 100, 7) == pytest.approx(model.prefill_s(100) + model.decode_s(100, 7))
    # 40 of 100 tokens computed, 10 of those offloaded: reload 10, extend 40..100, decode 7 after 100.
    resumed = estimate_remaining_s(model, 100, 7, cached_tokens=40, offloaded_tokens=10)
    assert resumed == pytest.approx(model.reload_s(10) + model.extend_s(40, 100) + model.decode_s(100, 7))
    # Decoding, with its answer already past the prediction: nothing but the whole sequence's KV is owed.
    assert estimate_remaining_s(model, 100, -3, cached_tokens=100) == 0.0


def test_the_cpu_default_is_a_named_profile() -> None:
    assert get_profile(CPU_DEFAULT_PROFILE) == CostModel(a1=0.0, a2=1e-4, g1=1e-7, g2=8e-3, beta=1e-4)
