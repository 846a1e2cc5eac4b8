"""Triage of one message: classifier probabilities, the urgency threshold, the red-flag floor, answer length."""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from triage_models.backends import ClassifierBackend, load_backend, new_backend
from triage_models.calibration import fit_temperature, softmax
from triage_models.context import ContextReader
from triage_models.esi import DecisionPolicy, decide
from triage_models.features import structured_features
from triage_models.knowledge_base import load_knowledge
from triage_models.language import detect_language, load_language_models
from triage_models.length import LengthPredictor
from triage_models.linear import LinearBackend
from triage_models.llm import LLM_PROMPT_VERSION, LLMClassifier
from triage_models.protocols import key_question_states
from triage_models.resources import RESOURCES_VERSION, predict_resources
from triage_models.result import ESI_LEVELS, DecisionPoint, TriageResult
from triage_models.rules import RULES_VERSION, read_with_vitals
from triage_models.text import MAX_RULES_CHARS, coerce_text, truncate
from triage_models.transcript import fold_accents
from triage_models.tuning import TuningCase, tune_policy
from triage_models.vitals import age_in_years, extract_vitals

log = logging.getLogger(__name__)

WARM_UP_MESSAGES = (
    "Warm-up message: my neighbour slipped on the stairs and hurt her wrist, she is talking",
    "Mensaje de prueba: mi vecina se resbaló en la escalera y le duele la muñeca, está hablando",
    "Mensagem de aquecimento: a minha vizinha caiu",
)
"""What `Triager.warm_up` classifies: English, Spanish, and a language triage does not read (the detector's path)."""


@dataclass(slots=True)
class TriageModel:
    """A trained classifier backend, its length predictor, the tuned threshold and where they came from."""

    backend: ClassifierBackend
    length: LengthPredictor
    policy: DecisionPolicy = field(default_factory=DecisionPolicy)
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def version(self) -> str:
        return str(self.meta.get("model_version", "untrained"))

    def save(self, directory: Path) -> None:
        """Write the model to a directory (skops for the estimators, meta.json for the rest)."""
        directory.mkdir(parents=True, exist_ok=True)
        self.backend.save(directory)
        self.length.save(directory)
        meta = {**self.meta, "policy": asdict(self.policy)}
        (directory / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, directory: Path) -> TriageModel:
        """Read a model written by `save`; a missing or partial directory is a clear error."""
        meta_path = directory / "meta.json"
        if not meta_path.is_file():
            raise FileNotFoundError(
                f"no triage model in {directory} (meta.json missing): run `triage-dispatch triage train`"
            )
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        backend = load_backend(str(meta.get("backend", "linear")), directory)
        length = LengthPredictor.load(directory)
        saved: dict[str, Any] = dict(meta.get("policy", {}))
        policy = DecisionPolicy(**{key: _policy_value(value) for key, value in saved.items()})
        return cls(backend=backend, length=length, policy=policy, meta=meta)


def _policy_value(value: Any) -> Any:
    """A saved policy field: a choice stays a string, a threshold is a float."""
    return value if isinstance(value, str) else float(value)


GENERATED_SOURCE = "generated"
VIGNETTE_SOURCE = "esi"
UNTUNED_SOURCES = frozenset({GENERATED_SOURCE, VIGNETTE_SOURCE})
SOURCE_WEIGHTS = {"ktas": 3.0, VIGNETTE_SOURCE: 2.0}
"""Real emergency-department records weigh more than one call each: there are few of them (688 KTAS records and 89
vignettes beside 4,600 corpus calls), they are the only real cases, and without the weight the model read KTAS ED2's
ESI 4 complaints as the corpus's ESI 3 ones (exact agreement on ED2 fell from 0.62 to 0.51)."""
"""Rows of these sources are trained on but never tuned or calibrated on: the generator's messages are easier than
real ones, and the ESI practice vignettes are what the policy is checked on (`triage cv`), never fitted to. The
thresholds and the temperature come from the call-style corpus and the KTAS records."""


