"""The ESI algorithm step by step: A (life-saving intervention), B (high risk), C (resources), D (danger-zone vitals).

Each step is a rule, the learned model, or both, and the decision says which step decided, the resources it
expects and the evidence. The red-flag rules set a floor: the level is never less urgent than any of them.
When the calibrated probabilities cannot separate the decided level from the next more urgent one, the more
urgent level is taken and the decision is flagged for review, with the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from triage_models.resources import level_for_resources, resource_count
from triage_models.result import DecisionPoint, Evidence, Resource
from triage_models.rules import rules_floor


@dataclass(frozen=True, slots=True)
class DecisionPolicy:
    """The learned thresholds of the algorithm, tuned on held-out (out-of-fold) predictions of real cases."""

    urgent_threshold: float = 0.5
    """Decision point B from the model: P(ESI 1) + P(ESI 2) at or above this gives ESI 1-2."""
    review_ratio: float = 1.0
    """Too close to call: the next more urgent level has at least this share of the decided level's probability
    (1.0 never flags: it would need to be the more probable one, and then it was chosen already)."""
    review_min_probability: float = 0.15
    """...and at least this probability itself: two levels are both plausible, not both unlikely."""
    danger_zone_threshold: float = 0.25
    """Decision point D: with danger-zone vital signs, an ESI 3 becomes 2 when P(ESI 1-2) reaches this."""
    unsupported_urgent_threshold: float = 0.5
    """Decision point B from the model alone: with no red flag, advisory flag or danger-zone vital sign in the call,
    P(ESI 1) + P(ESI 2) must reach this (not `urgent_threshold`) for ESI 1-2, so that a call the rules find nothing
    in is not made urgent by unfamiliar words. Such a level is flagged for review all the same."""
    calm_limit: float = 1.01
    """Decision point C never calls a call calm (ESI 4-5) when the model's P(ESI 1) + P(ESI 2) reaches this: it takes
    ESI 3 and asks a person to look. Training sets it to the share of ESI 1-2 among the real cases (a call the model
    finds at least as likely urgent as the average case is not calm); 1.01 never applies."""
    resource_step: str = "model"
    """Decision point C: "model" takes the most probable of ESI 3-5 (the model reads the expected resources as
    features); "count" follows the handbook's arithmetic on them (none -> 5, one -> 4, two or more -> 3). "model" is
    the default because it did better in every comparison (docs/triage.md): the vignettes left out one at a time
    (exact 0.730 against 0.629, within one 0.966 against 0.899, on the same fits), KTAS ED2 and call set B. Resources
    read from a caller's words are too sparse for the arithmetic alone."""


@dataclass(frozen=True, slots=True)
class EsiDecision:
    """The level, the decision point that set it, the expected resources, and whether a person should review."""

    esi_level: int
    decision_point: DecisionPoint
    resources: tuple[Resource, ...]
    resource_count: int
    needs_review: bool = False
    review_reason: str = ""
    non_medical: bool = False
    """No medical problem in the call (a ride, a noise, a pet): ESI 5, said so on the console."""


MODEL_ESI1_PROBABILITY = 0.5
"""P(ESI 1) the model alone needs to name ESI 1 (a life-saving intervention now): more likely than not. The protocols'
decision point A names it from the caller's words; a toothache with P(ESI 1) 0.08 against P(ESI 2) 0.07 is urgent at
most, never ESI 1."""


def _urgent(probabilities: NDArray[np.float64], threshold: float) -> int | None:
    """ESI 1 or 2 when the model's P(ESI 1-2) reaches the threshold: ESI 1 when it is the more probable of the two
    and more likely than not (`MODEL_ESI1_PROBABILITY`), else ESI 2; None below the threshold."""
    if probabilities[0] + probabilities[1] >= threshold:
        return 1 if probabilities[0] >= max(probabilities[1], MODEL_ESI1_PROBABILITY) else 2
    return None


