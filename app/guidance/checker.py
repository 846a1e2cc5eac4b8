"""The guidance checker: an LLM's guidance read against the call's protocol card (sections, contradictions, drug
doses, the caller's language), passed or refused with its reasons."""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from lingua import IsoCode639_1, Language, LanguageDetector, LanguageDetectorBuilder

from app.guidance.cards import Card
from app.guidance.prompt import LANGUAGE_NAMES, SECTIONS

FailureKind = Literal["missing-section", "section-order", "contradiction", "dose", "language"]
FAILURE_WORDS: dict[FailureKind, str] = {
    "missing-section": "missing section",
    "section-order": "sections out of order",
    "contradiction": "contradicts the card",
    "dose": "gives a drug dose",
    "language": "wrong language",
}
_NEGATORS = frozenset(
    {
        "no",
        "not",
        "never",
        "don't",
        "dont",
        "doesn't",
        "avoid",
        "without",
        "nor",
        "nunca",
        "jamas",
        "sin",
        "evite",
        "ni",
    }
)
_NEGATION_WINDOW_WORDS = 6
_TERMINATORS = frozenset({"but", "then", "instead", "however", "pero", "luego", "entonces", "sino", "despues"})
_CONDITIONS = frozenset({"if", "when", "unless", "si", "cuando"})
_NUMBER = (
    r"(?:\d+(?:[.,]\d+)?|\d+/\d+|one|two|three|four|five|six|seven|eight|nine|ten|half|un|una|uno|dos|tres|cuatro"
    r"|cinco|seis|siete|ocho|nueve|diez|media|medio)"
)
_DOSE_UNIT = (
    r"(?:mg|milligrams?|mcg|[µμu]g|micrograms?|ml|millilit(?:er|re)s?|cc|units?|iu|tablets?|pills?|capsules?|caplets?"
    r"|drops?|miligramos?|microgramos?|mililitros?|unidad(?:es)?|tabletas?|pastillas?|comprimidos?|capsulas?|gotas?)"
)
_DOSE = re.compile(rf"(?<!\w){_NUMBER}(?:\s*-\s*|\s*)(?:(?:a|an|de)\s+)?{_DOSE_UNIT}(?!\w)")


@dataclass(frozen=True, slots=True)
class Failure:
    """One reason the guidance is refused."""

    kind: FailureKind
    detail: str


@dataclass(frozen=True, slots=True)
class GuidanceCheck:
    """The checker's verdict: passed when no failure was found."""

    failures: tuple[Failure, ...]

    @property
    def passed(self) -> bool:
        return not self.failures

    def kinds(self) -> list[FailureKind]:
        return [failure.kind for failure in self.failures]

    @classmethod
    def from_stored(cls, failures: list[dict[str, str]]) -> GuidanceCheck:
        """The verdict as `Guidance.check_failures` stores it ({"kind", "detail"} each)."""
        return cls(tuple(Failure(item["kind"], item["detail"]) for item in failures))  # type: ignore[arg-type]

    def summary(self) -> str:
        """The verdict as the console shows it: "checker: contradicts the card: says 'stop pushing', ..."."""
        if self.passed:
            return "checker: passed"
        return "checker: " + "; ".join(f"{FAILURE_WORDS[item.kind]}: {item.detail}" for item in self.failures)


def normalised(text: str) -> str:
    """Lower case, accents and typographic apostrophes gone, one space between words: "Sáquelo" reads "saquelo"."""
    decomposed = unicodedata.normalize("NFKD", text.replace("\u2019", "'").replace("\u2018", "'"))
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return re.sub(r"\s+", " ", plain.lower())


def _heading(name: str) -> re.Pattern[str]:
    # Models decorate headings ("**KEY FACTS:**", "## Summary:"): allowed at the start of a line.
    return re.compile(rf"^[ \t>#*_-]*{re.escape(name)}[ \t*_]*:", re.IGNORECASE | re.MULTILINE)


_HEADINGS = {name: _heading(name) for name in SECTIONS}


