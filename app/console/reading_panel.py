"""The call's protocol on the console: its name and its key questions as a checklist in the call's language (ticked
once answered), or, for a call that names no medical problem, that it names none."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from app.incidents.read_model import ClassificationView
from triage_models.knowledge_base import load_knowledge
from triage_models.knowledge_files import KnowledgeError

NON_MEDICAL_LINE = "No medical problem named (ESI 5)"
ASKED, NOT_ASKED = "\u2713", "\u2610"
"""A ticked box for an answered question, an empty one for a question still to ask."""


def protocol_title(protocol_id: str) -> str:
    """The protocol's title as the knowledge names it (`triage protocols show ID`); its id when the knowledge
    cannot be read or no longer has it."""
    try:
        protocol = load_knowledge().protocols.get(protocol_id)
    except KnowledgeError:
        return protocol_id
    return protocol.title if protocol is not None else protocol_id


def question_text(question: Mapping[str, Any], language: str) -> str:
    """The question in the call's language: Spanish for a Spanish call, else English."""
    return str(question.get("es") if language == "es" and question.get("es") else question.get("en", ""))


def render_reading(classification: ClassificationView | None) -> str:
    """The protocol section: "Protocol: Cardiac or respiratory arrest · 2 of 4 key questions answered", then the
    questions, the answered ones ticked; the non-medical line instead for a call that names no medical problem;
    nothing for a call no protocol read (or not classified yet)."""
    if classification is None or (classification.protocol is None and not classification.non_medical):
        return ""
    questions = classification.key_questions
    answered = sum(bool(question.get("answered")) for question in questions)
    protocol = classification.protocol or ""
    if classification.non_medical:
        head = f'<h4 class="non-medical" role="note">{NON_MEDICAL_LINE}</h4>'
    else:
        count = f" · {answered} of {len(questions)} key questions answered" if questions else ""
        head = f"<h4>Protocol: {html.escape(protocol_title(protocol))}<small>{count}</small></h4>"
    items = "".join(_question(question, classification.language) for question in questions)
    return (
        f'<section class="protocol-reading" data-protocol="{html.escape(protocol)}" '
        f'lang="{html.escape(classification.language)}">{head}'
        + (f'<ul class="key-questions">{items}</ul>' if items else "")
        + "</section>"
    )


def _question(question: Mapping[str, Any], language: str) -> str:
    done = bool(question.get("answered"))
    css, mark = ("asked", ASKED) if done else ("to-ask", NOT_ASKED)
    title = "answered in the call" if done else "not answered yet: ask it"
    return (
        f'<li class="{css}" data-question="{html.escape(str(question.get("id", "")))}" title="{title}">'
        f'<span class="box">{mark}</span> {html.escape(question_text(question, language))}</li>'
    )


CSS = """
.protocol-reading { border: 2px solid #0d47a1; border-radius: 8px; padding: 4px 12px; margin: 8px 0;
  background: #f5f9ff; }
.protocol-reading h4 { margin: 4px 0; font-size: 17px; color: #0d47a1; }
.protocol-reading h4 small { font-weight: 400; color: #37474f; font-size: 14px; }
ul.key-questions { list-style: none; padding-left: 4px; margin: 4px 0; columns: 2; column-gap: 24px; }
ul.key-questions li { font-size: 16px; margin: 2px 0; break-inside: avoid; }
ul.key-questions li .box { display: inline-block; width: 1.2em; font-weight: 700; }
ul.key-questions li.asked { color: #555; }
ul.key-questions li.asked .box { color: #1b5e20; }
ul.key-questions li.to-ask { font-weight: 700; color: #0d47a1; }
.protocol-reading h4.non-medical { color: #fff; background: #1565c0; padding: 2px 8px; border-radius: 6px; }
"""
