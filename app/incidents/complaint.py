"""The chief complaint a queue line shows: the words that made the call urgent, not the message's first characters."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from triage_models.speakers import SPEAKER_LABELS, is_call_taker, label_pattern

COMPLAINT_LIMIT = 120
"""The longest complaint a queue line shows (characters, the ellipsis included)."""
SEPARATOR = " · "
_SENTENCE_END = re.compile(r"[.!?;\n]\s")


def shorten(text: str, limit: int = COMPLAINT_LIMIT) -> str:
    """`text` within `limit` characters, cut at a word boundary with an ellipsis (never mid-word: "...an hou")."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:-") + "…"


FILLER_WORDS = frozenset(
    [
        "emergency",
        "help",
        "hello",
        "hi",
        "hey",
        "please",
        "urgent",
        "quick",
        "quickly",
        "hurry",
        "now",
        "oh",
        "god",
        "my",
        "911",
        "operator",
        "yes",
        "ok",
        "okay",
        "sir",
        "maam",
        "ma'am",
        "me",
        "us",
        "i",
        "we",
        "need",
        "an",
        "a",
        "ambulance",
        "someone",
        "somebody",
        "anyone",
        "is",
        "there",
        "send",
        "ayuda",
        "emergencia",
        "por",
        "favor",
        "hola",
        "rapido",
        "rápido",
        "socorro",
        "urgente",
        "dios",
        "mio",
        "mío",
        "oiga",
        "si",
        "sí",
        "necesito",
        "una",
        "ambulancia",
        "alguien",
        "ayudeme",
        "ayúdeme",
        "manden",
    ]
)
"""Words that say nothing about the patient: a sentence of only these ("EMERGENCY!!", "Help me please!") is not
the complaint."""
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_WORDS = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
_LABEL = re.compile(r"^(?P<who>" + label_pattern(SPEAKER_LABELS) + r")\s*:\s*", re.IGNORECASE)
"""A transcript's speaker label at the start of a sentence ("C: ", "Operadora: "): no part of the complaint."""


def _unlabelled(sentence: str) -> str:
    return _LABEL.sub("", sentence, count=1)


def _call_taker_s(sentence: str) -> bool:
    label = _LABEL.match(sentence)
    return label is not None and is_call_taker(label["who"])


def says_something(sentence: str) -> bool:
    """Whether a sentence holds a word beyond greetings and shouts for help."""
    return any(word.lower() not in FILLER_WORDS for word in _WORDS.findall(sentence))


def first_sentence(text: str, limit: int = COMPLAINT_LIMIT) -> str:
    """The message's first sentence that says something (a shout of "EMERGENCY!!" is skipped for the sentence
    after it), shortened for a queue line: the complaint before triage has read it, and after when no red flag
    fired."""
    sentences: list[str] = []
    for part in (part.strip() for part in _SENTENCES.split(text.strip()) if part.strip()):
        if sentences and len(sentences[-1]) <= 3 and sentences[-1].endswith("."):  # "Dr." "St." "Mr."
            sentences[-1] = f"{sentences[-1]} {part}"
        else:
            sentences.append(part)
    # The caller's words, not the call-taker's question ("CT: what is the address of your emergency?").
    spoken = [index for index, sentence in enumerate(sentences) if not _call_taker_s(sentence)]
    at = next((index for index in spoken if says_something(_unlabelled(sentences[index]))), None)
    if at is None:
        return shorten(text.strip(), limit)
    chosen = _unlabelled(sentences[at])
    if at < len(sentences) - 1 and chosen[-1:] in ".?!":  # cut before the next sentence: its stop goes too
        chosen = chosen[:-1]
    return shorten(chosen, limit)


def _sentence_around(text: str, start: int, end: int) -> str:
    """The sentence (or clause list up to a full stop) of `text` that holds the span start..end."""
    begin = 0
    for match in _SENTENCE_END.finditer(text, 0, start):
        begin = match.end()
    after = _SENTENCE_END.search(text, end)
    return text[begin : after.start() + 1 if after else len(text)].strip().rstrip(".;")


def _span(item: Mapping[str, object]) -> tuple[int, int] | None:
    span = item.get("span")
    if isinstance(span, list | tuple) and len(span) == 2 and all(type(value) is int for value in span):
        start, end = int(span[0]), int(span[1])
        return (start, end) if 0 <= start < end else None
    return None


def complaint_from_evidence(text: str, evidence: Sequence[Mapping[str, object]], limit: int = COMPLAINT_LIMIT) -> str:
    """The complaint as triage read it: the sentence holding the most urgent red flag (a resolved episode ranks
    last), then the other red-flag phrases that sentence does not already hold; the first sentence when no rule
    fired. Evidence is as `classify_incident` stores it ({"span": [start, end], "text", "esi_level", "resolved"})."""
    flags = sorted(
        (
            (bool(item.get("resolved")), int(str(item.get("esi_level") or 5)), span[0], span)
            for item in evidence
            if (span := _span(item)) is not None and span[1] <= len(text)
        ),
    )
    if not flags:
        return first_sentence(text, limit)
    _, _, _, (start, end) = flags[0]
    lead = _unlabelled(_sentence_around(text, start, end))
    others: list[str] = []
    for _, _, _, (other_start, other_end) in flags[1:]:
        phrase = text[other_start:other_end].strip()
        if phrase and phrase.lower() not in lead.lower() and phrase not in others:
            others.append(phrase)
    if len(lead) > limit:
        lead = _window(text, start, end, limit)
    return shorten(SEPARATOR.join([lead, *others]), limit)


def _window(text: str, start: int, end: int, limit: int) -> str:
    """About `limit` characters of `text` around the span, cut at word boundaries and marked where cut."""
    room = max(0, limit - (end - start) - 2)
    begin = max(0, start - room // 3)
    if begin > 0:
        space = text.rfind(" ", 0, begin + 1)
        begin = space + 1 if space >= 0 and space >= begin - 15 else begin
    window = shorten(text[begin:], limit - (1 if begin else 0))
    return ("…" if begin else "") + window
