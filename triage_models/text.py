"""Message text handling: safe decoding, size limits, normalisation, and negation scope (NegEx-style)."""

from __future__ import annotations

import re
import unicodedata

from triage_models.rules_es import SPANISH_NEGATION_TRIGGERS, SPANISH_PSEUDO_NEGATIONS, SPANISH_SCOPE_BREAKERS

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


_NEGATION_TRIGGERS = re.compile(
    r"\b(?:no|not|denies|denied|denying|without|never|negative for|free of|absence of|no sign of|no signs of|"
    r"isn'?t|is not|wasn'?t|was not|doesn'?t|does not|didn'?t|did not|hasn'?t|has not|haven'?t|have not|"
    r"ruled out|nor)\b|" + SPANISH_NEGATION_TRIGGERS,
    re.IGNORECASE,
)
"""English and Spanish (the Spanish read with accents folded: "negó" is "nego"), as NegEx's trigger lists."""
# Phrases that contain a negation word but negate nothing clinical ("I'm not sure", "non-English speaker").
_PSEUDO_NEGATIONS = re.compile(
    r"\b(?:not sure|no idea|no one|nobody|not certain|not know|don'?t know|doesn'?t know|non[- ]english|"
    r"doesn'?t speak|does not speak|don'?t speak|not moving|without warning|never had|never happened|"
    r"not (?:been )?(?:well|feeling well|himself|herself|themselves)|no reason|no warning|no history of that)\b|"
    + SPANISH_PSEUDO_NEGATIONS,
    re.IGNORECASE,
)
# A clause break ends a negation's scope: punctuation, commas, "and", and contrast words. Breaking at commas and
# "and" errs towards firing a red flag ("no fever, chest pain"), which is the safe direction. "or" continues a
# negated list ("denies suicidal or homicidal ideation", "no fever or chills"), as in NegEx.
_SCOPE_BREAKERS = re.compile(
    r"[.,;:!?\n]|\b(?:but|however|although|though|except|yet|and|now|then|so)\b|" + SPANISH_SCOPE_BREAKERS,
    re.IGNORECASE,
)
# A finding said to be fine after it ("my breathing and throat are fine", "her color is normal"): NegEx's
# post-negation triggers, a few words on.
_NEGATED_AFTER = re.compile(
    r"^(?:\S+ ){0,4}?(?:is|are|was|were|seems?|looks?|sounds?) (?:totally |completely |all |perfectly )?"
    r"(?:fine|normal|ok|okay|good|clear|alright|all right)\b|^(?:\S+ ){0,4}?(?:esta|estan) (?:bien|normal)\b",
    re.IGNORECASE,
)
_NEGATION_WINDOW_WORDS = 6


def is_negated(text: str, start: int, window_words: int = _NEGATION_WINDOW_WORDS) -> bool:
    """True when a negation trigger governs the phrase starting at `start`.

    Looks back up to `window_words` words within the same clause ("denies chest pain", "no bleeding", "not short
    of breath", "denies SI or HI"); a clause break (punctuation, a comma, "and", a contrast such as "but") ends the
    scope, and pseudo-negations ("not sure", "non-English speaker") negate nothing.
    """
    window_start = max(0, start - 80)
    before = _PSEUDO_NEGATIONS.sub(lambda match: "x" * len(match.group(0)), text[window_start:start])
    breaks = list(_SCOPE_BREAKERS.finditer(before))
    if breaks:
        before = before[breaks[-1].end() :]
    words = before.split()[-window_words:]
    return bool(_NEGATION_TRIGGERS.search(" ".join(words)))


_AFTER_BREAK = re.compile(r"[.;:!?\n]|\b(?:but|pero)\b", re.IGNORECASE)


def is_negated_after(text: str, end: int) -> bool:
    """True when the words right after a finding say it is fine ("breathing and throat are fine")."""
    after = text[end : end + 60]
    cut = _AFTER_BREAK.search(after)
    return bool(_NEGATED_AFTER.match(" ".join((after[: cut.start()] if cut else after).split()[:7])))