def _resource_level(probabilities: NDArray[np.float64], resources: tuple[Resource, ...], policy: DecisionPolicy) -> int:
    """Decision point C: the handbook's count of expected resources, or the most probable of ESI 3, 4 and 5."""
    if policy.resource_step == "count":
        return level_for_resources(resource_count(resources))
    return int(np.argmax(probabilities[2:])) + 3


def _floor_point(level: int, evidence: Sequence[Evidence]) -> DecisionPoint | None:
    for hit in evidence:
        if hit.floor and hit.esi_level == level:
            return hit.decision_point
    return None


def _danger_zone(evidence: Sequence[Evidence]) -> bool:
    return any(hit.decision_point is DecisionPoint.D for hit in evidence)


def _steps(
    probabilities: NDArray[np.float64],
    evidence: Sequence[Evidence],
    resources: tuple[Resource, ...],
    policy: DecisionPolicy,
) -> tuple[int, DecisionPoint]:
    """Steps A, B, C and D in the handbook's order; the first that applies decides."""
    floor = rules_floor(list(evidence))
    supported = _supported(evidence)
    threshold = policy.urgent_threshold if supported else policy.unsupported_urgent_threshold
    urgent = _urgent(probabilities, threshold)
    if floor == 1 or urgent == 1:
        return 1, _floor_point(1, evidence) or DecisionPoint.A
    if floor == 2 or urgent == 2:
        return 2, _floor_point(2, evidence) or (DecisionPoint.D if _danger_zone(evidence) else DecisionPoint.B)
    level = _resource_level(probabilities, resources, policy)
    if floor is not None and floor < level:  # an ESI 3 floor: a complaint that needs two resources whatever it says
        return floor, _floor_point(floor, evidence) or DecisionPoint.C
    if level == 3 and _danger_zone(evidence) and probabilities[0] + probabilities[1] >= policy.danger_zone_threshold:
        return 2, DecisionPoint.D
    return level, DecisionPoint.C


def _review(
    level: int, probabilities: NDArray[np.float64], floor: int | None, policy: DecisionPolicy
) -> tuple[int, str]:
    """The more urgent neighbour when the model cannot separate it from `level`, with the reason; else no change."""
    if level == 1 or (floor is not None and floor <= level - 1):
        return level, ""
    decided, neighbour = probabilities[level - 1], probabilities[level - 2]
    if neighbour < policy.review_ratio * decided or neighbour < policy.review_min_probability:
        return level, ""
    if level == 2 and neighbour < MODEL_ESI1_PROBABILITY:
        return level, (
            f"ESI 1 vs 2 too close to call (P {neighbour:.2f} vs {decided:.2f}), but ESI 1 from the model alone needs"
            f" P(ESI 1) >= {MODEL_ESI1_PROBABILITY}: kept ESI 2"
        )
    return level - 1, (
        f"ESI {level - 1} vs {level} too close to call (P {neighbour:.2f} vs {decided:.2f}): took ESI {level - 1}"
    )


def _unreadable(evidence: Sequence[Evidence], resources: tuple[Resource, ...], reason: str) -> EsiDecision:
    """A call in a language triage cannot read: ESI 1 if a rule still says so, else ESI 2, and a person reads it."""
    level = 1 if rules_floor(list(evidence)) == 1 else 2
    point = _floor_point(level, evidence) or (DecisionPoint.A if level == 1 else DecisionPoint.B)
    return EsiDecision(level, point, resources, resource_count(resources), True, reason)


def calm_reasons(evidence: Sequence[Evidence]) -> list[Evidence]:
    """The protocols' minor presentations the call matches (determinants of ESI 4-5, no floor)."""
    return [hit for hit in evidence if not hit.floor and hit.esi_level >= 4 and not hit.resolved]


def _needs_one_resource(evidence: Sequence[Evidence]) -> bool:
    """Whether the protocols read a minor presentation that needs one resource (a calm determinant of ESI 4: an
    x-ray, a repair) and none that needs nothing: the model's ESI 5 would contradict the first, not the second."""
    levels = {hit.esi_level for hit in calm_reasons(evidence)}
    return 4 in levels and 5 not in levels


