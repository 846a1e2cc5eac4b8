"""Triage of one message: classifier probabilities, the urgency threshold, the red-flag floor, answer length."""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from triage_models.backends import ClassifierBackend, load_backend, new_backend
from triage_models.features import cached_structured_features, structured_features
from triage_models.length import LengthPredictor
from triage_models.llm import LLM_PROMPT_VERSION, LLMClassifier
from triage_models.result import ESI_LEVELS, DecisionPoint, Evidence, TriageResult
from triage_models.rules import RULES_VERSION, evaluate_rules, rules_floor
from triage_models.text import MAX_RULES_CHARS, coerce_text, truncate
from triage_models.vitals import extract_vitals

log = logging.getLogger(__name__)

RECALL_TARGET = 0.95
OVERTRIAGE_LIMIT = 0.35


def decide_level(probabilities: NDArray[np.float64], urgent_threshold: float) -> int:
    """The classifier's level: the most probable one, except that when P(ESI 1 or 2) reaches the threshold
    the more probable of ESI 1 and 2 is taken (under-triage of ESI 1-2 is the costliest error)."""
    if probabilities[0] + probabilities[1] >= urgent_threshold:
        return 1 if probabilities[0] >= probabilities[1] else 2
    return int(np.argmax(probabilities)) + 1


def tune_urgent_threshold(
    probabilities: NDArray[np.float64], labels: Sequence[int], floors: Sequence[int | None]
) -> float:
    """The threshold that, on held-out predictions, reaches ESI 1-2 recall >= 0.95 with over-triage <= 0.35
    and the best exact agreement; failing that, the best recall within the over-triage limit."""
    truth = np.asarray(labels)
    best: tuple[float, float, float] | None = None
    fallback: tuple[float, float] | None = None
    for threshold in np.round(np.arange(0.05, 0.55, 0.025), 3):
        predicted = np.array(
            [
                min(decide_level(row, float(threshold)), floor if floor is not None else 5)
                for row, floor in zip(probabilities, floors, strict=True)
            ]
        )
        urgent = truth <= 2
        recall = float((predicted[urgent] <= 2).mean()) if urgent.any() else 1.0
        over = float((predicted < truth).mean())
        exact = float((predicted == truth).mean())
        if recall >= RECALL_TARGET and over <= OVERTRIAGE_LIMIT and (best is None or exact > best[1]):
            best = (float(threshold), exact, recall)
        if over <= OVERTRIAGE_LIMIT and (fallback is None or recall > fallback[1]):
            fallback = (float(threshold), recall)
    if best is not None:
        return best[0]
    return fallback[0] if fallback is not None else 0.5


def _default_decision_point(level: int) -> DecisionPoint:
    return {1: DecisionPoint.A, 2: DecisionPoint.B}.get(level, DecisionPoint.C)


@dataclass(slots=True)
class TriageModel:
    """A trained classifier backend, its length predictor, the tuned threshold and where they came from."""

    backend: ClassifierBackend
    length: LengthPredictor
    urgent_threshold: float = 0.5
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def version(self) -> str:
        return str(self.meta.get("model_version", "untrained"))

    def save(self, directory: Path) -> None:
        """Write the model to a directory (joblib for the estimators, meta.json for the rest)."""
        import joblib

        directory.mkdir(parents=True, exist_ok=True)
        self.backend.save(directory)
        joblib.dump(self.length, directory / "length.joblib")
        meta = {**self.meta, "urgent_threshold": self.urgent_threshold}
        (directory / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, directory: Path) -> TriageModel:
        """Read a model written by `save`; a missing or partial directory is a clear error."""
        import joblib

        meta_path = directory / "meta.json"
        if not meta_path.is_file():
            raise FileNotFoundError(
                f"no triage model in {directory} (meta.json missing): run `triage-dispatch triage train`"
            )
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        backend = load_backend(str(meta.get("backend", "linear")), directory)
        length = joblib.load(directory / "length.joblib")
        threshold = float(meta.get("urgent_threshold", 0.5))
        return cls(backend=backend, length=length, urgent_threshold=threshold, meta=meta)


