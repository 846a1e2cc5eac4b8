"""A call as the rules read it: speech-to-text and typing noise taken out, with a map back to the caller's words.

Transcripts arrive as people speak: no punctuation, "uh" and "um", repeated words and restarts ("he's not he's not
breathing"), contractions without apostrophes ("aint", "hes", "cant"), a dropped "g" ("bleedin", "breathin") or a
dropped Spanish "d" ("hinchao", "trabao"), Spanish without accents, and misspellings or mishearings of the very words
that matter ("breething", "over dose", "cheste"). `readable` returns the message with accents folded, fillers and
immediate repeats dropped, contractions restored and misspelled red-flag words put right (RapidFuzz's optimal-string-
alignment distance against the red-flag vocabulary; a word pyspellchecker knows in English or Spanish is never
"corrected", so "stubbed" stays stubbed and "cooking" never becomes "choking"). Every character keeps the position it
came from, so evidence still quotes the caller's own words.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

import simplemma
from rapidfuzz import process
from rapidfuzz.distance import OSA

FILLERS = frozenset({"uh", "uhh", "uhm", "um", "umm", "er", "erm", "hmm", "mm", "ehh", "ah"})
"""Words that carry nothing; dropped with the space after them."""
_LIKE_AFTER = frozenset(
    {"is", "are", "was", "he's", "she's", "they're", "it's", "i'm", "hes", "shes", "theyre", "its", "im", "and", "so"}
    | {"just", "like", "um", "uh"}
)
"""'like' after these is a filler ("he's like breathing weird"), not a comparison ("looks like a stroke")."""
CONTRACTIONS = {
    "aint": "isn't",
    "ain't": "isn't",
    "hes": "he's",
    "shes": "she's",
    "cant": "can't",
    "wont": "won't",
    "dont": "don't",
    "doesnt": "doesn't",
    "isnt": "isn't",
    "wasnt": "wasn't",
    "didnt": "didn't",
    "hasnt": "hasn't",
    "havent": "haven't",
    "couldnt": "couldn't",
    "wouldnt": "wouldn't",
    "arent": "aren't",
    "werent": "weren't",
    "theyre": "they're",
    "im": "i'm",
}
"""Contractions as transcription systems write them, restored so that the rules' wording matches."""
JOINED = {
    ("over", "dose"): "overdose",
    ("over", "dosed"): "overdosed",
    ("un", "conscious"): "unconscious",
    ("un", "responsive"): "unresponsive",
    ("seize", "her"): "seizure",
    ("cease", "her"): "seizure",
    ("seas", "her"): "seizure",
    ("chess", "pain"): "chest pain",
    ("heart", "attach"): "heart attack",
    ("not", "breeding"): "not breathing",
    ("sobre", "dosis"): "sobredosis",
    **{
        (aux, "no"): aux.replace("'", "")[:-1] + "'t know"
        for aux in ("dont", "don't", "didnt", "didn't", "doesnt", "doesn't")
    },
}
"""Two-word mishearings of one red-flag word (speech-to-text splits or swaps them)."""
RED_FLAG_WORDS = {
    "en": frozenset(
        """
        breathing breathe breath breaths unconscious unresponsive responsive responding conscious choking choked
        bleeding blood seizure seizures seizing convulsing convulsion overdose overdosed chest pulse stroke
        suicide suicidal pregnant drowning drowned hanging gasping collapsed anaphylaxis anaphylactic allergic
        swelling swollen throat tongue vomiting diabetic poisoning poisoned swallowed stabbed gunshot heart attack
        pressure weakness drooping slurred numbness confused dizzy fainted labor contractions crowning burned
        unconsciousness emergency ambulance paralyzed wheezing asthma inhaler epipen naloxone narcan fentanyl
        heroin opioid hemorrhage
        """.split()  # noqa: SIM905
    ),
    "es": frozenset(
        """
        respira respirar respirando inconsciente responde convulsion convulsionando sangrando sangre ahogando
        ahogado pecho embarazada sobredosis desmayo desmayado desmayada garganta infarto derrame vomitando
        despierta pastillas suicidarse matarse pistola cuchillo apunalaron dispararon alergica alergico sangrado
        """.split()  # noqa: SIM905
    ),
}
"""Words whose misspellings matter, by language: a mishearing of one of these is put right before the rules read
the call (a Spanish word is only ever mended into a Spanish one, an English word into an English one)."""
"""Words whose misspellings matter: a mishearing of one of these is put right before the rules read the call."""
CARE_WORDS = frozenset({"steri", "steristrip", "steristrips", "tegaderm", "coban", "telfa", "kerlix", "xeroform"})
"""Words of wound care and dressings that carers and aides say and the word lists do not hold: a dressing, never a
misspelling of a red-flag word ("steri-strips" is no "stemi", a heart attack)."""
REAL_WORD_COUNT = 20
"""A word pyspellchecker has seen this often (in English or Spanish) is a real word, never corrected."""

