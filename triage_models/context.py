"""Whether a red flag is about now: ConText-style modifiers for history, hypotheses and episodes already over.

NegEx (`text.is_negated`) asks whether a finding is denied. ConText (Harkema et al., J Biomed Inform 2009) adds
three more questions, each answered here by trigger phrases with a direction and a bounded scope of words (never
punctuation alone: transcripts have none):
- **historical**: "history of", "had a stroke in 2019", "years ago", "died of a heart attack", "runs in the family";
- **hypothetical**: questions and plans rather than events ("what do I do if someone is choking", "a CPR class",
  "reschedule my cardiology appointment", "a refill");
- **resolved**: an episode that is over, said after it ("he choked on a grape but coughed it out and is talking
  normally", "the bleeding stopped"). Only rules that allow it are lowered by this (`rules.PhraseRule.if_resolved`).
A finding in a historical or hypothetical context sets no floor: the call is about something else.
"""

from __future__ import annotations

import enum
import re
from typing import Protocol

from triage_models.text import is_negated, is_negated_after

SCOPE_WORDS = 8
"""How many words a trigger reaches, within its clause."""


class Context(enum.Enum):
    """What a red flag's words say about time and reality, when not the present."""

    HISTORICAL = "historical"
    HYPOTHETICAL = "hypothetical"
    RESOLVED = "resolved"


_HISTORY_BEFORE = re.compile(
    r"\b(?:history of|hx of|h/o|past medical history|pmh|family history of|previous|previously|prior|years? ago"
    r" (?:he|she|i|my \w+) had|(?:he|she|i|they|my \w+) (?:had|has had|used to have) (?:a |an )?(?:\w+ )?(?:\w+ )?"
    r"(?:years?|months?|decades?) ago|antecedentes? de|historia de)\b",
    re.IGNORECASE,
)
_HISTORY_AFTER = re.compile(
    r"^(?:[\w']+ ){0,5}?(?:(?:\d+|a few|few|several|many|some|two|three|ten|a couple of?) (?:years?|months?|decades?)"
    r" ago|last (?:year|month|summer|winter|spring|fall)|in (?:19|20)\d\d|back in|when (?:he|she|i|they) (?:was|were)"
    r" (?:young|little|a kid|a child|a baby)|runs in (?:the|our|my) family|hace (?:\d+|unos|muchos|varios|dos|tres)"
    r" (?:anos|meses)|el ano pasado)\b",
    re.IGNORECASE,
)
_OTHER_PERSON_HISTORY = re.compile(
    r"\b(?:died|passed away|passed) (?:of|from)\b|\b(?:murio|fallecio) de\b", re.IGNORECASE
)
_HYPOTHETICAL_BEFORE = re.compile(
    r"\b(?:what (?:should|do|would|can|could) (?:i|we|you|a person|someone) do (?:if|when)|what (?:if|happens if)"
    r"|in case (?:of|someone|somebody|he|she|they|my)|if (?:someone|somebody|a person|anyone|a child|a kid|a baby)"
    r"|how (?:do|can|would) (?:i|you|we) (?:tell|know|help|treat|recognize)|(?:sign|signing|signed) up for"
    r"|(?:a|the) (?:cpr|first aid|first-aid|safety|bls|cna|lifeguard) (?:class|course|training|certification)"
    r"|(?:class|course|training|lesson|video|pamphlet|certification) (?:on|about|for|in)"
    r"|(?:reschedule|cancel|move|book|make|confirm)(?: \w+){0,3} appointment|appointment (?:with|for|at)"
    r"|(?:refill|renew)(?: \w+){0,3} (?:prescription|medication|meds|pills)|question about|asking about"
    r"|que (?:hago|debo hacer|se hace) (?:si|cuando)|si (?:alguien|una persona)|clase de|curso de|una cita)\b",
    re.IGNORECASE,
)
_RESOLVED_AFTER = re.compile(
    r"^(?:\S+ ){0,12}?(?:(?:coughed|spit|spat|threw) (?:it|that|the \w+) (?:up|out)|(?:it|that|the \w+|the"
    r" bleeding|he|she|they) (?:has |have |had )?(?:stopped|went away|gone away|passed|resolved|cleared up)"
    r"|(?:is|he's|she's|they're|seems|looks|feels|i'm|im|hes|shes|now) (?:\w+ )?(?:fine|ok|okay|alright|all right"
    r"|good|normal)"
    r" (?:now|again)|(?:breathing|talking|acting|crying|eating) (?:fine|normally|normal|okay|ok) (?:now|again)?"
    r"|back to normal|came to|came around|woke (?:right )?(?:back )?up|ya (?:se le )?(?:paso|quito|esta bien"
    r"|respira bien)"
    r"|se le paso|ya esta bien)\b",
    re.IGNORECASE,
)
_CLAUSE_BREAK = re.compile(
    r"[.;:!?\n]|\b(?:but|however|although|though|now|today|tonight|right now|this (?:morning|evening|time)|pero|ahora"
    r"|hoy)\b",
    re.IGNORECASE,
)


def _clause_before(text: str, start: int) -> str:
    """The words before `start` in its clause, at most `SCOPE_WORDS` of them."""
    before = text[max(0, start - 120) : start]
    breaks = list(_CLAUSE_BREAK.finditer(before))
    if breaks:
        before = before[breaks[-1].end() :]
    return " ".join(before.split()[-SCOPE_WORDS:])


def _clause_after(text: str, end: int, words: int = SCOPE_WORDS) -> str:
    """The words after `end` in its clause, at most `words` of them."""
    after = text[end : end + 160]
    found = _CLAUSE_BREAK.search(after)
    if found:
        after = after[: found.start()]
    return " ".join(after.split()[:words])


def context_of(text: str, start: int, end: int) -> Context | None:
    """The context of the finding text[start:end], or None when it is about the present."""
    before = _clause_before(text, start)
    if _HYPOTHETICAL_BEFORE.search(before):
        return Context.HYPOTHETICAL
    after = _clause_after(text, end)
    if _HISTORY_BEFORE.search(before) or _HISTORY_AFTER.search(after) or _OTHER_PERSON_HISTORY.search(before):
        return Context.HISTORICAL
    # An episode over: said later in the call, past a "but" or a full stop (not within the clause's first words).
    if _RESOLVED_AFTER.search(" ".join(text[end : end + 200].split()[:16])):
        return Context.RESOLVED
    return None


class ContextReader(Protocol):
    """How the rules ask whether a finding is denied and whether it is about now (an algorithm, swappable so that
    another implementation can be measured against this one: `triage context-compare`)."""

    name: str

    def negated(self, text: str, masked: str, start: int, end: int, window_words: int) -> bool:
        """Whether the finding text[start:end] is denied (`masked` has red flags worded as negations blanked)."""
        ...

    def context(self, text: str, start: int, end: int) -> Context | None:
        """The finding's context, or None when it is about the present."""
        ...


class HandWrittenContext:
    """NegEx (`text.is_negated`, before and after the finding) and the ConText-style modifiers of this module."""

    name = "negex+context"

    def negated(self, text: str, masked: str, start: int, end: int, window_words: int) -> bool:
        return is_negated(masked, start, window_words) or is_negated_after(masked, end)

    def context(self, text: str, start: int, end: int) -> Context | None:
        return context_of(text, start, end)


HAND_WRITTEN = HandWrittenContext()
