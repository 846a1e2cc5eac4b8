"""Red flags: the protocols' determinants (ESI decision points A, B and C) and the danger-zone vital signs (D).

The determinants are data (`triage_models/knowledge/`, read by `protocols.read_call`); this module adds the vital-sign
rules of the ESI handbook by age and gives the rest of the product one list of evidence. Determinants of ESI 1-3
set a floor: the final level is never less urgent than any of them. Those of ESI 4-5 (a minor complaint) are the
positive reason a calm level needs; they set no floor.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable

from triage_models.context import ContextReader
from triage_models.knowledge_base import load_knowledge
from triage_models.knowledge_files import KNOWLEDGE_DIR
from triage_models.language import rule_languages
from triage_models.protocols import CallReading, read_call
from triage_models.result import DecisionPoint, Evidence
from triage_models.vitals import Reading, Vitals, extract_vitals


def _knowledge_version() -> str:
    with (KNOWLEDGE_DIR / "knowledge.toml").open("rb") as handle:
        return str(tomllib.load(handle)["version"])


RULES_VERSION = f"knowledge-{_knowledge_version()}"
"""The version of the triage knowledge a trained model was built with (`knowledge/knowledge.toml`)."""

VITAL_RULE_IDS = (
    "A-EXTREME-VITALS",
    "D-HEART-RATE",
    "D-RESP-RATE",
    "D-SPO2",
    "D-HYPOTENSION",
    "D-GCS",
    "D-TEMPERATURE",
    "B-PAIN-SCORE",
    "B-NEONATAL-FEVER",
)


def rule_ids() -> tuple[str, ...]:
    """Every rule id evidence can carry: the determinants of the shipped knowledge, then the vital-sign rules."""
    return (*load_knowledge().determinant_ids, *VITAL_RULE_IDS)


class VitalLimits:
    """ESI danger-zone limits for one age band (handbook v4): HR and RR above."""

    __slots__ = ("heart_rate", "max_age_years", "respiratory_rate")

    def __init__(self, max_age_years: float, heart_rate: float, respiratory_rate: float) -> None:
        self.max_age_years = max_age_years
        self.heart_rate = heart_rate
        self.respiratory_rate = respiratory_rate


DANGER_ZONES = (
    VitalLimits(0.25, 180, 50),  # under 3 months
    VitalLimits(3.0, 160, 40),  # 3 months to 3 years
    VitalLimits(8.0, 140, 30),  # 3 to 8 years
    VitalLimits(200.0, 100, 20),  # older than 8
)
DANGER_SPO2 = 92.0


def _limits_for(age: float | None) -> VitalLimits:
    years = 30.0 if age is None else age
    return next(limits for limits in DANGER_ZONES if years <= limits.max_age_years)


def _evidence(
    rule_id: str, level: int, point: DecisionPoint, description: str, reading: Reading, floor: bool = True
) -> Evidence:
    return Evidence(rule_id, level, point, description, reading.start, reading.end, reading.text, floor)


ADVISORY_RULES = frozenset({"D-HEART-RATE", "D-RESP-RATE", "B-PAIN-SCORE", "D-TEMPERATURE"})
"""Danger-zone flags the ESI handbook says to *consider*: shown as evidence and used as features, but they set
no floor (on KTAS ED1, a heart rate over 100 meant level 1-2 in only 15 % of cases, pain 7/10+ in 13 %)."""


def _vital_checks(
    vitals: Vitals, limits: VitalLimits, adult: bool
) -> list[tuple[Reading | None, Callable[[float], bool], Callable[[float], bool], str, str]]:
    return [
        (
            vitals.heart_rate,
            lambda v: v > limits.heart_rate or (adult and v < 50),
            lambda v: v >= 180 or v < 40 if adult else v >= limits.heart_rate + 40 or v < 60,
            "D-HEART-RATE",
            "heart rate",
        ),
        (
            vitals.respiratory_rate,
            lambda v: v > limits.respiratory_rate or v < 10,
            lambda v: v >= 40 or v <= 6 if adult else v >= limits.respiratory_rate + 20 or v <= 8,
            "D-RESP-RATE",
            "respiratory rate",
        ),
        (vitals.spo2, lambda v: v < DANGER_SPO2, lambda v: v < 85, "D-SPO2", "oxygen saturation"),
        (vitals.systolic_bp, lambda v: v < 90, lambda v: v < 70, "D-HYPOTENSION", "systolic blood pressure"),
        (vitals.gcs, lambda v: v <= 13, lambda v: v <= 8, "D-GCS", "Glasgow coma scale"),
        (
            vitals.temperature_c,
            lambda v: v >= 40.0 or v < 35.0,
            lambda v: v < 32.0 or v >= 41.5,
            "D-TEMPERATURE",
            "temperature",
        ),
        (vitals.pain_score, lambda v: v >= 7, lambda v: False, "B-PAIN-SCORE", "pain score"),
    ]


def vital_rules(vitals: Vitals) -> list[Evidence]:
    """Danger-zone (D, ESI 2) and extreme (A, ESI 1) vital signs."""
    hits: list[Evidence] = []
    age = vitals.age_years.value if vitals.age_years else None
    temperature = vitals.temperature_c
    if temperature is not None and age is not None and age < 0.08 and temperature.value >= 38.0:
        hits.append(_evidence("B-NEONATAL-FEVER", 2, DecisionPoint.B, "fever in a baby under 28 days", temperature))
    for reading, danger, extreme, rule_id, name in _vital_checks(vitals, _limits_for(age), age is None or age > 8):
        if reading is None:
            continue
        if extreme(reading.value):
            hits.append(_evidence("A-EXTREME-VITALS", 1, DecisionPoint.A, f"extreme {name}", reading))
        elif danger(reading.value):
            point = DecisionPoint.B if rule_id.startswith("B-") else DecisionPoint.D
            label = "severe pain (7/10 or more)" if rule_id.startswith("B-") else f"danger-zone {name}"
            hits.append(_evidence(rule_id, 2, point, label, reading, floor=rule_id not in ADVISORY_RULES))
    return hits


FEVER_C = 38.0


def vital_findings(vitals: Vitals) -> tuple[str, ...]:
    """The findings measured vital signs give the protocols: a temperature of 38 °C or more is a fever."""
    temperature = vitals.temperature_c
    return ("fever",) if temperature is not None and temperature.value >= FEVER_C else ()


def read_with_vitals(
    text: str, vitals: Vitals | None = None, reader: ContextReader | None = None, age_years: float | None = None
) -> tuple[CallReading, list[Evidence]]:
    """The protocols' reading of a call and every red flag in it (determinants and vital signs), most urgent first.

    The call is read in the wording of its language (`language.rule_languages`: English, Spanish, or both).
    """
    kb = load_knowledge()
    vitals = vitals if vitals is not None else extract_vitals(text)
    if age_years is None and vitals.age_years is not None:
        age_years = vitals.age_years.value
    reading = read_call(kb, text, rule_languages(text), reader or kb.context, age_years, vital_findings(vitals))
    hits = [*reading.evidence, *vital_rules(vitals)]
    return reading, sorted(hits, key=lambda hit: (hit.esi_level, hit.start, hit.rule_id))


def evaluate_rules(
    text: str, vitals: Vitals | None = None, reader: ContextReader | None = None, age_years: float | None = None
) -> list[Evidence]:
    """Every red flag in the message, most urgent first; empty when none fires."""
    return read_with_vitals(text, vitals, reader, age_years)[1]


def rules_floor(hits: list[Evidence]) -> int | None:
    """The most urgent level the rules demand (advisory flags and calm determinants excluded), or None."""
    return min((hit.esi_level for hit in hits if hit.floor), default=None)
