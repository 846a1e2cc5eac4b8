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
from triage_models.result import TriageResult
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


def _timed_by_each(triagers: Sequence[Triager], texts: Sequence[str]) -> list[tuple[list[TriageResult], list[float]]]:
    """Each triager's results and latencies, the triagers taking turns on each message (a busy moment of the machine
    then slows them alike, which keeps their ratio fair)."""
    outputs: list[tuple[list[TriageResult], list[float]]] = [([], []) for _ in triagers]
    for text in texts:
        for triager, (results, latencies) in zip(triagers, outputs, strict=True):
            (result,), (latency,) = triager.classify_timed([text])
            results.append(result)
            latencies.append(latency)
    return outputs


def compare_readers(
    model: TriageModel,
    readers: Sequence[ContextReader],
    call_sets: Sequence[Path],
    vignettes: LabelledData | None,
) -> list[ReaderFigures]:
    """Each reader's figures on every call set and on the vignettes, in the order given (ratios are taken against
    the first), every message triaged one at a time by each reader in turn."""
    triagers = [Triager(model, reader=reader) for reader in readers]
    for triager in triagers:
        triager.warm_up()  # the language models, as a worker loads them at start
        triager.classify_timed(WARM_UP)
    reports: list[dict[str, dict[str, Any]]] = [{} for _ in readers]
    latencies: list[list[float]] = [[] for _ in readers]
    for path in call_sets:
        calls = read_call_set(path)
        for index, (results, timed) in enumerate(_timed_by_each(triagers, [call.text for call in calls])):
            reports[index][path.name] = call_set_report([outcome(c, r) for c, r in zip(calls, results, strict=True)])
            latencies[index].extend(timed)
    vignette_figures: list[dict[str, Any] | None] = [None for _ in readers]
    if vignettes is not None and vignettes.texts:
        for index, (results, timed) in enumerate(_timed_by_each(triagers, vignettes.texts)):
            predicted = [result.esi_level for result in results]
            vignette_figures[index] = triage_metrics(vignettes.labels, predicted, timed).to_json()
            latencies[index].extend(timed)
    return [
        ReaderFigures(reader.name, reports[index], vignette_figures[index], latencies[index])
        for index, reader in enumerate(readers)
    ]
