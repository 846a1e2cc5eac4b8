"""Tuning the ESI decision policy on out-of-fold predictions of real cases, one source at a time.

The targets hold for every source of real cases (KTAS records and ESI vignettes are judged separately, so the
larger one cannot hide the other): ESI 1-2 recall >= 0.95, over-triage <= 0.35, exact >= 0.60, within one >= 0.90.
Where no setting meets them all, recall gives way first, never the over-triage limit (see `_rank`). Of settings of
equal rank the first in the grid wins, that is the lowest urgent threshold: a tie errs urgent. (Breaking ties by the
least over-triage was tried on knowledge 2026.11.55: it moved the threshold from 0.25 to 0.34 across KTAS's plateau
and four ESI 1-2 calls of the development sets to ESI 3.)
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from triage_models.esi import DecisionPolicy, decide
from triage_models.result import Evidence, Resource

RECALL_TARGET = 0.95
OVERTRIAGE_LIMIT = 0.35
EXACT_TARGET = 0.60
WITHIN_ONE_TARGET = 0.90
URGENT_THRESHOLDS = tuple(float(value) for value in np.round(np.arange(0.04, 0.56, 0.03), 3))
REVIEW_RATIOS = (0.8, 0.65, 0.5)
"""Never 1.0 (which would flag nothing): the flag exists to put near-ties in front of a person."""
DANGER_ZONE_THRESHOLDS = (0.05, 0.15, 0.3, 1.01)
UNSUPPORTED_URGENT_THRESHOLDS = (0.5, 0.65, 0.8)
"""P(ESI 1-2) the model alone needs when nothing in the call supports urgency: at least even odds, so that
'unfamiliar' does not mean 'ESI 2' (KTAS records, where the tuner would go lower, are ED notes, not calls)."""


@dataclass(frozen=True, slots=True)
class TuningCase:
    """One held-out case: the model's out-of-fold probabilities, its red flags and resources, the truth, its source."""

    probabilities: NDArray[np.float64]
    evidence: tuple[Evidence, ...]
    resources: tuple[Resource, ...]
    esi_level: int
    source: str
    non_medical: bool = False
    recognised: bool = False


@dataclass(frozen=True, slots=True)
class SourceFigures:
    """Recall, over-triage and exact agreement on one source."""

    recall: float
    overtriage: float
    exact: float
    within_one: float


def _figures(truth: NDArray[np.int64], predicted: NDArray[np.int64]) -> SourceFigures:
    urgent = truth <= 2
    recall = float((predicted[urgent] <= 2).mean()) if urgent.any() else 1.0
    return SourceFigures(
        recall,
        float((predicted < truth).mean()),
        float((predicted == truth).mean()),
        float((np.abs(predicted - truth) <= 1).mean()),
    )


def evaluate_policy(cases: Sequence[TuningCase], policy: DecisionPolicy) -> dict[str, SourceFigures]:
    """The figures per source under `policy`."""
    predicted = np.array(
        [
            decide(c.probabilities, c.evidence, c.resources, policy, "", c.non_medical, c.recognised).esi_level
            for c in cases
        ]
    )
    truth = np.array([case.esi_level for case in cases])
    sources = np.array([case.source for case in cases])
    return {str(source): _figures(truth[sources == source], predicted[sources == source]) for source in set(sources)}


def _rank(figures: dict[str, SourceFigures]) -> tuple[int, float]:
    """Sort key (higher is better), on the worst source each time: every target met, then the best exact; else
    over-triage, exact and within-one targets met, then the best recall; else within the over-triage limit, the
    best recall plus exact; else the least over-triage."""
    recall = min(item.recall for item in figures.values())
    over = max(item.overtriage for item in figures.values())
    exact = min(item.exact for item in figures.values())
    within = min(item.within_one for item in figures.values())
    if over > OVERTRIAGE_LIMIT:
        return (0, -over)
    if exact < EXACT_TARGET or within < WITHIN_ONE_TARGET:
        return (1, recall + exact)
    if recall < RECALL_TARGET:
        return (2, recall)
    return (3, exact)


def tune_policy(cases: Sequence[TuningCase], resource_step: str = "model") -> DecisionPolicy:
    """The grid's best policy by `_rank` for a decision point C (`DecisionPolicy.resource_step`), with the calm limit
    at the cases' share of ESI 1-2; the default policy when there are no cases."""
    if not cases:
        return DecisionPolicy(resource_step=resource_step)
    calm_limit = round(sum(case.esi_level <= 2 for case in cases) / len(cases), 3)
    best: tuple[tuple[int, float], DecisionPolicy] | None = None
    grid = itertools.product(URGENT_THRESHOLDS, REVIEW_RATIOS, DANGER_ZONE_THRESHOLDS, UNSUPPORTED_URGENT_THRESHOLDS)
    for threshold, ratio, danger, unsupported in grid:
        policy = DecisionPolicy(
            urgent_threshold=threshold,
            review_ratio=ratio,
            danger_zone_threshold=danger,
            unsupported_urgent_threshold=max(unsupported, threshold),
            calm_limit=calm_limit,
            resource_step=resource_step,
        )
        rank = _rank(evaluate_policy(cases, policy))
        if best is None or rank > best[0]:
            best = (rank, policy)
    assert best is not None
    return best[1]