def _supported(evidence: Sequence[Evidence]) -> bool:
    """Whether a red flag, an advisory flag or a vital sign in the call supports urgency (a calm determinant does
    not, nor an episode over)."""
    return any(not hit.resolved and (hit.floor or hit.esi_level <= 2) for hit in evidence)


def _calm_check(level: int, resources: tuple[Resource, ...], evidence: Sequence[Evidence], recognised: bool) -> str:
    """Why a calm level (ESI 4-5) has no positive reason, or "" when it has one: a minor presentation the protocols
    know (a calm determinant), a chief complaint they recognise without any red flag, or a resource the call names
    (decision point C then has something to count). A call nothing in the knowledge reads is never guessed calm."""
    if level < 4 or calm_reasons(evidence) or recognised or resources:
        return ""
    return f"ESI {level} by decision point C, but no complaint or resource in the call says so: took ESI 3"


def _non_medical(resources: tuple[Resource, ...]) -> EsiDecision:
    return EsiDecision(5, DecisionPoint.C, resources, resource_count(resources), non_medical=True)


def decide(
    probabilities: NDArray[np.float64],
    evidence: Sequence[Evidence],
    resources: tuple[Resource, ...],
    policy: DecisionPolicy,
    unreadable_reason: str = "",
    non_medical: bool = False,
    recognised: bool = False,
) -> EsiDecision:
    """Run the algorithm on the model's calibrated probabilities (ESI 1..5), the red flags and the resources.

    `unreadable_reason` (a language triage does not support) never lets the level be calmer than ESI 2. A call the
    protocols read as no medical problem at all (`non_medical`) and with no red flag is ESI 5, said so. `recognised`:
    the protocols named the call's chief complaint (a calm level then needs no more than its resource count).
    """
    if unreadable_reason:
        return _unreadable(evidence, resources, unreadable_reason)
    if non_medical and not _supported(evidence):
        return _non_medical(resources)
    level, point = _steps(probabilities, evidence, resources, policy)
    floor = rules_floor(list(evidence))
    reviewed, reason = _review(level, probabilities, floor, policy)
    if reviewed != level:
        point = DecisionPoint.A if reviewed == 1 else DecisionPoint.B if reviewed == 2 else DecisionPoint.C
    urgency = probabilities[0] + probabilities[1]
    if point is DecisionPoint.C and reviewed == 5 and _needs_one_resource(evidence):
        reviewed = 4  # after the review: the model's own probabilities never argued for this level
    if point is DecisionPoint.C and reviewed > 3 and urgency >= policy.calm_limit:
        reason = f"ESI {reviewed} by decision point C, but P(ESI 1-2) {urgency:.2f} is too high for a calm call"
        reviewed, reason = 3, f"{reason}: took ESI 3"
    elif point is DecisionPoint.C and (calm := _calm_check(reviewed, resources, evidence, recognised)):
        reviewed, reason = 3, calm
    if reviewed <= 2 and not _supported(evidence) and not reason:
        minor = calm_reasons(evidence)
        if minor:
            reason = (
                f"ESI {reviewed} from the model alone, but the protocols read a minor complaint ({minor[0].rule_id}):"
                " took ESI 3"
            )
            reviewed, point = 3, DecisionPoint.C
        else:
            reason = (
                f"ESI {reviewed} from the model alone (P(ESI 1-2) {urgency:.2f}): no red flag or vital sign in the"
                " call supports it"
            )
    return EsiDecision(
        esi_level=reviewed,
        decision_point=point,
        resources=resources,
        resource_count=resource_count(resources),
        needs_review=bool(reason),
        review_reason=reason,
    )


def rule_only_level(resources: tuple[Resource, ...], evidence: Sequence[Evidence]) -> int:
    """The algorithm with rules alone (no model): the floor, else the resource count's level."""
    floor = rules_floor(list(evidence))
    return floor if floor is not None else level_for_resources(resource_count(resources))