def train_model(
    texts: Sequence[str],
    labels: Sequence[int],
    answer_tokens: Sequence[int] | None = None,
    *,
    sources: Sequence[str] | None = None,
    source: str = "",
    tune_threshold: bool = True,
    calibrate: bool = True,
    trained_at: str = "",
    backend: str = "linear",
    embedding_model: str | None = None,
) -> TriageModel:
    """Train a classifier backend and the length predictor; calibrate and tune the decision policy on 3-fold
    held-out predictions of the real rows (`sources` names each row's origin; all rows when none is real)."""
    if len(texts) != len(labels) or (sources is not None and len(sources) != len(texts)):
        raise ValueError("texts, labels and sources differ in length")
    bad = sorted({label for label in labels if label not in ESI_LEVELS})
    if bad:
        raise ValueError(f"labels must be ESI levels 1..5; found {bad[:5]}")
    row_sources = list(sources) if sources is not None else ["data"] * len(texts)
    weights = [SOURCE_WEIGHTS.get(name, 1.0) for name in row_sources]
    classifier = new_backend(backend, embedding_model).fit(texts, labels, calibrate=calibrate, weights=weights)
    policy = DecisionPolicy()
    if tune_threshold and classifier.oof_probabilities is not None:
        policy = _calibrate_and_tune(classifier, texts, labels, row_sources)
    length = LengthPredictor()
    length.fit(texts, labels, answer_tokens or [_level_default_tokens(label) for label in labels])
    digest = hashlib.sha256("\n".join(f"{label}\t{text}" for text, label in zip(texts, labels, strict=True)).encode())
    meta = {
        "backend": backend,
        "embedding_model": embedding_model,
        "model_version": f"{backend}-{digest.hexdigest()[:10]}-{RULES_VERSION}",
        "rules_version": RULES_VERSION,
        "resources_version": RESOURCES_VERSION,
        "trained_on": source,
        "n": len(texts),
        "n_by_source": {name: row_sources.count(name) for name in sorted(set(row_sources))},
        "label_counts": {str(level): int(sum(1 for label in labels if label == level)) for level in ESI_LEVELS},
        "temperature": float(classifier.temperature),
        "source_weights": {name: SOURCE_WEIGHTS.get(name, 1.0) for name in sorted(set(row_sources))},
        "trained_at": trained_at,
    }
    return TriageModel(backend=classifier, length=length, policy=policy, meta=meta)


def _calibrate_and_tune(
    classifier: ClassifierBackend, texts: Sequence[str], labels: Sequence[int], sources: Sequence[str]
) -> DecisionPolicy:
    """Re-fit the temperature on the real rows' held-out probabilities, then tune the policy on them."""
    assert classifier.oof_probabilities is not None
    real = [i for i, name in enumerate(sources) if name not in UNTUNED_SOURCES] or list(range(len(texts)))
    oof = classifier.oof_probabilities[real]
    log_probabilities = np.log(np.clip(oof, 1e-12, None))
    extra = fit_temperature(log_probabilities, [labels[i] for i in real])
    classifier.temperature = float(classifier.temperature) * extra
    calibrated = softmax(log_probabilities / extra)
    cases = []
    for row, i in zip(calibrated, real, strict=True):
        reading, evidence = read_with_vitals(texts[i], extract_vitals(texts[i]))
        resources = predict_resources(texts[i])
        cases.append(
            TuningCase(
                row,
                tuple(evidence),
                resources,
                labels[i],
                sources[i],
                reading.non_medical,
                reading.protocol is not None or reading.medical,
            )
        )
    return tune_policy(cases)


def _level_default_tokens(level: int) -> int:
    """Guidance length by level when the training data has none: longer pre-arrival instructions when urgent."""
    return {1: 380, 2: 290, 3: 210, 4: 150, 5: 100}[level]


