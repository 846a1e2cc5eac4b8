"""The triage result: ESI level, per-level probabilities, ESI decision point, evidence, answer-length estimate."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from triage_models.language import CallLanguage

ESI_LEVELS = (1, 2, 3, 4, 5)


class DecisionPoint(enum.Enum):
    """The ESI algorithm's decision points (ESI Implementation Handbook v4)."""

    A = "A"
    """Requires an immediate life-saving intervention: ESI 1."""
    B = "B"
    """High-risk situation, new confusion/lethargy/disorientation, or severe pain/distress: ESI 2."""
    C = "C"
    """How many resources are needed: ESI 3 (many), 4 (one), 5 (none)."""
    D = "D"
    """Danger-zone vital signs: consider ESI 2."""


@dataclass(frozen=True, slots=True)
class Evidence:
    """A red-flag rule that fired, with the text it fired on (character offsets into the message)."""

    rule_id: str
    esi_level: int
    decision_point: DecisionPoint
    description: str
    start: int
    end: int
    text: str
    floor: bool = True
    """True when the rule sets a floor on the level; False for advisory flags ("consider ESI 2")."""
    resolved: bool = False
    """The caller says the episode is over ("coughed it out, talking now"): shown, but no support for urgency."""

    def to_json(self) -> dict[str, Any]:
        return {
            "rule_id": self.rule_id,
            "floor": self.floor,
            "resolved": self.resolved,
            "esi_level": self.esi_level,
            "decision_point": self.decision_point.value,
            "description": self.description,
            "span": [self.start, self.end],
            "text": self.text,
        }


RESOURCE_KINDS = (
    "labs",
    "ecg",
    "imaging",
    "advanced_imaging",
    "iv_fluids",
    "parenteral_medication",
    "specialty_consult",
    "simple_procedure",
    "complex_procedure",
)
"""ESI resource kinds (handbook v4, chapter 5): each kind counts once however many tests of it; a complex procedure
counts 2. History and examination, oral medications, tetanus, prescription refills, simple wound care, crutches,
splints and slings are not resources. Plain and advanced imaging (CT, MRI) are both imaging: one resource."""


@dataclass(frozen=True, slots=True)
class Resource:
    """A resource the case is expected to need (ESI decision point C), with the words that suggest it."""

    kind: str
    start: int
    end: int
    text: str

    @property
    def weight(self) -> int:
        """What it adds to the ESI resource count: 2 for a complex procedure, else 1."""
        return 2 if self.kind == "complex_procedure" else 1

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "weight": self.weight, "span": [self.start, self.end], "text": self.text}


@dataclass(frozen=True, slots=True)
class KeyQuestionState:
    """One key question of the call's protocol, in the call-taker's two languages, and whether it is answered
    (asked and answered in the transcript, or its answer already said by the caller)."""

    id: str
    en: str
    es: str
    answered: bool

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "en": self.en, "es": self.es, "answered": self.answered}


@dataclass(frozen=True, slots=True)
class TriageResult:
    """Everything the scheduler and the dispatcher need from triage of one message."""

    esi_level: int
    probabilities: dict[int, float]
    """The classifier's probability per ESI level (sums to 1)."""
    classifier_level: int
    """What the learned model alone said (the algorithm without the red-flag rules); `esi_level` may be more
    urgent because of the rules, never less."""
    decision_point: DecisionPoint
    evidence: tuple[Evidence, ...] = field(default_factory=tuple)
    predicted_output_tokens: int = 0
    model_version: str = ""
    backend: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)
    """Operator-facing remarks, e.g. that the message was truncated or a backend fell back."""
    resources: tuple[Resource, ...] = field(default_factory=tuple)
    """The resources the case is expected to need, with evidence (decision point C)."""
    resource_count: int = 0
    """The ESI resource count of `resources` (complex procedures count 2)."""
    needs_review: bool = False
    """A person should look: the models could not separate two levels (the more urgent was taken), nothing in the
    call supports an urgent level, or the call is in a language triage cannot read (`review_reason` says which)."""
    review_reason: str = ""
    language: CallLanguage = field(default_factory=lambda: CallLanguage("en", True, 0.0))
    """The call's language: English and Spanish are read; any other is flagged for an interpreter."""
    age_years: float | None = None
    """The patient's age as the call gives it (or roughly, from "baby", "toddler", "child"); None when unknown."""
    protocol: str | None = None
    """The protocol the call was read by, one per chief complaint (`triage protocols list`); None when the call
    names no complaint."""
    key_questions: tuple[KeyQuestionState, ...] = ()
    """The protocol's key questions, each with whether the call-taker asked it and the caller answered."""
    non_medical: bool = False
    """The call names no medical problem (a ride, a noise, a pet): ESI 5, said so on the console."""

    def to_json(self) -> dict[str, Any]:
        return {
            "esi_level": self.esi_level,
            "probabilities": {str(level): round(p, 4) for level, p in self.probabilities.items()},
            "classifier_level": self.classifier_level,
            "decision_point": self.decision_point.value,
            "evidence": [item.to_json() for item in self.evidence],
            "predicted_output_tokens": self.predicted_output_tokens,
            "model_version": self.model_version,
            "backend": self.backend,
            "notes": list(self.notes),
            "resources": [item.to_json() for item in self.resources],
            "resource_count": self.resource_count,
            "needs_review": self.needs_review,
            "review_reason": self.review_reason,
            "language": self.language.to_json(),
            "age_years": None if self.age_years is None else round(self.age_years, 2),
            "protocol": self.protocol,
            "key_questions": [question.to_json() for question in self.key_questions],
            "non_medical": self.non_medical,
        }