_TOKEN = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?|\s+|.", re.DOTALL)


@dataclass(frozen=True, slots=True)
class ReadableText:
    """The message as the rules read it, and where each of its characters came from."""

    text: str
    origin: tuple[int, ...]
    """origin[i] is the position in the original message of text[i]; one more entry for the end."""

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original message's span for text[start:end]."""
        if end <= start:
            return self.origin[start], self.origin[start]
        return self.origin[start], self.origin[end - 1] + 1


def fold_accents(text: str) -> str:
    """Each accented Latin letter replaced by its base letter, one character for one ("está" -> "esta")."""
    return text.translate(_FOLD_TABLE)


def _build_fold_table() -> dict[int, str]:
    table = {}
    for code in range(0xC0, 0x250):
        base = unicodedata.normalize("NFD", chr(code))[0]
        if base != chr(code) and len(base) == 1 and base.isascii():
            table[code] = base
    return table


_FOLD_TABLE = _build_fold_table()


@functools.cache
def _real_words() -> frozenset[str]:
    """The words pyspellchecker's English and Spanish lists have seen at least `REAL_WORD_COUNT` times, accents
    folded as the calls are (loaded once, about half a second)."""
    from spellchecker import SpellChecker

    words: set[str] = set()
    for language in ("en", "es"):
        frequency = SpellChecker(language=language).word_frequency
        words.update(fold_accents(word) for word, count in frequency.items() if count >= REAL_WORD_COUNT)
    return frozenset(words)


@functools.cache
def red_flag_words(language: str) -> frozenset[str]:
    """The words whose misspellings are mended in one language: `RED_FLAG_WORDS` and every word of the triage
    knowledge's terms in that language (five letters or more), so a synonym a reviewer adds is mended too."""
    from triage_models.knowledge_base import load_knowledge

    words = set(RED_FLAG_WORDS[language])
    for finding in load_knowledge().findings.values():
        for term in finding.terms.get(language, ()):
            for slot in term.words:
                words.update(word.strip('"') for word in slot.written.split("|") if len(word.strip('"')) >= 5)
    return frozenset(fold_accents(word) for word in words if word.isalpha())


def is_real_word(word: str) -> bool:
    """True for a word in common English or Spanish use, or of wound care (never corrected into a red-flag word)."""
    return word in CARE_WORDS or word in _real_words()


_ENDINGS = frozenset({"s", "es", "ed", "ing", "ly", "a", "o", "as", "os", "an", "en", "ar", "er", "ir", "ado", "ada"})


def _inflects(word: str, candidate: str) -> bool:
    """`word` is `candidate` with a grammatical ending ("convulsiona", "seizures"), or `candidate` is `word` with one
    ("confundi" of "confundida"): another form, not a slip."""
    if candidate.startswith(word):
        return True
    return word.startswith(candidate) and word[len(candidate) :] in _ENDINGS


SOUNDS_ALIKE = {"x": "xz", "z": "zx", "c": "ck", "k": "kc"}
"""First letters a hearer or a speller swaps for the same sound (a drug heard as "zarelto", "kardiac")."""

_ACCENTED_LAST = {"a": "á", "e": "é", "i": "í", "o": "ó", "u": "ú"}