class Triager:
    """Classifies messages with the ESI algorithm (`esi.decide`): the red-flag rules are a floor on the level.

    With an `llm` classifier the model's validated answer can make the level more urgent, never less; if it fails
    in any way the trained model's decision stands and the result says so in `notes`.
    """

    def __init__(
        self, model: TriageModel, llm: LLMClassifier | None = None, reader: ContextReader | None = None
    ) -> None:
        self.model = model
        self.llm = llm
        self.reader = reader
        """How the rules read negation and context (swapped only to measure another algorithm against ours)."""
        vocabulary = model.backend.vocabulary() if isinstance(model.backend, LinearBackend) else frozenset()
        self._known_word = vocabulary.__contains__

    def warm_up(self) -> None:
        """Load now what a process's first classifications would (the knowledge, the language models, the model's
        lazy parts), so that no call waits for it; an LLM classifier is not asked."""
        load_knowledge()
        load_language_models()
        plain = Triager(self.model, reader=self.reader)
        for message in WARM_UP_MESSAGES:
            plain.classify(message)

    def classify(self, message: str | bytes) -> TriageResult:
        """Triage one message; empty or non-text input raises `InvalidMessageError`, anything else answers."""
        full, rules_truncated = truncate(coerce_text(message), MAX_RULES_CHARS)
        text, truncated = truncate(full)
        # The rules read the whole message (up to the intake limit), the classifier its head.
        vitals = extract_vitals(full)
        reading, evidence = read_with_vitals(full, vitals, self.reader)
        resources = predict_resources(text)
        language = detect_language(text, self._known_word)
        features = structured_features(text, vitals, evidence, resources, reading)
        probabilities = self.model.backend.predict_one(text, features)
        recognised = reading.protocol is not None or reading.medical
        decision = decide(
            probabilities, evidence, resources, self.model.policy, language.reason, reading.non_medical, recognised
        )
        backend, notes = self.model.backend.name, ["message truncated for classification"] if truncated else []
        if rules_truncated:
            notes.append(f"red-flag rules read the first {MAX_RULES_CHARS} characters only")
        level, point = decision.esi_level, decision.decision_point
        model_level = decide(probabilities, (), resources, self.model.policy, recognised=True).esi_level
        if self.llm is not None:
            level, point, backend, llm_level = self._ask_llm(text, level, point, notes)
            model_level = min(model_level, llm_level)
        return TriageResult(
            esi_level=level,
            probabilities={lvl: float(p) for lvl, p in zip(ESI_LEVELS, probabilities, strict=True)},
            classifier_level=model_level,
            decision_point=point,
            evidence=tuple(evidence),
            predicted_output_tokens=self.model.length.predict(text, level),
            model_version=self.model.version if backend != "llm" else f"{LLM_PROMPT_VERSION}+{self.model.version}",
            backend=backend,
            notes=tuple(notes),
            resources=decision.resources,
            resource_count=decision.resource_count,
            needs_review=decision.needs_review,
            review_reason=decision.review_reason,
            language=language,
            age_years=age_in_years(vitals, fold_accents(text)),
            protocol=reading.protocol,
            key_questions=key_question_states(reading),
            non_medical=decision.non_medical,
        )

    def _ask_llm(
        self, text: str, level: int, point: DecisionPoint, notes: list[str]
    ) -> tuple[int, DecisionPoint, str, int]:
        """The llm backend's level when valid and more urgent (a message cannot talk it into less urgency), and
        what it said; any failure keeps the trained model's decision (and says 5, which lowers nothing)."""
        assert self.llm is not None
        try:
            verdict = self.llm.classify(text)
        except Exception as error:  # any failure of the model falls back, never to "no level"
            log.warning("llm triage failed, using %s: %s", self.model.backend.name, error)
            notes.append(f"llm backend failed ({type(error).__name__}: {error}); used {self.model.backend.name}")
            return level, point, self.model.backend.name, 5
        if verdict.esi_level < level:
            return verdict.esi_level, verdict.decision_point, self.llm.name, verdict.esi_level
        return level, point, self.llm.name, verdict.esi_level

    def classify_timed(self, messages: Sequence[str]) -> tuple[list[TriageResult], list[float]]:
        """Classify one by one (as in production) and return each call's latency in milliseconds; a caller that times
        a set warms the triager up first (`warm_up`), as a worker is."""
        results, latencies = [], []
        for message in messages:
            started = time.perf_counter()
            results.append(self.classify(message))
            latencies.append((time.perf_counter() - started) * 1000)
        return results, latencies
