"""Learning from dispatchers: a candidate model from override labels, compared with the serving one, and its gate."""

from __future__ import annotations

import ctypes
import datetime as dt
import math
import os
import shutil
import sys
import uuid
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from triage_models.generator import generate
from triage_models.metrics import triage_metrics
from triage_models.pipeline import GENERATED_SOURCE, TriageModel, Triager, train_model
from triage_models.store import LabelledData

OVERRIDE_WEIGHT = 5
"""Each override label is repeated this many times in training: one dispatcher's judgement on a real call weighs
more than one generated message."""
HOLDOUT_SHARE = 0.2
"""The newest share of the overrides held out (by time) for the report."""
MIN_OVERRIDES_FOR_HOLDOUT = 5
"""With fewer overrides nothing is held out: each one is too precious to spend on a report."""
VALIDATION_SIZE = 1_000
VALIDATION_SEED = 2026
"""The fixed validation set is generated with a seed the training data (seed 0) never uses."""

ModelT = TypeVar("ModelT")


@dataclass(frozen=True, slots=True)
class OverrideLabel:
    """A dispatcher's final level for an incident's original message, and when it was set."""

    text: str
    esi_level: int
    at: dt.datetime


@dataclass(frozen=True, slots=True)
class Figures:
    """Agreement of a model with a set of labels (ESI 1-2 recall is None where the set has no ESI 1-2)."""

    n: int
    exact: float
    within_one: float
    esi12_recall: float | None
    overtriage_rate: float

    def to_json(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "exact": self.exact,
            "within_one": self.within_one,
            "esi12_recall": self.esi12_recall,
            "overtriage_rate": self.overtriage_rate,
        }


@dataclass(frozen=True, slots=True)
class Comparison:
    """The serving model and a candidate on the same labelled set."""

    serving: Figures
    candidate: Figures

    def to_json(self) -> dict[str, Any]:
        return {"serving": self.serving.to_json(), "candidate": self.candidate.to_json()}


@dataclass(frozen=True, slots=True)
class Retrained(Generic[ModelT]):
    """The candidate (fitted on all overrides) and how it compares with the serving model.

    `validation` compares the written candidate; `held_out` (None when nothing was held out) compares the
    time-held-out fit, which never saw the `held_out_count` newest overrides.
    """

    candidate: ModelT
    validation: Comparison
    held_out: Comparison | None
    override_count: int
    held_out_count: int
    held_out_from: dt.datetime | None

    def report(self) -> dict[str, Any]:
        """The JSON report, without the model versions and paths (the caller adds those)."""
        held_out: dict[str, Any] | None = None
        if self.held_out is not None:
            held_out = {
                **self.held_out.to_json(),
                "serving_agreement": self.held_out.serving.exact,
                "candidate_agreement": self.held_out.candidate.exact,
                "candidate_fit": f"time-held-out fit: trained without these {self.held_out_count} newest overrides",
            }
        return {
            "overrides": {
                "used": self.override_count,
                "weight": OVERRIDE_WEIGHT,
                "held_out": self.held_out_count,
                "held_out_from": self.held_out_from.isoformat() if self.held_out_from else None,
            },
            "validation": {
                **self.validation.to_json(),
                "candidate_fit": f"the written candidate: refit on all {self.override_count} overrides",
            },
            "held_out_overrides": held_out,
            "note": (
                f"the held-out figures come from a fit without the {self.held_out_count} newest overrides; the "
                f"written candidate was refit on all {self.override_count} (its validation figures are its own)"
            ),
        }


def overrides_since(overrides: Sequence[OverrideLabel], since: dt.datetime | None) -> list[OverrideLabel]:
    """The overrides set at or after `since` (a naive `since` is UTC); all of them when it is None."""
    if since is None:
        return list(overrides)
    since = since if since.tzinfo is not None else since.replace(tzinfo=dt.UTC)
    return [override for override in overrides if override.at >= since]


def split_by_time(overrides: Sequence[OverrideLabel]) -> tuple[list[OverrideLabel], list[OverrideLabel]]:
    """(kept for training, held out): the newest 20 % held out, at least one when there are >= 5, none below."""
    ordered = sorted(overrides, key=lambda override: override.at)
    if len(ordered) < MIN_OVERRIDES_FOR_HOLDOUT:
        return ordered, []
    count = max(1, math.floor(len(ordered) * HOLDOUT_SHARE))
    return ordered[:-count], ordered[-count:]


def with_overrides(
    base: LabelledData, overrides: Sequence[OverrideLabel], weight: int = OVERRIDE_WEIGHT
) -> LabelledData:
    """The base training data plus each override label repeated `weight` times.

    The repeated rows are trained on but, like generated rows, never used to calibrate or tune the decision policy
    (their copies would leak across the tuning folds, and overrides are a sample of the model's mistakes, not of
    calls); answer lengths are dropped (overrides have none)."""
    texts = [override.text for override in overrides for _ in range(weight)]
    labels = [override.esi_level for override in overrides for _ in range(weight)]
    sources = [*base.sources, *[GENERATED_SOURCE] * len(texts)]
    return LabelledData([*base.texts, *texts], [*base.labels, *labels], None, sources)


def fixed_validation_data(count: int = VALIDATION_SIZE, seed: int = VALIDATION_SEED) -> LabelledData:
    """The default validation set: generated messages with a seed training never uses."""
    messages = list(generate(count, seed))
    return LabelledData([m.text for m in messages], [m.esi_level for m in messages], None)


