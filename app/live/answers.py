"""The address and call-back number a caller gives in answer to the call-taker's question, read for the dispatcher
to confirm (English and Spanish). The answer is the caller's next final utterance after the question; a number is
read with `phonenumbers` (Google's libphonenumber), spoken digits ("five five five...") turned to digits first."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import phonenumbers

from app.live.events import Track
from triage_models.dialogue import turns
from triage_models.transcript import fold_accents

ADDRESS_QUESTION = re.compile(
    r"\b(?:what(?:'s| is) (?:the|your) (?:address|location)|where are you|where is (?:the|your) emergency|"
    r"where (?:is|are) (?:he|she|they|the patient)|address of (?:the|your) emergency|"
    r"cual es (?:la|su) (?:direccion|ubicacion)|donde (?:esta|se encuentra|estan)|"
    r"de donde (?:llama|me llama)|direccion de (?:la|su) emergencia)\b",
    re.IGNORECASE,
)
NUMBER_QUESTION = re.compile(
    r"\b(?:(?:phone|call ?back|callback|telephone) number|number you(?:'re| are) calling from|"
    r"number (?:to|where) (?:we can|i can) (?:call|reach) you|"
    r"numero (?:de telefono|de contacto|del que (?:me )?(?:llama|esta llamando)|desde el que llama)|"
    r"su numero|a que numero)\b",
    re.IGNORECASE,
)
ADDRESS_LEAD = re.compile(
    r"^(?:(?:uh|um|eh|este|pues|ok|okay|yes|yeah|s[ií])[, ]+)*"
    r"(?:(?:it's|it is|the address is|we're at|we are at|i'm at|i am at|we're on|i'm on|at|"
    r"es|la direcci[oó]n es|estoy en|estamos en|en)\s+)?",
    re.IGNORECASE,
)
NUMBER_WORDS = {
    "zero": "0", "oh": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "cero": "0", "uno": "1", "un": "1", "dos": "2", "tres": "3",
    "cuatro": "4", "cinco": "5", "seis": "6", "siete": "7", "ocho": "8", "nueve": "9",
}  # fmt: skip
DEFAULT_REGION = "US"


class Utterance(Protocol):
    """What the reader needs of a final utterance (a `CallSegment` row)."""

    @property
    def track(self) -> str: ...

    @property
    def text(self) -> str: ...


@dataclass(frozen=True, slots=True)
class SpokenTurn:
    """One turn of a posted transcript ("CT: where are you?" / "C: 12 Elm Street"), shaped as a live utterance."""

    track: str
    text: str


@dataclass(frozen=True, slots=True)
class Answer:
    """What the caller said, read, and the index of the utterance it came from."""

    value: str
    said: str
    index: int


def _answers_to(segments: Sequence[Utterance], question: re.Pattern[str]) -> list[tuple[int, str]]:
    """(index, text) of each caller utterance that follows the call-taker asking `question`."""
    found = []
    asked = False
    for index, segment in enumerate(segments):
        if segment.track == Track.CALL_TAKER.value:
            asked = bool(question.search(fold_accents(segment.text)))
        elif asked:
            found.append((index, segment.text))
            asked = False
    return found


def read_address(segments: Sequence[Utterance]) -> Answer | None:
    """The caller's answer to the latest address question, its leading "it's", "we're at", "estoy en" taken off."""
    answers = _answers_to(segments, ADDRESS_QUESTION)
    if not answers:
        return None
    index, said = answers[-1]
    value = ADDRESS_LEAD.sub("", said.strip(), count=1).strip(" .,")
    return Answer(value, said, index) if value else None


def spoken_digits(text: str) -> str:
    """Number words turned to digits ("five five five, one two" -> "555 12"), other words kept."""
    words = re.findall(r"[\w+]+|[^\w\s]", fold_accents(text).lower())
    return " ".join(NUMBER_WORDS.get(word, word) for word in words)


def read_callback_number(segments: Sequence[Utterance], region: str = DEFAULT_REGION) -> Answer | None:
    """The number the caller gave in answer to the latest number question, as E.164 ("+15551234567")."""
    for index, said in reversed(_answers_to(segments, NUMBER_QUESTION)):
        digits = re.sub(r"(?<=\d)[\s,.-]+(?=\d)", "", spoken_digits(said))
        for match in phonenumbers.PhoneNumberMatcher(digits, region, leniency=phonenumbers.Leniency.POSSIBLE):
            number = phonenumbers.format_number(match.number, phonenumbers.PhoneNumberFormat.E164)
            return Answer(number, said, index)
    return None


def posted_turns(text: str) -> list[SpokenTurn]:
    """A whole transcript's turns by track (the call-taker's and the caller's); empty when it has no speaker labels."""
    return [
        SpokenTurn(
            Track.CALL_TAKER.value if turn.speaker == "call_taker" else Track.CALLER.value,
            text[turn.start : turn.end].strip(),
        )
        for turn in turns(text)
    ]