def _known_form(word: str, languages: tuple[str, ...]) -> bool:
    """A form the dictionary knows, as written or with its last vowel accented (Spanish typed without accents:
    "confundi" is "confundí")."""
    forms = [word]
    if word[-1:] in _ACCENTED_LAST:
        forms.append(word[:-1] + _ACCENTED_LAST[word[-1]])
    return any(simplemma.is_known(form, lang=language) for form in forms for language in languages)


@functools.lru_cache(maxsize=16_384)
def correct_word(word: str, languages: tuple[str, ...] = ("en", "es")) -> str | None:
    """The red-flag word of the call's languages a misspelling stands for ("breething" -> "breathing"), or None.

    Only words of five letters or more, not red-flag words already, not real words, with the same first letter or
    one that sounds the same (mishearings keep the sound: "zarelto" is "xarelto"; `SOUNDS_ALIKE`), at most one edit
    away (two from eight letters on; a transposition is one edit), and not an inflection of the red-flag word
    ("convulsiona" stays: it starts with "convulsion").
    """
    vocabulary = frozenset().union(*(red_flag_words(language) for language in languages))
    if len(word) < 5 or word in vocabulary or not word.isalpha() or is_real_word(word):
        return None
    if _known_form(word, languages):
        return None  # a form the dictionary knows ("derrape": skidded) is no misspelling of a red-flag word
    limit = 2 if len(word) >= 8 else 1
    first = SOUNDS_ALIKE.get(word[0], word[0])
    candidates = sorted(c for c in vocabulary if c[0] in first and not _inflects(word, c))
    found = process.extract(word, candidates, scorer=OSA.distance, score_cutoff=limit, limit=2)
    if not found or (len(found) == 2 and found[0][1] == found[1][1]):
        return None  # nothing near, or two red-flag words as near: no guess ("mandarme": "mandar" or "matarme")
    return str(found[0][0])


def _words(text: str) -> list[tuple[str, int, int]]:
    return [(match.group(0), match.start(), match.end()) for match in _TOKEN.finditer(text)]