def figures(truth: Sequence[int], predicted: Sequence[int]) -> Figures:
    """Exact, within one, ESI 1-2 recall and over-triage of predicted levels against the truth."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # kappa (not reported here) is undefined on a small held-out set
        metrics = triage_metrics(truth, predicted)
    recall = None if math.isnan(metrics.esi12_recall) else metrics.esi12_recall
    return Figures(metrics.n, metrics.exact, metrics.within_one, recall, metrics.overtriage_rate)


def compare(
    serving: ModelT,
    candidate: ModelT,
    data: LabelledData,
    predict: Callable[[ModelT, Sequence[str]], list[int]],
) -> Comparison:
    """Both models on the same labelled data."""
    return Comparison(
        figures(data.labels, predict(serving, data.texts)), figures(data.labels, predict(candidate, data.texts))
    )


def retrain(
    base: LabelledData,
    overrides: Sequence[OverrideLabel],
    serving: ModelT,
    validation: LabelledData,
    fit: Callable[[LabelledData], ModelT],
    predict: Callable[[ModelT, Sequence[str]], list[int]],
) -> Retrained[ModelT]:
    """Fit without the newest overrides and compare on them; fit on all of them for the candidate; compare the
    candidate on the validation set. With nothing held out the two fits are one."""
    if not overrides:
        raise ValueError("no overrides to learn from")
    kept, held_out = split_by_time(overrides)
    candidate = fit(with_overrides(base, overrides))
    held_out_comparison = None
    if held_out:
        held_out_fit = fit(with_overrides(base, kept))
        labels = LabelledData([o.text for o in held_out], [o.esi_level for o in held_out], None)
        held_out_comparison = compare(serving, held_out_fit, labels, predict)
    return Retrained(
        candidate=candidate,
        validation=compare(serving, candidate, validation, predict),
        held_out=held_out_comparison,
        override_count=len(overrides),
        held_out_count=len(held_out),
        held_out_from=held_out[0].at if held_out else None,
    )


def fit_triage_model(data: LabelledData, source: str, trained_at: str) -> TriageModel:
    """The default `fit` for `retrain`: the linear backend, as `triage train` builds it."""
    return train_model(
        data.texts, data.labels, data.answer_tokens, sources=data.sources, source=source, trained_at=trained_at
    )


def predict_levels(model: TriageModel, texts: Sequence[str]) -> list[int]:
    """The default `predict` for `retrain`: final levels (classifier and red-flag floor) as served."""
    triager = Triager(model)
    return [triager.classify(text).esi_level for text in texts]


@dataclass(frozen=True, slots=True)
class PromotionDecision:
    """Whether a candidate may serve: never with a lower ESI 1-2 recall on the validation set."""

    promote: bool
    serving_recall: float | None
    candidate_recall: float | None
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {
            "promote": self.promote,
            "serving_esi12_recall": self.serving_recall,
            "candidate_esi12_recall": self.candidate_recall,
            "reason": self.reason,
        }


def promotion_gate(serving: Figures, candidate: Figures) -> PromotionDecision:
    """Promote only a candidate whose ESI 1-2 recall is not below the serving model's on the same set."""
    serving_recall, candidate_recall = serving.esi12_recall, candidate.esi12_recall
    if serving_recall is None or candidate_recall is None:
        return PromotionDecision(
            False, serving_recall, candidate_recall, "the validation set has no ESI 1-2 messages: recall is undefined"
        )
    both = f"candidate ESI 1-2 recall {candidate_recall:.3f}, serving {serving_recall:.3f}"
    if candidate_recall < serving_recall:
        return PromotionDecision(False, serving_recall, candidate_recall, f"refused: {both} (lower)")
    return PromotionDecision(True, serving_recall, candidate_recall, f"promoted: {both} (not lower)")


def previous_dir(serving_dir: Path) -> Path:
    """Where the model that served before the last promotion is kept."""
    return serving_dir.with_name(serving_dir.name + ".previous")


def install_model(candidate_dir: Path, serving_dir: Path) -> None:
    """Copy the candidate into the serving directory atomically: a sibling temp copy (meta.json touched last, so
    that workers see a new mtime), the old directory kept as `<dir>.previous`, then a swap of the two."""
    serving_dir.parent.mkdir(parents=True, exist_ok=True)
    incoming = serving_dir.with_name(f".{serving_dir.name}.incoming-{uuid.uuid4().hex[:8]}")
    try:
        shutil.copytree(candidate_dir, incoming, copy_function=shutil.copy)
        os.utime(incoming / "meta.json")
        previous = previous_dir(serving_dir)
        if not serving_dir.exists():
            incoming.rename(serving_dir)
            return
        if previous.exists():
            shutil.rmtree(previous)
        if _exchange(incoming, serving_dir):
            incoming.rename(previous)  # `incoming` now holds the old model
        else:
            serving_dir.rename(previous)
            incoming.rename(serving_dir)
    finally:
        if incoming.exists():
            shutil.rmtree(incoming, ignore_errors=True)


def _exchange(first: Path, second: Path) -> bool:
    """Swap two paths in one step (Linux renameat2 RENAME_EXCHANGE): no moment without a serving model, where a
    worker would train the default into the empty place. False where the system cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    result = renameat2(at_fdcwd, os.fsencode(first), at_fdcwd, os.fsencode(second), rename_exchange)
    return bool(result == 0)
