"""Words as the triage knowledge reads them: a call's tokens, each with the keys its word forms share.

A finding's synonyms are written once, in a dictionary form ("throat close"), and must match the caller's forms ("my
throat is closing", "it closed up", "se me cierra la garganta", "tengo la garganta cerrada"). Each word therefore
carries keys: its folded surface, its lemma from [simplemma](https://github.com/adbar/simplemma) (dictionary
lemmas for English and Spanish, irregular forms included: "took" -> "take", "cayó" -> "caer", "duele" -> "doler";
its tables ship in the wheel), and the Snowball stem of that lemma ([snowballstemmer](https://github.com/snowballstem),
the reference implementation of Porter's English and Spanish stemmers), which joins what the dictionary keeps apart
("breathing" the noun and "breathe" the verb, "cerrada" and "cerrar"). Two words match when they share a key. A stem
shorter than four letters is no key: "morado" (purple) and "morir" (to die) share the stem "mor".

Spanish typed without accents loses the dictionary's lemma ("murio" is no word to it), so a folded Spanish word that
the dictionary does not know is tried again with its last vowel accented ("murió", "cayó", "perdió").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import simplemma
import snowballstemmer

from triage_models.transcript import fold_accents

MIN_STEM_CHARS = 4
"""Shorter stems join unrelated words ("mor": morado, morir) and are not used as keys."""

NEGATION_WORDS = frozenset(
    {"no", "not", "n't", "never", "nothing", "cannot", "nor", "neither", "nobody", "none", "without"}
    | {"ni", "sin", "nunca", "jamas", "tampoco", "nada", "ningun", "ninguno", "ninguna", "nadie"}
)
"""Words that deny what follows; a term's `NEG` slot is one of them (a contraction's "n't" is split off as "not")."""

SENTENCE_BREAKS = frozenset({".", "!", "?", ";", "\n", "¿", "¡"})
"""Punctuation that ends a sentence: no term and no context reaches across it."""
CONJUNCTIONS = frozenset({"and", "but", "or", "then", "y", "e", "pero", "o", "u", "luego", "entonces", "so"})
"""Words that join clauses: a term of several words does not reach across them."""

_TOKEN = re.compile(r"[^\W_]+(?:['\u2019][^\W\d_]+)?|\n|\.{2,}|\u2026|[^\w\s]", re.UNICODE)
_PAUSES = frozenset({"\u2026"})
"""An ellipsis is a pause in speech ("can't... breathe... lips... blue"), read as a comma, not a sentence's end."""
_CONTRACTION = re.compile(r"^(?P<base>[^\W\d_]+?)(?P<rest>n't|'s|'re|'m|'ve|'ll|'d)$")
_CONTRACTION_BASES = {"wo": "will", "ca": "can", "ai": "is", "sha": "shall"}
_CONTRACTION_WORDS = {"n't": "not", "'s": "is", "'re": "are", "'m": "am", "'ve": "have", "'ll": "will", "'d": "would"}
_LANGUAGE_STEMMERS = {"en": "english", "es": "spanish"}
FUNCTION_WORDS = frozenset(
    [
        "i",
        "me",
        "my",
        "mine",
        "we",
        "us",
        "our",
        "you",
        "your",
        "he",
        "him",
        "his",
        "she",
        "her",
        "hers",
        "it",
        "its",
        "they",
        "them",
        "their",
        "a",
        "an",
        "the",
        "this",
        "that",
        "these",
        "those",
        "yo",
        "me",
        "mi",
        "mis",
        "tu",
        "tus",
        "te",
        "se",
        "le",
        "les",
        "lo",
        "la",
        "los",
        "las",
        "nos",
        "su",
        "sus",
        "el",
        "ella",
        "ellos",
        "ellas",
        "un",
        "una",
        "unos",
        "unas",
        "este",
        "esta",
        "ese",
        "esa",
        "de",
        "del",
        "al",
    ]
)
"""Pronouns, articles and possessives keep their own form only: the dictionary makes "mi" and "me" one lemma."""
_ACCENTED = {"a": "á", "e": "é", "i": "í", "o": "ó", "u": "ú"}


@dataclass(frozen=True, slots=True)
class Token:
    """One word or punctuation mark of a call as the knowledge reads it."""

    index: int
    text: str
    """The word, lower case with accents folded (a contraction's parts are tokens of their own: "is" "not")."""
    start: int
    end: int
    """Where it stands in the text it was read from (both parts of a contraction share the word's span)."""
    keys: frozenset[str]
    """Its surface, lemma and stem in each language read (see the module's docstring)."""

    @property
    def is_word(self) -> bool:
        return self.text[:1].isalnum()

    @property
    def is_negation(self) -> bool:
        return self.text in NEGATION_WORDS

    @property
    def ends_sentence(self) -> bool:
        return self.text in SENTENCE_BREAKS


@functools.cache
def _stemmer(language: str) -> Any:
    return snowballstemmer.stemmer(_LANGUAGE_STEMMERS[language])


def _dictionary_lemma(word: str, language: str) -> str:
    """simplemma's lemma of a lower-case word (the word itself when the dictionary does not know it)."""
    lemma = str(simplemma.lemmatize(word, lang=language))
    if lemma != word or language != "es" or word[-1:] not in _ACCENTED:
        return lemma
    accented = word[:-1] + _ACCENTED[word[-1]]
    retried = str(simplemma.lemmatize(accented, lang=language))
    return retried if retried != accented else lemma


@functools.lru_cache(maxsize=65_536)
def word_keys(word: str, languages: tuple[str, ...]) -> frozenset[str]:
    """The keys of one lower-case word (accents as written) in the languages read: surface, lemma and stem, folded."""
    keys = {fold_accents(word)}
    if not word[:1].isalpha() or fold_accents(word) in FUNCTION_WORDS:
        return frozenset(keys)
    for language in languages:
        lemma = _dictionary_lemma(word, language)
        keys.add(fold_accents(lemma))
        for form in {word, lemma}:
            stem = fold_accents(str(_stemmer(language).stemWord(form)))
            if len(stem) >= MIN_STEM_CHARS:
                keys.add(stem)
    return frozenset(keys)


def contraction_parts(word: str) -> list[str]:
    """A contraction split into its words ("isn't" -> "is", "not"; "he's" -> "he", "is"); any other word whole."""
    if word == "cannot":
        return ["can", "not"]
    found = _CONTRACTION.match(word.replace("\u2019", "'"))
    if found is None:
        return [word]
    base = _CONTRACTION_BASES.get(found["base"], found["base"])
    return [base, _CONTRACTION_WORDS[found["rest"]]]


def tokenize(text: str, languages: Sequence[str], original: str | None = None) -> list[Token]:
    """The tokens of `text` (lower-cased here; `original`, when given, is the same text with its accents, one
    character for one, and gives the dictionary the accented word)."""
    tokens: list[Token] = []
    spoken = tuple(languages)
    for match in _TOKEN.finditer(text):
        surface = match.group(0).lower()
        if surface in _PAUSES or surface.startswith(".."):
            surface = ","
        accented = surface
        if original is not None and len(original) == len(text):
            accented = original[match.start() : match.end()].lower()
        for part, accented_part in zip(contraction_parts(surface), contraction_parts(accented), strict=False):
            keys = word_keys(accented_part, spoken) | word_keys(part, spoken)
            tokens.append(Token(len(tokens), part, match.start(), match.end(), keys))
    return tokens
