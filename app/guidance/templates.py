"""Template guidance for less urgent calls (ESI 4-5) when the engine's queue would miss their deadline: written,
versioned, one per kind of complaint, in the four sections of the engine's guidance."""

from __future__ import annotations

import re
from dataclasses import dataclass

TEMPLATE_VERSION = "templates-2026.11.1"
"""Bump when any template's wording changes: every template guidance row records the version it was written from."""
TEMPLATE_ENGINE = "template"
"""The outcome's engine for template guidance (the console and the dashboard tell it apart by this)."""

_WORSE = (
    "Call back at once if the patient gets worse: trouble breathing, chest pain, fainting or confusion, bleeding "
    "that does not stop, or severe pain."
)


@dataclass(frozen=True, slots=True)
class Template:
    """One kind of complaint: the words that pick it, and its guidance."""

    kind: str
    label: str
    cues: tuple[str, ...]
    resources: str
    instructions: tuple[str, ...]


TEMPLATES: tuple[Template, ...] = (
    Template(
        "minor-injury",
        "minor injury",
        (
            r"sprain\w*",
            r"twist\w*",
            r"cut",
            r"cuts",
            r"laceration",
            r"bruis\w*",
            r"scrape\w*",
            r"fell",
            r"fall",
            r"tripped",
            r"stubbed",
            r"ankle",
            r"wrist",
            r"finger",
            r"toe",
            r"splinter",
            r"bump\w*",
        ),
        "BLS, non-emergency response (no lights and siren), unless the caller reports a change.",
        (
            "Keep the injured part still and raised if that is comfortable.",
            "For bleeding, press firmly on the wound with a clean cloth.",
            "Put something cold, wrapped in a cloth, on a swelling for up to 20 minutes.",
            "Do not give food or drink until the crew has seen the patient.",
        ),
    ),
    Template(
        "minor-illness",
        "minor illness",
        (
            r"cold",
            r"cough\w*",
            r"sore throat",
            r"flu",
            r"fever\w*",
            r"runny nose",
            r"congest\w*",
            r"earache",
            r"ear pain",
            r"vomit\w*",
            r"diarrh\w*",
            r"nause\w*",
            r"sinus\w*",
        ),
        "BLS, non-emergency response; consider referral to a nurse advice line if the centre has one.",
        (
            "Have the patient rest and sip water.",
            "Note the patient's temperature if a thermometer is at hand.",
            "Gather the patient's medicines and any allergy information for the crew.",
        ),
    ),
    Template(
        "pain",
        "localized pain",
        (r"back pain", r"toothache", r"tooth", r"headache", r"migraine", r"joint pain", r"knee", r"shoulder", r"neck"),
        "BLS, non-emergency response.",
        (
            "Let the patient rest in the position that is most comfortable.",
            "Do not give any medicine the patient does not already take.",
            "Gather the patient's medicines and any allergy information for the crew.",
        ),
    ),
    Template(
        "skin-or-urinary",
        "skin or urinary complaint",
        (
            r"rash\w*",
            r"itch\w*",
            r"insect bite",
            r"bite",
            r"sting",
            r"burning urin\w*",
            r"urinat\w*",
            r"urine",
            r"sunburn",
        ),
        "BLS, non-emergency response.",
        (
            "Keep the area clean and dry; do not scratch or burst blisters.",
            "Watch for swelling of the lips, tongue or throat, or trouble breathing: if so, call back at once.",
            "Gather the patient's medicines and any allergy information for the crew.",
        ),
    ),
    Template(
        "medication-or-admin",
        "medication or administrative request",
        (r"prescription", r"refill", r"medication", r"pills?", r"dressing change", r"catheter", r"sick note"),
        "No ambulance needed for the request itself; refer to the on-call clinician or pharmacy per local protocol.",
        (
            "Ask the caller to keep the medicine packaging and the prescription at hand.",
            "Do not take extra doses of any medicine.",
        ),
    ),
)
GENERAL = Template(
    "general",
    "general low-acuity complaint",
    (),
    "BLS, non-emergency response, per local protocol for ESI 4-5.",
    (
        "Keep the patient comfortable and resting.",
        "Gather the patient's medicines and any allergy information for the crew.",
        "Unlock the door and turn on an outside light if it is dark.",
    ),
)
_PATTERNS = tuple(
    (template, re.compile(r"\b(?:" + "|".join(template.cues) + r")\b", re.IGNORECASE)) for template in TEMPLATES
)


def complaint_template(text: str) -> Template:
    """The template whose words come first in the call's text (GENERAL when none matches)."""
    found = [(match.start(), index) for index, (_, pattern) in enumerate(_PATTERNS) if (match := pattern.search(text))]
    return _PATTERNS[min(found)[1]][0] if found else GENERAL


def template_guidance(text: str, esi_level: int, chief_complaint: str, deadline_s: float) -> tuple[str, Template]:
    """The guidance text for a shed call, and the template it came from."""
    template = complaint_template(text)
    steps = "\n".join(f"{number}. {step}" for number, step in enumerate((*template.instructions, _WORSE), start=1))
    guidance = (
        f"TEMPLATE GUIDANCE ({template.label}; {TEMPLATE_VERSION}): the guidance engine's queue would have missed "
        f"this call's {deadline_s:.0f} s deadline, so this written template stands in for it.\n"
        f"SUMMARY: ESI {esi_level} call: {chief_complaint or 'no complaint given'}.\n"
        "KEY FACTS:\n- Triage: ESI "
        f"{esi_level} (less urgent); check the call text for anything the template does not cover.\n"
        f"SUGGESTED RESOURCES: {template.resources}\n"
        f"PRE-ARRIVAL INSTRUCTIONS:\n{steps}"
    )
    return guidance, template
