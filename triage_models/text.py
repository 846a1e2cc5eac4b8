"""Message text handling: safe decoding, size limits, normalisation, and negation scope (NegEx-style)."""

from __future__ import annotations

import re
import unicodedata

MAX_MESSAGE_CHARS = 8_000
"""Longer messages are truncated for classification (the head carries the call-taker's summary)."""


class InvalidMessageError(ValueError):
    """A message that cannot be triaged: empty after cleaning, or not text."""


def coerce_text(message: str | bytes) -> str:
    """Decode bytes (UTF-8, invalid sequences replaced) and drop control characters; refuse empty messages."""
    if isinstance(message, bytes):
        message = message.decode("utf-8", errors="replace")
    if not isinstance(message, str):
        raise InvalidMessageError(f"message must be text, got {type(message).__name__}")
    cleaned = "".join(ch if ch in "\n\t" or unicodedata.category(ch)[0] != "C" else " " for ch in message)
    cleaned = unicodedata.normalize("NFKC", cleaned).strip()
    if not cleaned:
        raise InvalidMessageError("message is empty: there is nothing to triage")
    return cleaned


def truncate(text: str, limit: int = MAX_MESSAGE_CHARS) -> tuple[str, bool]:
    """The first `limit` characters and whether anything was cut."""
    return (text, False) if len(text) <= limit else (text[:limit], True)


_NEGATION_TRIGGERS = re.compile(
    r"\b(?:no|not|denies|denied|denying|without|never|negative for|free of|absence of|no sign of|no signs of|"
    r"isn't|is not|wasn't|was not|doesn't|does not|didn't|did not|hasn't|has not|haven't|have not|"
    r"can't rule|rules out|ruled out|nor|non)\b",
    re.IGNORECASE,
)
_SCOPE_BREAKERS = re.compile(r"[.;:!?\n]|\b(?:but|however|although|though|except|yet|and now|now)\b", re.IGNORECASE)
_NEGATION_WINDOW_WORDS = 6


def is_negated(text: str, start: int) -> bool:
    """True when a negation trigger governs the phrase starting at `start`.

    Looks back up to six words within the same clause ("denies chest pain", "no bleeding", "not short of
    breath"); a clause break or a contrast word ("but", "however") ends the negation's scope, so "no fever
    but chest pain" still fires for chest pain.
    """
    window_start = max(0, start - 80)
    before = text[window_start:start]
    breaks = list(_SCOPE_BREAKERS.finditer(before))
    if breaks:
        before = before[breaks[-1].end() :]
    words = before.split()[-_NEGATION_WINDOW_WORDS:]
    return bool(_NEGATION_TRIGGERS.search(" ".join(words)))
