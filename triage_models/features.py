"""Structured features read out of a message, by name: vital-sign zones, age, pain, resources, red flags, findings.

Each finding of the protocols said of the patient now is a feature of its own (`finding:<id>`), so the model learns
from concepts, whatever words the caller used, as well as from the words. A model keeps the names it was trained
on: knowledge edited since (a finding added, one renamed) changes no column of a trained model; the new finding
simply has no weight until the next training.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.base import BaseEstimator, TransformerMixin

from triage_models.knowledge_base import load_knowledge
from triage_models.protocols import CallReading
from triage_models.resources import predict_resources
from triage_models.result import RESOURCE_KINDS, Evidence, Resource
from triage_models.rules import DANGER_SPO2, read_with_vitals
from triage_models.vitals import Vitals, extract_vitals

STATIC_FEATURE_NAMES = (
    "rule_floor_1",
    "rule_floor_2",
    "rule_floor_3",
    "calm_determinant",
    "rule_count_a",
    "rule_count_b",
    "rule_count_d",
    "hr_high",
    "hr_low",
    "rr_high",
    "spo2_low",
    "sbp_low",
    "sbp_high",
    "temp_fever",
    "temp_high_fever",
    "pain_severe",
    "pain_moderate",
    "pain_mild",
    "pain_reported",
    "age_infant",
    "age_child",
    "age_old",
    "age_very_old",
    "vitals_reported",
    "ambulance",
    "non_medical",
    *(f"resource_{kind}" for kind in RESOURCE_KINDS),
    "resources_none",
    "resources_one",
    "resources_many",
)
FINDING_PREFIX = "finding:"


def feature_names() -> tuple[str, ...]:
    """The structured features of the current knowledge: the fixed ones, then one per finding."""
    return (*STATIC_FEATURE_NAMES, *(f"{FINDING_PREFIX}{name}" for name in sorted(load_knowledge().findings)))


def _vital_features(vitals: Vitals) -> dict[str, bool]:
    def value(reading: Any) -> float | None:
        return None if reading is None else float(reading.value)

    hr, rr, spo2 = value(vitals.heart_rate), value(vitals.respiratory_rate), value(vitals.spo2)
    sbp, temp, pain = value(vitals.systolic_bp), value(vitals.temperature_c), value(vitals.pain_score)
    age = value(vitals.age_years)
    return {
        "hr_high": hr is not None and hr > 100,
        "hr_low": hr is not None and hr < 50,
        "rr_high": rr is not None and rr > 20,
        "spo2_low": spo2 is not None and spo2 < DANGER_SPO2,
        "sbp_low": sbp is not None and sbp < 90,
        "sbp_high": sbp is not None and sbp >= 180,
        "temp_fever": temp is not None and temp >= 38.0,
        "temp_high_fever": temp is not None and temp >= 39.5,
        "pain_severe": pain is not None and pain >= 7,
        "pain_moderate": pain is not None and 4 <= pain < 7,
        "pain_mild": pain is not None and pain < 4,
        "pain_reported": pain is not None,
        "age_infant": age is not None and age < 1,
        "age_child": age is not None and 1 <= age < 16,
        "age_old": age is not None and age >= 65,
        "age_very_old": age is not None and age >= 80,
        "vitals_reported": any(reading is not None for reading in (hr, rr, spo2, sbp, temp)),
    }


def _evidence_features(hits: Sequence[Evidence]) -> dict[str, float]:
    floors = {hit.esi_level for hit in hits if hit.floor}
    points = [hit.decision_point.value for hit in hits if hit.floor]
    return {
        "rule_floor_1": float(1 in floors),
        "rule_floor_2": float(2 in floors),
        "rule_floor_3": float(3 in floors),
        "calm_determinant": float(any(not hit.floor and hit.esi_level >= 4 for hit in hits)),
        "rule_count_a": float(points.count("A")),
        "rule_count_b": float(points.count("B")),
        "rule_count_d": float(points.count("D")),
    }


def structured_features(
    text: str,
    vitals: Vitals | None = None,
    hits: Sequence[Evidence] | None = None,
    resources: Sequence[Resource] | None = None,
    reading: CallReading | None = None,
) -> dict[str, float]:
    """The non-zero structured features of a message, by name (pass what is already computed)."""
    vitals = vitals if vitals is not None else extract_vitals(text)
    if hits is None or reading is None:
        reading, hits = read_with_vitals(text, vitals)
    resources = resources if resources is not None else predict_resources(text)
    kinds = {item.kind for item in resources}
    count = sum(item.weight for item in resources)
    lowered = text.lower()
    flags: dict[str, float] = {
        **_evidence_features(hits),
        **{name: float(on) for name, on in _vital_features(vitals).items()},
        "ambulance": float("ambulance" in lowered or "medic " in lowered or "ems " in lowered),
        "non_medical": float(reading.non_medical),
        **{f"resource_{kind}": float(kind in kinds) for kind in RESOURCE_KINDS},
        "resources_none": float(count == 0),
        "resources_one": float(count == 1),
        "resources_many": float(count >= 2),
    }
    flags.update({f"{FINDING_PREFIX}{name}": 1.0 for name in reading.present()})
    return {name: value for name, value in flags.items() if value}


def feature_row(features: Mapping[str, float], names: Sequence[str]) -> NDArray[np.float64]:
    """The features as a row in the order of `names` (a name the message lacks is 0; one not in `names` is left
    out)."""
    return np.array([features.get(name, 0.0) for name in names], dtype=np.float64)


@functools.lru_cache(maxsize=65_536)
def cached_structured_features(text: str) -> tuple[tuple[str, float], ...]:
    """`structured_features` memoised by text: training reads each message once per fold, reading is the cost."""
    return tuple(sorted(structured_features(text).items()))


class StructuredFeatures(BaseEstimator, TransformerMixin):  # type: ignore[misc]
    """scikit-learn transformer: texts -> rows of `structured_features` in the order of `names` (the current
    knowledge's, fixed at fit)."""

    def __init__(self, names: tuple[str, ...] | None = None) -> None:
        self.names = names

    def fit(self, texts: Iterable[str], labels: Any = None) -> StructuredFeatures:
        if self.names is None:
            self.names = feature_names()
        return self

    def transform(self, texts: Iterable[str]) -> NDArray[np.float64]:
        names = self.names or feature_names()
        return np.array([feature_row(dict(cached_structured_features(text)), names) for text in texts])

    def get_feature_names_out(self, input_features: Any = None) -> NDArray[np.str_]:
        return np.array(self.names or feature_names())
