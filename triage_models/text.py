"""Message text handling: safe decoding, size limits and normalisation."""

from __future__ import annotations

import re
import unicodedata

MAX_MESSAGE_CHARS = 8_000
"""Longer messages are truncated for the classifier (the head carries the call-taker's summary)."""
MAX_RULES_CHARS = 65_536
"""The red-flag rules read this much (the intake's body limit): a threat stated late is still found."""


class InvalidMessageError(ValueError):
    """A message that cannot be triaged: empty after cleaning, or not text."""


_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u2032": "'", "\uff07": "'"})
_SPACE_RUNS = re.compile(r"[ \t]{2,}")


def _decode(message: bytes) -> str:
    """UTF-8 with replacement; UTF-16 when the bytes carry its byte-order mark."""
    if message.startswith((b"\xff\xfe", b"\xfe\xff")):
        return message.decode("utf-16", errors="replace")
    return message.decode("utf-8", errors="replace")


def coerce_text(message: str | bytes) -> str:
    """Decode bytes, normalise (NFKC, typographic apostrophes to ', space runs to one space), drop control and
    invisible format characters; refuse messages that are empty afterwards."""
    if isinstance(message, bytes):
        message = _decode(message)
    if not isinstance(message, str):
        raise InvalidMessageError(f"message must be text, got {type(message).__name__}")
    kept = []
    for ch in message:
        category = unicodedata.category(ch)
        if ch in "\n\t" or category[0] != "C":
            kept.append(ch)
        elif category != "Cf":  # soft hyphens and zero-width characters vanish; other controls become spaces
            kept.append(" ")
    cleaned = unicodedata.normalize("NFKC", "".join(kept)).translate(_APOSTROPHES)
    cleaned = _SPACE_RUNS.sub(" ", cleaned).strip()
    if not cleaned:
        raise InvalidMessageError("message is empty: there is nothing to triage")
    return cleaned


def truncate(text: str, limit: int = MAX_MESSAGE_CHARS) -> tuple[str, bool]:
    """The first `limit` characters and whether anything was cut."""
    return (text, False) if len(text) <= limit else (text[:limit], True)
