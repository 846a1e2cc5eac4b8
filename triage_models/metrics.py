"""Triage evaluation figures: agreement, under- and over-triage, ESI 1-2 recall, kappa, confusion, latency."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sklearn.metrics import cohen_kappa_score

from triage_models.result import ESI_LEVELS


@dataclass(frozen=True, slots=True)
class TriageMetrics:
    """What `triage eval --json` prints."""

    n: int
    exact: float
    within_one: float
    quadratic_kappa: float
    undertriage_rate: float
    overtriage_rate: float
    esi12_recall: float
    confusion: list[list[int]]
    p50_ms: float
    p99_ms: float

    def to_json(self) -> dict[str, Any]:
        """Plain JSON: a figure that does not exist (latency of a reference, recall with no ESI 1-2) is null."""

        def figure(value: float) -> float | None:
            return None if math.isnan(value) else value

        return {
            "n": self.n,
            "exact": figure(self.exact),
            "within_one": figure(self.within_one),
            "quadratic_kappa": figure(self.quadratic_kappa),
            "undertriage_rate": figure(self.undertriage_rate),
            "esi12_recall": figure(self.esi12_recall),
            "overtriage_rate": figure(self.overtriage_rate),
            "confusion": self.confusion,
            "p50_ms": figure(self.p50_ms),
            "p99_ms": figure(self.p99_ms),
        }


def _percentile(values: Sequence[float], share: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(1, math.ceil(share * len(ordered))) - 1]


def triage_metrics(truth: Sequence[int], predicted: Sequence[int], latencies_ms: Sequence[float] = ()) -> TriageMetrics:
    """Compare predicted levels with the truth. Confusion rows are the true level, columns the predicted."""
    if len(truth) != len(predicted) or not truth:
        raise ValueError("truth and predicted must be non-empty and of the same length")
    pairs = list(zip(truth, predicted, strict=True))
    n = len(pairs)
    urgent = [(t, p) for t, p in pairs if t <= 2]
    confusion = [[sum(1 for t, p in pairs if t == row and p == column) for column in ESI_LEVELS] for row in ESI_LEVELS]
    kappa = float(cohen_kappa_score(list(truth), list(predicted), weights="quadratic", labels=list(ESI_LEVELS)))
    return TriageMetrics(
        n=n,
        exact=sum(t == p for t, p in pairs) / n,
        within_one=sum(abs(t - p) <= 1 for t, p in pairs) / n,
        quadratic_kappa=kappa,
        undertriage_rate=sum(p > t for t, p in pairs) / n,
        overtriage_rate=sum(p < t for t, p in pairs) / n,
        esi12_recall=(sum(p <= 2 for _, p in urgent) / len(urgent)) if urgent else math.nan,
        confusion=confusion,
        p50_ms=_percentile(latencies_ms, 0.5),
        p99_ms=_percentile(latencies_ms, 0.99),
    )