def _sections(answer: str) -> tuple[list[Failure], dict[str, tuple[int, int]]]:
    """Failures for missing or misordered headings, and where each found heading starts and ends."""
    spans = {name: (m.start(), m.end()) for name, pattern in _HEADINGS.items() if (m := pattern.search(answer))}
    failures = [Failure("missing-section", f"no {name}: section") for name in SECTIONS if name not in spans]
    found = [name for name in SECTIONS if name in spans]
    if found != sorted(found, key=lambda name: spans[name][0]):
        order = ", ".join(sorted(found, key=lambda name: spans[name][0]))
        failures.append(Failure("section-order", f"sections come as {order}; expected {', '.join(SECTIONS)}"))
    return failures, spans


def _instructions(answer: str, spans: dict[str, tuple[int, int]]) -> str:
    """The pre-arrival instructions (what is read to the caller): to the next heading; the whole answer without it."""
    if "PRE-ARRIVAL INSTRUCTIONS" not in spans:
        return answer
    start = spans["PRE-ARRIVAL INSTRUCTIONS"][1]
    later = [begin for begin, _ in spans.values() if begin > start]
    return answer[start : min(later, default=len(answer))]


def _negated(text: str, start: int) -> bool:
    """A negation among the few words before `start` in its sentence, NegEx-style: it reaches across a list ("do not
    put ice, butter or oil"), not past "then" or "but", nor out of an "if ... not ..." condition ("if he is not
    breathing, give breaths" is an instruction to give breaths)."""
    sentence = re.split(r"[.;:!?¡¿\n]", text[:start])[-1]
    tokens = re.findall(r"[\w']+|,", sentence)
    words, comma = 0, False
    for index in range(len(tokens) - 1, -1, -1):
        token = tokens[index]
        if token == ",":
            comma = True
            continue
        if token in _TERMINATORS or words == _NEGATION_WINDOW_WORDS:
            return False
        if token in _NEGATORS:
            return not (comma and _CONDITIONS.intersection(tokens[:index]))
        words += 1
    return False


def contradictions(instructions: str, card: Card) -> list[Failure]:
    """The card's contradiction phrases that the instructions say, not negated."""
    text = normalised(instructions)
    failures = []
    for phrase in card.contradictions:
        words = normalised(phrase).split()
        pattern = re.compile(r"(?<!\w)" + r"\s+".join(re.escape(word) for word in words) + r"(?!\w)")
        if any(not _negated(text, match.start()) for match in pattern.finditer(text)):
            failures.append(Failure("contradiction", f"says {phrase!r}, which contradicts card {card.id}"))
    return failures


def doses(instructions: str) -> list[Failure]:
    """Drug amounts in the instructions ("0.3 mg", "two tablets"): doses are for the crew, never read to a caller."""
    return [Failure("dose", f"gives a dose: {match.group(0)!r}") for match in _DOSE.finditer(normalised(instructions))]


@functools.cache
def _detector() -> LanguageDetector:
    """lingua's detector over the languages guidance is written in, its models loaded now, not on a first answer."""
    languages = [Language.from_iso_code_639_1(getattr(IsoCode639_1, code.upper())) for code in LANGUAGE_NAMES]
    return LanguageDetectorBuilder.from_languages(*languages).with_preloaded_language_models().build()


def load_language_models() -> None:
    """Load the checker's language models now (about a second), at the engine worker's start: otherwise the first
    finished answer waits for them."""
    _detector()


def written_language(text: str) -> str | None:
    """The ISO 639-1 code of the language the text is written in (headings left out), None when unclear."""
    body = text
    for pattern in _HEADINGS.values():
        body = pattern.sub(" ", body)
    detected = _detector().detect_language_of(body)
    return None if detected is None else detected.iso_code_639_1.name.lower()


def check_guidance(answer: str, card: Card | None, language: str) -> GuidanceCheck:
    """Every reason to refuse `answer` for a call in `language` (ISO 639-1) whose protocol card is `card` (None for a
    call without one): a missing section, an instruction the card contradicts, a drug dose, another language (for the
    languages in LANGUAGE_NAMES)."""
    failures, spans = _sections(answer)
    instructions = _instructions(answer, spans)
    if card is not None:
        failures.extend(contradictions(instructions, card))
    failures.extend(doses(instructions))
    written = written_language(answer) if language in LANGUAGE_NAMES else None  # another one cannot be told
    if written is not None and written != language:
        failures.append(Failure("language", f"written in {written}, the caller speaks {language}"))
    return GuidanceCheck(tuple(failures))
