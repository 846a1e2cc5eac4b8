"""Evaluating triage: per-case decisions, figures per decision point, calibration, and leave-one-out validation."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from triage_models.esi import DecisionPolicy
from triage_models.metrics import TriageMetrics, triage_metrics
from triage_models.pipeline import TriageModel, Triager, train_model
from triage_models.result import ESI_LEVELS, TriageResult

CALIBRATION_BINS = 10


@dataclass(frozen=True, slots=True)
class CaseOutcome:
    """One evaluated case: the truth and what triage decided, with which step and how many resources."""

    esi_level: int
    predicted: int
    decision_point: str
    resource_count: int
    needs_review: bool
    probabilities: tuple[float, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "esi_level": self.esi_level,
            "predicted": self.predicted,
            "decision_point": self.decision_point,
            "resource_count": self.resource_count,
            "needs_review": self.needs_review,
        }


@dataclass(frozen=True, slots=True)
class Calibration:
    """Expected calibration error of the classifier's top probability, and the reliability curve's bins."""

    ece: float
    bins: list[dict[str, float]]


@dataclass(frozen=True, slots=True)
class EvaluationReport:
    """What `triage eval` prints: the figures, per decision point, calibration, and every case."""

    metrics: TriageMetrics
    by_decision_point: dict[str, dict[str, float]]
    calibration: Calibration
    review_share: float
    cases: list[CaseOutcome]

    def to_json(self, with_cases: bool = True) -> dict[str, Any]:
        document: dict[str, Any] = {
            **self.metrics.to_json(),
            "needs_review_share": self.review_share,
            "by_decision_point": self.by_decision_point,
            "calibration": {"ece": self.calibration.ece, "bins": self.calibration.bins},
        }
        if with_cases:
            document["cases"] = [case.to_json() for case in self.cases]
        return document


def outcome(esi_level: int, result: TriageResult) -> CaseOutcome:
    return CaseOutcome(
        esi_level=esi_level,
        predicted=result.esi_level,
        decision_point=result.decision_point.value,
        resource_count=result.resource_count,
        needs_review=result.needs_review,
        probabilities=tuple(result.probabilities[level] for level in ESI_LEVELS),
    )


def by_decision_point(cases: Sequence[CaseOutcome]) -> dict[str, dict[str, float]]:
    """Per decision point that decided: how many cases, the share exactly right, and within one level."""
    table: dict[str, dict[str, float]] = {}
    for point in sorted({case.decision_point for case in cases}):
        chosen = [case for case in cases if case.decision_point == point]
        table[point] = {
            "n": len(chosen),
            "exact": sum(case.predicted == case.esi_level for case in chosen) / len(chosen),
            "within_one": sum(abs(case.predicted - case.esi_level) <= 1 for case in chosen) / len(chosen),
        }
    return table


def calibration(probabilities: NDArray[np.float64], truth: Sequence[int], bins: int = CALIBRATION_BINS) -> Calibration:
    """ECE over equal-width confidence bins of the most probable level (the classifier alone, before rules)."""
    confidence = probabilities.max(axis=1)
    correct = (probabilities.argmax(axis=1) + 1) == np.asarray(truth)
    edges = np.linspace(0.0, 1.0, bins + 1)
    rows, ece = [], 0.0
    for low, high in itertools.pairwise(edges):
        inside = (confidence > low) & (confidence <= high) if low > 0 else (confidence <= high)
        if not inside.any():
            continue
        mean_confidence, accuracy = float(confidence[inside].mean()), float(correct[inside].mean())
        ece += inside.mean() * abs(mean_confidence - accuracy)
        rows.append(
            {
                "low": float(low),
                "high": float(high),
                "n": int(inside.sum()),
                "confidence": mean_confidence,
                "accuracy": accuracy,
            }
        )
    return Calibration(float(ece), rows)


def report(cases: Sequence[CaseOutcome], latencies_ms: Sequence[float] = ()) -> EvaluationReport:
    truth = [case.esi_level for case in cases]
    probabilities = np.array([case.probabilities for case in cases], dtype=np.float64)
    return EvaluationReport(
        metrics=triage_metrics(truth, [case.predicted for case in cases], latencies_ms),
        by_decision_point=by_decision_point(cases),
        calibration=calibration(probabilities, truth),
        review_share=sum(case.needs_review for case in cases) / len(cases) if cases else math.nan,
        cases=list(cases),
    )


def evaluate(triager: Triager, texts: Sequence[str], labels: Sequence[int]) -> EvaluationReport:
    """Classify every text one by one, as in production, and report."""
    triager.warm_up()  # as a worker is before its first call: lingua's models are not timed
    results, latencies = triager.classify_timed(texts)
    return report([outcome(label, result) for label, result in zip(labels, results, strict=True)], latencies)


@dataclass(frozen=True, slots=True)
class _Fold:
    """What one leave-one-out fit needs (sent to a worker process as is)."""

    held_texts: Sequence[str]
    held_labels: Sequence[int]
    base_texts: Sequence[str]
    base_labels: Sequence[int]
    policy: DecisionPolicy
    temperature: float
    alternative: DecisionPolicy | None = None
    """A second policy decided on the same fit (its figures come without a second fit per case)."""
    base_sources: Sequence[str] | None = None
    """Each base row's source, so that a fit weighs the sources as the template's training did."""
    held_source: str = "held"


def _leave_out(fold: _Fold, index: int) -> tuple[CaseOutcome, CaseOutcome | None]:
    """Retrain without case `index` (one fit, the template's temperature and policy) and classify it (and again
    under the alternative policy, when there is one)."""
    others = [i for i in range(len(fold.held_texts)) if i != index]
    sources = None if fold.base_sources is None else [*fold.base_sources, *[fold.held_source] * len(others)]
    model = train_model(
        [*fold.base_texts, *(fold.held_texts[i] for i in others)],
        [*fold.base_labels, *(fold.held_labels[i] for i in others)],
        sources=sources,
        tune_threshold=False,
        calibrate=False,
    )
    model.policy = fold.policy
    model.backend.temperature = fold.temperature
    text, label = fold.held_texts[index], fold.held_labels[index]
    first = outcome(label, Triager(model).classify(text))
    if fold.alternative is None:
        return first, None
    model.policy = fold.alternative
    return first, outcome(label, Triager(model).classify(text))


def leave_one_out(
    held_texts: Sequence[str],
    held_labels: Sequence[int],
    base_texts: Sequence[str],
    base_labels: Sequence[int],
    template: TriageModel,
    progress: Callable[[int, int], None] | None = None,
    jobs: int = 1,
    alternative: DecisionPolicy | None = None,
    base_sources: Sequence[str] | None = None,
    held_source: str = "held",
) -> tuple[EvaluationReport, EvaluationReport | None]:
    """Each held-out case classified by a model retrained on the base data plus every other held-out case: the
    report, and the same fits' report under the `alternative` policy when one is given.

    The retrained model keeps the template's temperature and decision policy (tuned on out-of-fold predictions
    when the template was trained), so one case costs one fit rather than four. `jobs` processes fit in parallel.
    `base_sources` and `held_source` name each row's source, so each fit weighs them as the template's training did.
    """
    fold = _Fold(
        held_texts,
        held_labels,
        base_texts,
        base_labels,
        template.policy,
        template.backend.temperature,
        alternative,
        base_sources,
        held_source,
    )
    indices = range(len(held_texts))
    if jobs <= 1:
        pairs = []
        for index in indices:
            pairs.append(_leave_out(fold, index))
            if progress is not None:
                progress(index + 1, len(held_texts))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            pairs = list(pool.map(functools.partial(_leave_out, fold), indices))
    others = [second for _, second in pairs if second is not None]
    return report([first for first, _ in pairs]), report(others) if others else None
