"""Context readers side by side: the same model triaging the call sets and the ESI vignettes with each reader."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from triage_models.callsets import call_set_report, outcome, read_call_set
from triage_models.context import ContextReader
from triage_models.metrics import triage_metrics
from triage_models.pipeline import TriageModel, Triager
from triage_models.store import LabelledData

WARM_UP = ("my husband collapsed and is not breathing", "sprained my ankle, no other injuries, history of asthma")
"""Classified once per reader before timing, so that first-call costs (compiling, caches) are not counted."""


@dataclass(frozen=True, slots=True)
class ReaderFigures:
    """What one reader made of every set: call-set reports by set name, vignette metrics, latency per message."""

    reader: str
    call_sets: dict[str, dict[str, Any]]
    vignettes: dict[str, Any] | None
    latencies_ms: list[float]

    def to_json(self) -> dict[str, Any]:
        return {
            "reader": self.reader,
            "call_sets": self.call_sets,
            "vignettes": self.vignettes,
            "latency_ms": {
                "n": len(self.latencies_ms),
                "p50": _nearest_rank(self.latencies_ms, 50),
                "p99": _nearest_rank(self.latencies_ms, 99),
            },
        }


def _nearest_rank(values: Sequence[float], percent: float) -> float | None:
    """The nearest-rank percentile (as `metrics.triage_metrics` takes it), None for no values."""
    return float(np.percentile(values, percent, method="inverted_cdf")) if values else None


def measure_reader(
    model: TriageModel, reader: ContextReader, call_sets: Sequence[Path], vignettes: LabelledData | None
) -> ReaderFigures:
    """Triage every call of every set and every vignette with `reader`, one message at a time, timed."""
    triager = Triager(model, reader=reader)
    triager.classify_timed(WARM_UP)
    reports: dict[str, dict[str, Any]] = {}
    latencies: list[float] = []
    for path in call_sets:
        calls = read_call_set(path)
        results, timed = triager.classify_timed([call.text for call in calls])
        reports[path.name] = call_set_report([outcome(c, r) for c, r in zip(calls, results, strict=True)])
        latencies.extend(timed)
    vignette_figures = None
    if vignettes is not None and vignettes.texts:
        results, timed = triager.classify_timed(vignettes.texts)
        predicted = [result.esi_level for result in results]
        vignette_figures = triage_metrics(vignettes.labels, predicted, timed).to_json()
        latencies.extend(timed)
    return ReaderFigures(reader.name, reports, vignette_figures, latencies)


def compare_readers(
    model: TriageModel,
    readers: Sequence[ContextReader],
    call_sets: Sequence[Path],
    vignettes: LabelledData | None,
) -> list[ReaderFigures]:
    """Each reader's figures, in the order given (the first is the baseline ratios are taken against)."""
    return [measure_reader(model, reader, call_sets, vignettes) for reader in readers]
