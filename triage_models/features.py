"""Structured features read out of a message: vital-sign danger zones, age, pain, red-flag rules by level."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.base import BaseEstimator, TransformerMixin

from triage_models.resources import predict_resources
from triage_models.result import RESOURCE_KINDS, Evidence, Resource
from triage_models.rules import DANGER_SPO2, evaluate_rules
from triage_models.vitals import Vitals, extract_vitals

FEATURE_NAMES = (
    "rule_floor_1",
    "rule_floor_2",
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
    *(f"resource_{kind}" for kind in RESOURCE_KINDS),
    "resources_none",
    "resources_one",
    "resources_many",
)


def structured_features(
    text: str,
    vitals: Vitals | None = None,
    hits: Sequence[Evidence] | None = None,
    resources: Sequence[Resource] | None = None,
) -> list[float]:
    """One row of `FEATURE_NAMES` for a message (pass vitals, rule hits and resources if already computed)."""
    vitals = vitals if vitals is not None else extract_vitals(text)
    hits = hits if hits is not None else evaluate_rules(text, vitals)
    resources = resources if resources is not None else predict_resources(text)
    kinds = {item.kind for item in resources}
    count = sum(item.weight for item in resources)
    levels = {hit.esi_level for hit in hits if hit.floor}
    points = [hit.decision_point.value for hit in hits]

    def value(reading: Any) -> float | None:
        return None if reading is None else float(reading.value)

    hr, rr, spo2 = value(vitals.heart_rate), value(vitals.respiratory_rate), value(vitals.spo2)
    sbp, temp, pain = value(vitals.systolic_bp), value(vitals.temperature_c), value(vitals.pain_score)
    age = value(vitals.age_years)
    lowered = text.lower()
    return [
        float(1 in levels),
        float(2 in levels),
        float(points.count("A")),
        float(points.count("B")),
        float(points.count("D")),
        float(hr is not None and hr > 100),
        float(hr is not None and hr < 50),
        float(rr is not None and rr > 20),
        float(spo2 is not None and spo2 < DANGER_SPO2),
        float(sbp is not None and sbp < 90),
        float(sbp is not None and sbp >= 180),
        float(temp is not None and temp >= 38.0),
        float(temp is not None and temp >= 39.5),
        float(pain is not None and pain >= 7),
        float(pain is not None and 4 <= pain < 7),
        float(pain is not None and pain < 4),
        float(pain is not None),
        float(age is not None and age < 1),
        float(age is not None and 1 <= age < 16),
        float(age is not None and age >= 65),
        float(age is not None and age >= 80),
        float(any(reading is not None for reading in (hr, rr, spo2, sbp, temp))),
        float("ambulance" in lowered or "medic " in lowered or "ems " in lowered),
        *(float(kind in kinds) for kind in RESOURCE_KINDS),
        float(count == 0),
        float(count == 1),
        float(count >= 2),
    ]


@functools.lru_cache(maxsize=65_536)
def cached_structured_features(text: str) -> tuple[float, ...]:
    """`structured_features` memoised by text: training reads each message once per fold, rules are the cost."""
    return tuple(structured_features(text))


class StructuredFeatures(BaseEstimator, TransformerMixin):  # type: ignore[misc]
    """scikit-learn transformer: texts -> `structured_features` rows (stateless)."""

    def fit(self, texts: Iterable[str], labels: Any = None) -> StructuredFeatures:
        return self

    def transform(self, texts: Iterable[str]) -> NDArray[np.float64]:
        return np.array([cached_structured_features(text) for text in texts], dtype=np.float64)

    def get_feature_names_out(self, input_features: Any = None) -> NDArray[np.str_]:
        return np.array(FEATURE_NAMES)
