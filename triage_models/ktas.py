"""KTAS records (../shared/data/ktas) turned into the message a caller or crew could have given.

Only what is known before triage goes in: age, sex, how the patient arrived, injury, the chief complaint,
mental state, pain, and the vital signs. The diagnosis, the nurse's level and the length of stay are never used.
KTAS is not ESI, but both are five-level scales with 1 the most urgent; we treat KTAS as ESI for evaluation.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

_ARRIVAL = {
    "Walking": "walked in",
    "Public transportation": "came by public transport",
    "Private Vehicle": "came by private car",
    "Private Ambulance": "brought by private ambulance",
    "119 Ambulance": "brought by ambulance",
    "Wheelchair": "came in a wheelchair",
    "Others": "",
}
_MENTAL = {
    "Alert": "alert",
    "Verbal Response": "responds to voice only",
    "Pain Response": "responds only to pain",
    "Unresponsive": "unresponsive",
}


@dataclass(frozen=True, slots=True)
class KtasCase:
    """One record as a message, with the expert's level as the label."""

    text: str
    esi_level: int
    nurse_level: int | None = None
    """The triage nurse's KTAS level (KTAS_RN): a reference to compare with, never an input."""


def _number(value: str) -> float | None:
    try:
        number = float(value)
    except ValueError:
        return None
    return number if number == number else None


def build_message(row: dict[str, str]) -> str:
    """The message for one record, from pre-triage fields only."""
    parts: list[str] = []
    age = _number(row.get("Age", ""))
    sex = row.get("Sex", "").strip().lower()
    who = f"{int(age)}-year-old {sex}".strip() if age is not None else sex or "patient"
    arrival = _ARRIVAL.get(row.get("Arrival mode", "").strip(), "")
    parts.append(f"{who}, {arrival}" if arrival else who)
    complaint = row.get("Chief_complain", "").strip()
    if complaint and set(complaint) != {"?"}:
        parts.append(f"complaint: {complaint}")
    if row.get("Injury", "").strip() == "Yes":
        parts.append("injury")
    mental = _MENTAL.get(row.get("Mental", "").strip())
    if mental:
        parts.append(mental)
    pain_score = _number(row.get("NRS_pain", ""))
    if row.get("Pain", "").strip() == "1":
        parts.append(f"pain {int(pain_score)}/10" if pain_score is not None else "in pain")
    vitals = []
    sbp, dbp = _number(row.get("SBP", "")), _number(row.get("DBP", ""))
    if sbp is not None and dbp is not None:
        vitals.append(f"BP {int(sbp)}/{int(dbp)}")
    for field, label in (("HR", "HR"), ("RR", "RR")):
        value = _number(row.get(field, ""))
        if value is not None:
            vitals.append(f"{label} {int(value)}")
    temperature = _number(row.get("BT", ""))
    if temperature is not None:
        vitals.append(f"temp {temperature:.1f}")
    if vitals:
        parts.append(", ".join(vitals))
    return ". ".join(parts) + "."


def load_ktas(path: Path) -> list[KtasCase]:
    """Read a KTAS CSV (mixed Latin-1/UTF-8: undecodable bytes are replaced)."""
    with path.open(encoding="utf-8", errors="replace", newline="") as handle:
        sample = handle.readline()
        handle.seek(0)
        delimiter = ";" if sample.count(";") > sample.count(",") else ","
        rows = list(csv.DictReader(handle, delimiter=delimiter))
    cases = []
    for row in rows:
        label = _number(row.get("KTAS_expert", ""))
        if label is None or int(label) not in (1, 2, 3, 4, 5):
            continue
        nurse = _number(row.get("KTAS_RN", ""))
        nurse_level = int(nurse) if nurse is not None and int(nurse) in (1, 2, 3, 4, 5) else None
        cases.append(KtasCase(text=build_message(row), esi_level=int(label), nurse_level=nurse_level))
    return cases