def train_model(
    texts: Sequence[str],
    labels: Sequence[int],
    answer_tokens: Sequence[int] | None = None,
    *,
    source: str = "",
    tune_threshold: bool = True,
    trained_at: str = "",
    backend: str = "linear",
    embedding_model: str | None = None,
) -> TriageModel:
    """Train a classifier backend and the length predictor; tune the urgency threshold on 3-fold held-out data."""
    if len(texts) != len(labels):
        raise ValueError("texts and labels differ in length")
    bad = sorted({label for label in labels if label not in ESI_LEVELS})
    if bad:
        raise ValueError(f"labels must be ESI levels 1..5; found {bad[:5]}")
    classifier = new_backend(backend, embedding_model).fit(texts, labels)
    threshold = 0.5
    if tune_threshold and classifier.oof_probabilities is not None:
        # Feature 0 and 1 of the structured row say whether a level-1 / level-2 floor rule fired.
        rows = [cached_structured_features(text) for text in texts]
        floors = [1 if row[0] else 2 if row[1] else None for row in rows]
        threshold = tune_urgent_threshold(classifier.oof_probabilities, labels, floors)
    length = LengthPredictor()
    if answer_tokens is not None:
        length.fit(texts, labels, answer_tokens)
    else:
        length.fit(texts, labels, [_level_default_tokens(label) for label in labels])
    digest = hashlib.sha256("\n".join(f"{label}\t{text}" for text, label in zip(texts, labels, strict=True)).encode())
    meta = {
        "backend": backend,
        "embedding_model": embedding_model,
        "model_version": f"{backend}-{digest.hexdigest()[:10]}-{RULES_VERSION}",
        "rules_version": RULES_VERSION,
        "trained_on": source,
        "n": len(texts),
        "label_counts": {str(level): int(sum(1 for label in labels if label == level)) for level in ESI_LEVELS},
        "trained_at": trained_at,
    }
    return TriageModel(backend=classifier, length=length, urgent_threshold=threshold, meta=meta)


def _level_default_tokens(level: int) -> int:
    """Guidance length by level when the training data has none: longer pre-arrival instructions when urgent."""
    return {1: 380, 2: 290, 3: 210, 4: 150, 5: 100}[level]


class Triager:
    """Classifies messages: the final level is the more urgent of the classifier's and the red-flag rules'.

    With an `llm` classifier the model's validated answer sets the classifier level; if it fails in any way the
    trained backend's level is used instead and the result says so in `notes`.
    """

    def __init__(self, model: TriageModel, llm: LLMClassifier | None = None) -> None:
        self.model = model
        self.llm = llm

    def classify(self, message: str | bytes) -> TriageResult:
        """Triage one message; empty or non-text input raises `InvalidMessageError`, anything else answers."""
        full, rules_truncated = truncate(coerce_text(message), MAX_RULES_CHARS)
        text, truncated = truncate(full)
        # The rules read the whole message (up to the intake limit), the classifier its head.
        vitals = extract_vitals(full)
        evidence = evaluate_rules(full, vitals)
        probabilities = self.model.backend.predict_one(text, structured_features(text, vitals, evidence))
        classifier_level = decide_level(probabilities, self.model.urgent_threshold)
        backend, notes = self.model.backend.name, ["message truncated for classification"] if truncated else []
        if rules_truncated:
            notes.append(f"red-flag rules read the first {MAX_RULES_CHARS} characters only")
        if self.llm is not None:
            try:
                # The model may make the level more urgent than the trained classifier's, never less: a
                # message that talks the model into "ESI 5" cannot lower urgency.
                classifier_level = min(self.llm.classify(text).esi_level, classifier_level)
                backend = self.llm.name
            except Exception as error:  # any failure of the model falls back, never to "no level"
                log.warning("llm triage failed, using %s: %s", backend, error)
                notes.append(f"llm backend failed ({type(error).__name__}: {error}); used {backend}")
        floor = rules_floor(evidence)
        level = min(classifier_level, floor) if floor is not None else classifier_level
        return TriageResult(
            esi_level=level,
            probabilities={lvl: float(p) for lvl, p in zip(ESI_LEVELS, probabilities, strict=True)},
            classifier_level=classifier_level,
            decision_point=_decision_point(level, evidence),
            evidence=tuple(evidence),
            predicted_output_tokens=self.model.length.predict(text, level),
            model_version=self.model.version if backend != "llm" else f"{LLM_PROMPT_VERSION}+{self.model.version}",
            backend=backend,
            notes=tuple(notes),
        )

    def classify_timed(self, messages: Sequence[str]) -> tuple[list[TriageResult], list[float]]:
        """Classify one by one (as in production) and return each call's latency in milliseconds."""
        results, latencies = [], []
        for message in messages:
            started = time.perf_counter()
            results.append(self.classify(message))
            latencies.append((time.perf_counter() - started) * 1000)
        return results, latencies


def _decision_point(level: int, evidence: Sequence[Evidence]) -> DecisionPoint:
    """The decision point of a rule that set the level, else the level's own (A for 1, B for 2, C below)."""
    for hit in evidence:
        if hit.esi_level == level and hit.floor:
            return hit.decision_point
    return _default_decision_point(level)
