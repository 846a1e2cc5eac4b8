"""The ESI algorithm's steps: A, B, C and D in order, the rule floor, and the review flag when levels are close."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from triage_models.esi import DecisionPolicy, decide
from triage_models.resources import predict_resources
from triage_models.result import DecisionPoint, Evidence
from triage_models.tuning import TuningCase, evaluate_policy, tune_policy

POLICY = DecisionPolicy(
    urgent_threshold=0.3,
    review_ratio=0.7,
    review_min_probability=0.15,
    danger_zone_threshold=0.1,
    unsupported_urgent_threshold=0.3,
    resource_step="model",
)
"""The model picks among ESI 3-5 (decision point C) and decides B alone at 0.3: the steps' order is what is tested."""
COUNTING = DecisionPolicy(urgent_threshold=0.3, unsupported_urgent_threshold=0.6, resource_step="count")


def flag(rule_id: str, level: int, point: DecisionPoint, floor: bool = True) -> Evidence:
    return Evidence(rule_id, level, point, rule_id, 0, 4, "text", floor)


def p(*values: float) -> np.ndarray:
    return np.array(values, dtype=np.float64)


def test_a_rule_for_a_life_saving_intervention_decides_at_a() -> None:
    decision = decide(p(0.0, 0.0, 0.1, 0.2, 0.7), [flag("A-NO-PULSE", 1, DecisionPoint.A)], (), POLICY)
    assert (decision.esi_level, decision.decision_point, decision.needs_review) == (1, DecisionPoint.A, False)


def test_the_model_alone_can_decide_b() -> None:
    decision = decide(p(0.05, 0.3, 0.6, 0.05, 0.0), [], (), POLICY)
    assert (decision.esi_level, decision.decision_point) == (2, DecisionPoint.B)


def test_the_model_alone_needs_the_higher_threshold_and_a_person_to_look() -> None:
    calm = decide(p(0.05, 0.3, 0.6, 0.05, 0.0), [], (), COUNTING, recognised=True)
    assert (calm.esi_level, calm.decision_point, calm.needs_review) == (5, DecisionPoint.C, False)
    alone = decide(p(0.1, 0.6, 0.3, 0.0, 0.0), [], (), COUNTING)
    assert (alone.esi_level, alone.decision_point, alone.needs_review) == (2, DecisionPoint.B, True)
    assert alone.review_reason == (
        "ESI 2 from the model alone (P(ESI 1-2) 0.70): no red flag or vital sign in the call supports it"
    )
    advisory = flag("D-HEART-RATE", 2, DecisionPoint.D, floor=False)
    supported = decide(p(0.05, 0.3, 0.6, 0.05, 0.0), [advisory], (), COUNTING)
    assert (supported.esi_level, supported.needs_review) == (2, False)


def test_step_c_counts_resources_as_the_handbook_does() -> None:
    probabilities = p(0.0, 0.0, 0.05, 0.05, 0.9)  # the model would say 5
    assert decide(probabilities, [], predict_resources("sprained ankle, needs an x-ray"), COUNTING).esi_level == 4
    assert decide(probabilities, [], predict_resources("belly pain, needs labs and a CT"), COUNTING).esi_level == 3
    assert decide(p(0.0, 0.0, 0.8, 0.02, 0.18), [], (), COUNTING, recognised=True).esi_level == 5


def test_a_calm_determinant_that_needs_one_resource_keeps_the_model_from_esi_5() -> None:
    calm = p(0.0, 0.0, 0.05, 0.15, 0.8)
    constipation = flag("C-CONSTIPATION", 4, DecisionPoint.C, floor=False)
    indigestion = flag("C-INDIGESTION", 5, DecisionPoint.C, floor=False)
    one = decide(calm, [constipation], (), POLICY, recognised=True)
    assert (one.esi_level, one.decision_point, one.needs_review) == (4, DecisionPoint.C, False)
    # A minor presentation that needs nothing read beside it (a scrape with its bleeding stopped): the model's 5 holds.
    assert decide(calm, [constipation, indigestion], (), POLICY, recognised=True).esi_level == 5
    assert decide(calm, [indigestion], (), POLICY, recognised=True).esi_level == 5
    over = Evidence("C-CONSTIPATION", 4, DecisionPoint.C, "over now", 0, 4, "text", False, True)
    assert decide(calm, [over], (), POLICY, recognised=True).esi_level == 5
    assert decide(p(0.0, 0.0, 0.7, 0.2, 0.1), [constipation], (), POLICY, recognised=True).esi_level == 3
    # The model's own ESI 3 vs 4 never argued for 4, so no review takes it up to 3 (P 0.17 vs 0.21 would).
    close = decide(p(0.0, 0.0, 0.17, 0.21, 0.62), [constipation], (), POLICY, recognised=True)
    assert (close.esi_level, close.needs_review, close.review_reason) == (4, False, "")


