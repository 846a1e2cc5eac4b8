"""Template guidance for less urgent calls (ESI 4-5) when the engine's queue would miss their deadline: the
overload template cards of the protocol card library, in the four sections of the engine's guidance."""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.guidance.cards import Card, CardError, CardLibrary, default_library
from app.guidance.cards.model import TemplateFields

TEMPLATE_ENGINE = "template"
"""The outcome's engine for template guidance (the console and the dashboard tell it apart by this)."""


@dataclass(frozen=True, slots=True)
class Template:
    """One kind of complaint: the words that pick it, and its guidance (from its card)."""

    kind: str
    label: str
    cues: tuple[str, ...]
    resources: str
    instructions: tuple[str, ...]
    version: str


def _template(card: Card, fields: TemplateFields) -> Template:
    return Template(card.id, card.title, fields.cues, fields.resources, card.steps, card.version)


def load_templates(library: CardLibrary) -> tuple[tuple[Template, ...], Template, str]:
    """The library's templates with cues (highest priority first), the general one (no cues), and their one version.
    The template set is versioned as a whole: every guidance row records that version."""
    cards = sorted(
        ((card, card.template) for card in library.templates() if card.template is not None),
        key=lambda pair: (-pair[0].priority, pair[0].id),
    )
    general = [(card, fields) for card, fields in cards if not fields.cues]
    if len(general) != 1:
        names = ", ".join(card.id for card, _ in general) or "none"
        raise CardError([f"{library.directory}: template.cues: exactly one template card has no cues (found {names})"])
    versions = sorted({card.version for card, _ in cards})
    if len(versions) != 1:
        raise CardError([f"{library.directory}: version: the template cards differ ({', '.join(versions)})"])
    with_cues = tuple(_template(card, fields) for card, fields in cards if fields.cues)
    return with_cues, _template(*general[0]), versions[0]


TEMPLATES, GENERAL, TEMPLATE_VERSION = load_templates(default_library())
"""Read once, when the process first needs a template: TRIAGE_CARDS_DIR's library, or the shipped one."""
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
    steps = "\n".join(f"{number}. {step}" for number, step in enumerate(template.instructions, start=1))
    guidance = (
        f"TEMPLATE GUIDANCE ({template.label}; {template.version}): the guidance engine's queue would have missed "
        f"this call's {deadline_s:.0f} s deadline, so this written template stands in for it.\n"
        f"SUMMARY: ESI {esi_level} call: {chief_complaint or 'no complaint given'}.\n"
        "KEY FACTS:\n- Triage: ESI "
        f"{esi_level} (less urgent); check the call text for anything the template does not cover.\n"
        f"SUGGESTED RESOURCES: {template.resources}\n"
        f"PRE-ARRIVAL INSTRUCTIONS:\n{steps}"
    )
    return guidance, template
