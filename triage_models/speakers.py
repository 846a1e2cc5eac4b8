"""Who speaks in a transcript: the labels that open the call-taker's turns and the caller's, in both languages."""

from __future__ import annotations

import re
from collections.abc import Iterable

CALL_TAKER_LABELS = frozenset(
    {"ct", "calltaker", "call-taker", "call taker", "dispatcher", "dispatch", "operator", "911", "operador"}
    | {"operadora", "despachador", "despachadora"}
)
"""Labels of the call-taker's turns ("CT:", "Dispatcher:", "Operadora:")."""
CALLER_LABELS = frozenset({"c", "caller", "persona", "llamante", "ciudadano", "pt", "patient"})
"""Labels of the caller's turns; a patient who speaks for themself ("Pt:") is on the caller's side of the call."""
SPEAKER_LABELS = CALL_TAKER_LABELS | CALLER_LABELS


def label_pattern(labels: Iterable[str]) -> str:
    """A regular-expression alternation of `labels`, the longest first so "ct" is never read as "c"."""
    return "|".join(re.escape(label) for label in sorted(labels, key=lambda label: (-len(label), label)))


def is_call_taker(label: str) -> bool:
    """Whether a turn's label (as written, any case) is the call-taker's."""
    return label.lower() in CALL_TAKER_LABELS