def test_a_calm_level_needs_a_reason_in_the_call_or_is_esi_3_for_review() -> None:
    calm = p(0.0, 0.0, 0.05, 0.15, 0.8)
    unread = decide(calm, [], (), COUNTING)
    assert (unread.esi_level, unread.decision_point, unread.needs_review, unread.review_reason) == (
        3,
        DecisionPoint.C,
        True,
        "ESI 5 by decision point C, but no complaint or resource in the call says so: took ESI 3",
    )
    assert decide(calm, [], (), COUNTING, recognised=True).esi_level == 5
    assert decide(calm, [], predict_resources("sprained ankle, needs an x-ray"), COUNTING).esi_level == 4
    ride = decide(calm, [], (), COUNTING, non_medical=True)
    assert (ride.esi_level, ride.non_medical, ride.needs_review) == (5, True, False)


def test_a_call_triage_cannot_read_is_never_calmer_than_two() -> None:
    reason = "language not supported (vi): the words are not English or Spanish; interpreter needed"
    calm = decide(p(0.0, 0.0, 0.0, 0.1, 0.9), [], (), COUNTING, reason)
    assert (calm.esi_level, calm.decision_point, calm.needs_review, calm.review_reason) == (
        2,
        DecisionPoint.B,
        True,
        reason,
    )
    arrest = decide(p(0.0, 0.0, 0.0, 0.1, 0.9), [flag("A-NO-PULSE", 1, DecisionPoint.A)], (), COUNTING, reason)
    assert (arrest.esi_level, arrest.decision_point, arrest.needs_review) == (1, DecisionPoint.A, True)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0.001, 1.0), min_size=5, max_size=5), st.sampled_from([None, 1, 2]))
def test_an_unreadable_call_never_gets_a_level_above_two(raw: list[float], floor: int | None) -> None:
    evidence = [] if floor is None else [flag("X", floor, DecisionPoint.A if floor == 1 else DecisionPoint.B)]
    decision = decide(np.array(raw) / sum(raw), evidence, (), COUNTING, "language not recognised; interpreter needed")
    assert decision.esi_level <= 2 and decision.needs_review
    assert decision.esi_level == (1 if floor == 1 else 2)


def test_resources_decide_c_and_are_reported_with_evidence() -> None:
    resources = predict_resources("twisted ankle, needs an x-ray")
    decision = decide(p(0.0, 0.0, 0.1, 0.8, 0.1), [], resources, POLICY)
    assert (decision.esi_level, decision.decision_point, decision.resource_count) == (4, DecisionPoint.C, 1)
    assert [item.kind for item in decision.resources] == ["imaging"]


def test_danger_zone_vitals_raise_a_three_to_two_at_d() -> None:
    advisory = flag("D-HEART-RATE", 2, DecisionPoint.D, floor=False)
    assert decide(p(0.0, 0.12, 0.8, 0.08, 0.0), [advisory], (), POLICY).decision_point is DecisionPoint.D
    assert decide(p(0.0, 0.12, 0.8, 0.08, 0.0), [advisory], (), POLICY).esi_level == 2
    assert decide(p(0.0, 0.12, 0.8, 0.08, 0.0), [], (), POLICY).esi_level == 3
    assert decide(p(0.0, 0.05, 0.2, 0.75, 0.0), [advisory], (), POLICY, recognised=True).esi_level == 4  # D: a 3 only