def _drop_noise(tokens: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """Fillers, filler 'like', and immediate repeats of one to three words (restarts) dropped."""
    kept: list[tuple[str, int, int]] = []
    previous, skip_space, skip = "", False, 0
    for position, token in enumerate(tokens):
        if skip:
            skip -= 1
            continue
        lowered = token[0].lower()
        if (lowered in FILLERS or lowered == "like") and _set_off(kept, tokens, position):
            # "her wrist's got a, like, step in it": the filler goes with both its commas, which would otherwise
            # cut the clause in two ("got a step in it").
            while kept and kept[-1][0].isspace():
                kept.pop()
            kept.pop()
            skip = 1
            continue
        if lowered in FILLERS or (lowered == "like" and previous in _LIKE_AFTER):
            if position + 1 < len(tokens) and tokens[position + 1][0] == ",":
                # "C: Um, he won't wake up": the filler's comma and the space after it go with it, the space before
                # stays (a speaker's label keeps its space, "C: he won't wake up").
                skip, skip_space = 1, True
            elif kept and kept[-1][0].isspace():  # the space before goes with it
                kept.pop()
            elif not kept:
                skip_space = True
            continue
        if skip_space and token[0].isspace():
            skip_space = False
            continue
        skip_space = False
        kept.append(token)
        if not token[0].isspace():
            previous = lowered
    return _drop_repeats(kept)


def _set_off(kept: list[tuple[str, int, int]], tokens: list[tuple[str, int, int]], position: int) -> bool:
    """Whether the token at `position` stands between two commas (", like,", ", um,") after some words."""
    if position + 1 >= len(tokens) or tokens[position + 1][0] != ",":
        return False
    last = len(kept) - 1
    while last >= 0 and kept[last][0].isspace():
        last -= 1
    return last >= 1 and kept[last][0] == ","


def _drop_repeats(tokens: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """'he's not he's not breathing' -> 'he's not breathing': a run of 1-3 words said twice in a row, once."""
    words = [index for index, token in enumerate(tokens) if token[0][0].isalpha()]
    drop: set[int] = set()
    position = 0
    while position < len(words):
        for size in (3, 2, 1):
            first, second = words[position : position + size], words[position + size : position + 2 * size]
            same = len(second) == size and [tokens[i][0].lower() for i in first] == [
                tokens[i][0].lower() for i in second
            ]
            if same and all(tokens[i][0].isspace() for i in range(first[-1] + 1, second[0])):
                drop.update(range(first[0], second[0]))
                break
        position += 1
    return [token for index, token in enumerate(tokens) if index not in drop]


@functools.lru_cache(maxsize=16_384)
def dropped_g(word: str) -> str | None:
    """An "-in'" said for "-ing" ("bleedin", "droopin", "breathin"): the "-ing" form when it is a real English word and
    the word itself is not one ("pin", "cabin", "begin" stay)."""
    if len(word) < 5 or not word.endswith("in") or not word.isalpha() or is_real_word(word):
        return None
    full = word + "g"
    return full if is_real_word(full) or simplemma.is_known(full, lang="en") else None


@functools.lru_cache(maxsize=16_384)
def dropped_d(word: str) -> str | None:
    """A Spanish "-ao" said for "-ado" ("trabao", "hinchao", "golpeaos"): the "-ado" form when the dictionary knows it
    and the word itself is not a word ("bacalao", "cacao" stay)."""
    stem, plural = (word[:-3], "s") if word.endswith("aos") else (word[:-2], "")
    if len(word) < 5 or not word.endswith(("ao", "aos")) or not word.isalpha():
        return None
    return _spanish_restored(word, stem + "ado" + plural)


def _spanish_restored(word: str, full: str) -> str | None:
    """`full` for a Spanish `word` said short, when the dictionary knows `full` and `word` itself is no word."""
    if is_real_word(word) or simplemma.is_known(word, lang="es"):
        return None
    return full if is_real_word(full) or simplemma.is_known(full, lang="es") else None


_ASPIRATED_S = re.compile(r"(?<=[aeiouáéíóú])h(?=[bcdfgjklmnpqrtvz])")


@functools.lru_cache(maxsize=16_384)
def aspirated_s(word: str) -> str | None:
    """A Caribbean or Andalusian Spanish "s" said as an "h" before a consonant and written so ("ehtá", "ehtamos",
    "mihmo", "dehpués"): the word with its "s" when the dictionary knows it and the word itself is not a word."""
    if len(word) < 4 or not word.isalpha() or not _ASPIRATED_S.search(word):
        return None
    return _spanish_restored(word, _ASPIRATED_S.sub("s", word))


def _rewrite(tokens: list[tuple[str, int, int]], languages: tuple[str, ...]) -> list[tuple[str, int, int]]:
    """Joined mishearings, restored contractions and corrected misspellings (replacement text, original span)."""
    out: list[tuple[str, int, int]] = []
    index = 0
    while index < len(tokens):
        word, start, end = tokens[index]
        lowered = word.lower()
        if index + 2 < len(tokens) and tokens[index + 1][0] == " ":
            pair = (lowered, tokens[index + 2][0].lower())
            if pair in JOINED:
                out.append((JOINED[pair], start, tokens[index + 2][2]))
                index += 3
                continue
        replacement = (
            CONTRACTIONS.get(lowered)
            or (dropped_g(lowered) if "en" in languages else None)
            or (dropped_d(lowered) if "es" in languages else None)
            or (aspirated_s(lowered) if "es" in languages else None)
            or (correct_word(lowered, languages) if word.isalpha() else None)
        )
        out.append((replacement or word, start, end))
        index += 1
    return out


def readable(message: str, languages: tuple[str, ...] = ("en", "es")) -> ReadableText:
    """The message as the rules read it (see the module's docstring), with the origin of every character;
    misspellings are mended into the red-flag words of `languages` only."""
    folded = fold_accents(message)
    pieces = _rewrite(_drop_noise(_words(folded)), languages)
    chars: list[str] = []
    origin: list[int] = []
    for text, start, end in pieces:
        chars.append(text)
        if len(text) == end - start:
            origin.extend(range(start, end))
        else:  # a replacement: its characters spread over the span it replaces, first to first and last to last
            last = max(len(text) - 1, 1)
            origin.extend(start + (offset * (end - 1 - start)) // last for offset in range(len(text)))
    origin.append(len(message))
    return ReadableText("".join(chars), tuple(origin))