def test_two_close_levels_take_the_more_urgent_and_ask_for_review() -> None:
    decision = decide(p(0.0, 0.0, 0.4, 0.45, 0.15), [], (), POLICY)
    assert (decision.esi_level, decision.needs_review) == (3, True)
    assert decision.review_reason == "ESI 3 vs 4 too close to call (P 0.40 vs 0.45): took ESI 3"
    clear = decide(p(0.0, 0.0, 0.1, 0.8, 0.1), [], (), POLICY, recognised=True)
    assert (clear.esi_level, clear.needs_review, clear.review_reason) == (4, False, "")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(0.001, 1.0), min_size=5, max_size=5),
    st.sampled_from([None, 1, 2]),
)
def test_the_floor_never_lowers_a_level(raw: list[float], floor: int | None) -> None:
    probabilities = np.array(raw) / sum(raw)
    evidence = [] if floor is None else [flag("X", floor, DecisionPoint.A if floor == 1 else DecisionPoint.B)]
    decision = decide(probabilities, evidence, (), POLICY)
    without = decide(probabilities, [], (), POLICY)
    assert decision.esi_level <= without.esi_level
    if floor is not None:
        assert decision.esi_level <= floor


@pytest.mark.parametrize(
    ("probabilities", "level"),
    [
        # Urgent by the threshold, ESI 1 the more probable of the two but far from likely: ESI 2 (set T: a toothache).
        ((0.18, 0.17, 0.35, 0.25, 0.05), 2),
        ((0.55, 0.30, 0.10, 0.05, 0.0), 1),
        ((0.30, 0.45, 0.20, 0.05, 0.0), 2),
        ((0.05, 0.10, 0.60, 0.20, 0.05), 3),
    ],
)
def test_the_model_alone_names_esi_1_only_when_more_likely_than_not(
    probabilities: tuple[float, ...], level: int
) -> None:
    assert decide(p(*probabilities), [], (), POLICY, recognised=True).esi_level == level


def test_tuning_breaks_a_tie_toward_the_lowest_threshold() -> None:
    """Recall is short whatever the setting (an urgent case the model misses) and every threshold up to 0.32 catches
    the other: a tie on recall. The tie errs urgent: the lowest threshold, which also sends a calm case with P(ESI
    1-2) 0.12 to ESI 2."""
    vitals = (flag("D-HEART-RATE", 2, DecisionPoint.D, floor=False),)
    cases = [
        TuningCase(p(0.0, 0.32, 0.68, 0.0, 0.0), vitals, (), 2, "records", recognised=True),
        TuningCase(p(0.0, 0.01, 0.99, 0.0, 0.0), (), (), 2, "records", recognised=True),
        TuningCase(p(0.0, 0.12, 0.88, 0.0, 0.0), vitals, (), 3, "records", recognised=True),
    ] + [TuningCase(p(0.0, 0.0, 0.9, 0.1, 0.0), (), (), 3, "records", recognised=True)] * 7
    policy = tune_policy(cases)
    assert policy.urgent_threshold == 0.04
    assert evaluate_policy(cases, policy)["records"].recall == 0.5


def test_tuning_finds_the_threshold_that_catches_the_urgent_case_without_over_triage() -> None:
    vitals = (flag("D-HEART-RATE", 2, DecisionPoint.D, floor=False),)
    cases = [
        TuningCase(p(0.0, 0.2, 0.8, 0.0, 0.0), vitals, (), 2, "vignettes"),
        TuningCase(p(0.0, 0.02, 0.9, 0.08, 0.0), (), (), 3, "vignettes"),
        TuningCase(p(0.0, 0.0, 0.1, 0.9, 0.0), (), (), 4, "records", recognised=True),
        TuningCase(p(0.0, 0.3, 0.7, 0.0, 0.0), vitals, (), 2, "records"),
    ]
    policy = tune_policy(cases)
    figures = evaluate_policy(cases, policy)
    assert {name: (item.recall, item.overtriage) for name, item in figures.items()} == {
        "vignettes": (1.0, 0.0),
        "records": (1.0, 0.0),
    }
    assert 0.02 < policy.urgent_threshold <= 0.2
