"""A finding's synonyms as written by a reviewer, and where they occur in a call, in any word order.

A term is a few words in dictionary form, matched by their keys (`lexicon.word_keys`: surface, lemma, stem), all
within a short stretch of one clause, in any order: "throat close" finds "my throat is closing", "it's closing up, my
throat" and "se me cierra la garganta" (with "garganta cerrar"). The small notation a reviewer reads:

| written | means |
|---|---|
| `throat close` | both words, any order, within `MAX_SPAN` tokens of one clause |
| `lip|tongue swell` | one of the alternatives |
| `anticoag*` | any word that starts so |
| `"breathing"` | this form only (no lemma): "not breathing" is no "can't breathe" |
| `NEG breathe` | a denial ("not", "no", "n't", "ni", "sin"...) at most `NEG_REACH` words before the next word |
| `NUM pill` | a number in digits or words ("30 pills", "thirty pills", "treinta pastillas") |
| `= stop breathe` | the words in this order (at most `ORDERED_GAP` words between one and the next) |
| `== black out` | in this order, side by side (only its own `NEG`, `NUM` between): never "black angus out" |
| `!wake gasp` | not right after "wake" ("woke up gasping" is no agonal breath); a `!` word last: not right before it |
| `= turn blue !black` | a `!` word may not stand between a term's words either ("turning black and blue") |

`NEG breathe` finds "not breathing", "isn't really breathing", "no está respirando".
Terms of one word match the word wherever it is. A term of several words does not reach across a sentence break, a
comma or a conjunction that opens a new clause ("my throat hurts and the door is closing" is no airway closing; "his
tongue and lips are swelling" is one stretch), nor holds a denial it does not write as `NEG` ("he was not shot" is no
"= was shot").
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from triage_models.lexicon import CONJUNCTIONS, Token, contraction_parts, word_keys
from triage_models.transcript import fold_accents

MAX_SPAN = 6
"""The first and last word of an unordered term are at most this many tokens apart."""
NEG_REACH = 3
"""A `NEG` word stands at most this many tokens before the word it denies ("is not really breathing")."""
ORDERED_GAP = 2
"""In an ordered term (`=`), at most this many tokens between a word and the one before it."""
GUARD_REACH = 4
"""A `!` guard looks this many tokens before (or after) the match."""

NUMBER_WORDS = frozenset(
    """one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty forty fifty sixty seventy
    eighty ninety hundred dozen dozens bunch handful uno una dos tres cuatro cinco seis siete ocho nueve diez once doce
    quince veinte treinta cuarenta cincuenta sesenta setenta ochenta noventa cien ciento docena""".split()  # noqa: SIM905
)


class TermError(ValueError):
    """A term a reviewer wrote that cannot be read, with the reason."""


@dataclass(frozen=True, slots=True)
class Slot:
    """One written word of a term (or `NEG`, `NUM`): the keys any of its alternatives match."""

    written: str
    keys: frozenset[str] = frozenset()
    prefixes: tuple[str, ...] = ()
    forms: frozenset[str] = frozenset()
    """Exact forms (`"breathing"`): matched by the call's word itself, never its lemma or stem."""
    kind: str = "word"
    """"word", "neg" (a denial) or "num" (a number)."""

    def matches(self, token: Token) -> bool:
        if self.kind == "neg":
            return token.is_negation
        if self.kind == "num":
            return token.text.isdigit() or token.text in NUMBER_WORDS
        return (
            not self.keys.isdisjoint(token.keys)
            or token.text in self.forms
            or any(token.text.startswith(p) for p in self.prefixes)
        )


@dataclass(frozen=True, slots=True)
class Term:
    """A synonym of a finding, compiled for one language."""

    written: str
    language: str
    slots: tuple[Slot, ...]
    ordered: bool = False
    adjacent: bool = False
    """`==`: ordered with nothing between its words but its own `NEG` and `NUM`."""
    not_after: Slot | None = None
    """`!word` first: the match must not come right after one of these words."""
    not_before: Slot | None = None
    """`!word` last: the match must not come right before one of these words."""

    @property
    def words(self) -> tuple[Slot, ...]:
        """The slots that are words (what the index looks a term up by)."""
        return tuple(slot for slot in self.slots if slot.kind == "word")


@dataclass(frozen=True, slots=True)
class TermMatch:
    """Where a term matched: its first and last token (inclusive) and the tokens of its own denial words."""

    term: Term
    first: int
    last: int
    own_negations: frozenset[int] = frozenset()


def _slot(written: str, language: str) -> Slot:
    if written == "NEG":
        return Slot(written, kind="neg")
    if written == "NUM":
        return Slot(written, kind="num")
    keys: set[str] = set()
    forms: set[str] = set()
    prefixes: list[str] = []
    for alternative in written.split("|"):
        word = alternative.strip().lower()
        exact = len(word) > 2 and word.startswith('"') and word.endswith('"')
        word = word[1:-1] if exact else word
        if not word or not re.fullmatch(r"[^\W_]+(?:'[^\W\d_]+)?\*?", word):
            raise TermError(f"{written!r}: {alternative!r} is not a word")
        if word.endswith("*"):
            prefixes.append(fold_accents(word[:-1]))
        elif exact:
            forms.add(fold_accents(word))
        else:
            keys |= _headword_keys(word, language)
    return Slot(written, frozenset(keys), tuple(prefixes), frozenset(forms))


def _as_read(part: str, written: str) -> list[str]:
    """A written word as a call's tokens read it: a contraction split, its "n't" a denial ("didn't" -> "did", `NEG`),
    so that "= eyes didn't open" finds "his eyes didn't open" and never "his eyes did open"."""
    if part.startswith('"') or part in ("NEG", "NUM"):
        return [part]
    if "|" in part:
        if any(contraction_parts(word)[-1:] == ["not"] for word in part.lower().split("|") if word != "not"):
            raise TermError(f"{written!r}: a contraction's denial in {part!r} cannot be an alternative; write NEG")
        return [part]
    words = contraction_parts(part.lower())
    return ["NEG" if len(words) == 2 and word == "not" else word for word in words]


def _headword_keys(word: str, language: str) -> frozenset[str]:
    """The keys a written word matches by: its own surface and lemma, and its stem when the stem is long enough."""
    return word_keys(word, (language,))


def compile_term(written: str, language: str) -> Term:
    """A term in the notation of this module's docstring; `TermError` says what is wrong."""
    text = " ".join(re.sub(r"(?<=\w)-(?=\w)", " ", written).split())  # "light-headed": the call's tokens split it too
    adjacent = text.startswith("== ")
    ordered = adjacent or text.startswith("= ")
    parts = (text[3:] if adjacent else text[2:] if ordered else text).split(" ")
    not_after = not_before = None
    if parts and parts[0].startswith("!"):
        not_after = _slot(parts.pop(0)[1:], language)
    if parts and parts[-1].startswith("!"):
        not_before = _slot(parts.pop()[1:], language)
    if any(part.startswith("!") for part in parts):
        raise TermError(f"{written!r}: a `!` word comes first or last only")
    slots = tuple(_slot(word, language) for part in parts if part for word in _as_read(part, written))
    if not any(slot.kind == "word" for slot in slots):
        raise TermError(f"{written!r}: a term needs at least one word")
    if slots[-1].kind == "neg":
        raise TermError(f"{written!r}: NEG denies the word after it, so it cannot come last")
    return Term(text, language, slots, ordered, adjacent, not_after, not_before)


@dataclass(slots=True)
class CallIndex:
    """Where each key occurs in a call (word tokens only), and each token's clause, for matching many terms."""

    tokens: Sequence[Token]
    by_key: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    breaks: list[bool] = field(default_factory=list)
    """breaks[i]: token i ends a stretch a term may not reach across (a sentence break, a comma, a conjunction that
    opens a clause), unless the term writes that word itself ("= respira pero con ruido")."""
    sentence: list[int] = field(default_factory=list)

    @classmethod
    def of(cls, tokens: Sequence[Token]) -> CallIndex:
        index = cls(tokens)
        sentence = 0
        for token in tokens:
            if token.ends_sentence:
                sentence += 1
            index.breaks.append(token.ends_sentence or token.text == "," or _opens_a_clause(token, tokens))
            index.sentence.append(sentence)
            if token.is_word:
                for key in token.keys:
                    index.by_key[key].append(token.index)
        return index

    def candidates(self, slot: Slot) -> list[int]:
        """The word tokens a slot matches, in order."""
        if slot.kind != "word":
            return [token.index for token in self.tokens if slot.matches(token)]
        found: set[int] = set()
        for key in slot.keys | slot.forms:
            found.update(p for p in self.by_key.get(key, ()) if key in slot.keys or self.tokens[p].text == key)
        if slot.prefixes:
            found.update(token.index for token in self.tokens if token.is_word and slot.matches(token))
        return sorted(found)


CLAUSE_STARTERS = frozenset(
    """i you he she it we they the my his her our their this that there someone somebody ella ellos ellas se le yo
    usted mi su sus este esta ese esa alguien""".split()  # noqa: SIM905
)
"""After "and" / "y", these words open a new clause ("my throat hurts and the door is closing"); any other word,
Spanish articles included, continues a list ("his tongue and lips are swelling", "el brazo y la pierna")."""
ALWAYS_SEPARATE = frozenset({"but", "then", "so", "pero", "luego", "entonces"})


def _opens_a_clause(token: Token, tokens: Sequence[Token]) -> bool:
    """Whether a conjunction here ends the stretch a term may reach across."""
    if token.text in ALWAYS_SEPARATE:
        return True
    if token.text not in CONJUNCTIONS:
        return False
    following = tokens[token.index + 1] if token.index + 1 < len(tokens) else None
    return following is None or not following.is_word or following.text in CLAUSE_STARTERS


def _guard_clear(index: CallIndex, match: tuple[int, int], term: Term) -> bool:
    first, last = match
    tokens = index.tokens
    if _guard_between(tokens[first + 1 : last], term):
        return False
    if term.not_after is not None:
        before = tokens[max(0, first - GUARD_REACH) : first]
        if any(term.not_after.matches(token) for token in before):
            return False
    if term.not_before is not None:
        after = tokens[last + 1 : last + 1 + GUARD_REACH]
        if any(term.not_before.matches(token) for token in after):
            return False
    return True


def _guard_between(between: Sequence[Token], term: Term) -> bool:
    """Whether a guard word stands in a term's gaps ("turning black and blue" is no "= turn blue !black")."""
    guards = [guard for guard in (term.not_after, term.not_before) if guard is not None]
    return any(guard.matches(token) for guard in guards for token in between)


BRIDGE_WORDS = frozenset(
    """is was are were be been being am have has had do does did will would can could should really even still just
    actually quite at all any yet ever seem seems seemed to it me him her them get got esta estaba estan estoy estamos
    ha han habia hay hubo le les se me lo la te nos ya nada puede puedo pueden podia podemos quiere quiero tiene tengo
    tenia tienen sabe va voy iba logra logro siquiera a an the el la un una""".split()  # noqa: SIM905
)
"""Words that may stand between a `NEG` and the word it denies: auxiliaries, adverbs, clitics ("isn't really
breathing", "no se le entiende", "no está respirando", "ni siquiera respira"); any other word between them ("no
agonal breathing") means the denial is not the term's."""
LIST_CLOSERS = frozenset({"or", "nor", "ni", "o"})


def _negation_before(index: CallIndex, position: int) -> int | None:
    """The denial a `NEG` slot needs before `position`: at most `NEG_REACH` tokens before it in its clause, with only
    bridge words between, or one listed word and "or": "he's not moving or breathing", "no respira ni responde"."""
    tokens = index.tokens
    listed = position >= 2 and tokens[position - 1].text in LIST_CLOSERS and tokens[position - 2].is_word
    for offset in range(1, NEG_REACH + 1 + (2 if listed else 0)):
        at = position - offset
        if at < 0 or tokens[at].ends_sentence or tokens[at].text == ",":
            return None
        if tokens[at].is_negation:
            return at
        in_list = listed and offset <= 2
        if not in_list and tokens[at].text not in BRIDGE_WORDS:
            return None
    return None


def _unbroken(index: CallIndex, placed: Sequence[int]) -> bool:
    """No break between the first and last placed word, other than the term's own words."""
    own = set(placed)
    return not any(index.breaks[i] and i not in own for i in range(min(placed) + 1, max(placed)))


def _place_unordered(index: CallIndex, term: Term, anchor: int, options: list[list[int]]) -> list[int] | None:
    """For each word slot, its occurrence nearest the anchor in the anchor's clause; None when one is missing or the
    span is too long."""
    placed: list[int] = []
    for positions in options:
        near = [p for p in positions if abs(p - anchor) <= MAX_SPAN and _unbroken(index, (p, anchor))]
        if not near:
            return None
        placed.append(min(near, key=lambda p: (abs(p - anchor), p)))
    if max(placed) - min(placed) > MAX_SPAN or len(set(placed)) < len(placed) or not _unbroken(index, placed):
        return None
    return placed


def _gaps(term: Term) -> list[int]:
    """How many tokens may stand before each word slot after the first: `ORDERED_GAP`, or for an adjacent term the
    `NEG` and `NUM` slots written between ("== took NUM pill" finds "took 30 pills")."""
    if not term.adjacent:
        return [ORDERED_GAP] * (len(term.words) - 1)
    gaps: list[int] = []
    between = -1
    for slot in term.slots:
        if slot.kind == "word":
            if between >= 0:
                gaps.append(between)
            between = 0
        elif between >= 0:
            between += 1
    return gaps


def _place_ordered(index: CallIndex, term: Term, anchor: int, options: list[list[int]]) -> list[int] | None:
    """Each next word at most its gap (`_gaps`) after the one before, never past an "and" after a written denial
    ("= sin respirar" is not in "sin fiebre y respirando normal")."""
    placed = [anchor]
    for positions, gap in zip(options[1:], _gaps(term), strict=True):
        following = [p for p in positions if 0 < p - placed[-1] <= gap + 1 and _denial_reaches(index, placed[-1], p)]
        if not following:
            return None
        placed.append(following[0])
    return placed if _unbroken(index, placed) else None


DENIAL_ENDERS = frozenset({"and", "but", "y", "e", "pero"})
"""A denial does not reach over these to the next word: "sin fiebre y respirando" denies only the fever."""


def _denial_reaches(index: CallIndex, before: int, position: int) -> bool:
    """False when the word at `before` is a denial and "and"/"y" (`DENIAL_ENDERS`) stands between it and `position`."""
    if not index.tokens[before].is_negation:
        return True
    return not any(index.tokens[i].text in DENIAL_ENDERS for i in range(before + 1, position))


def _with_negations(index: CallIndex, term: Term, placed: list[int]) -> tuple[int, int, frozenset[int]] | None:
    """The match's span grown over its `NEG` words, or None when a `NEG` has no denial before its word."""
    word_positions = iter(placed)
    negations: set[int] = set()
    pending_neg = False
    for slot in term.slots:
        if slot.kind == "neg":
            pending_neg = True
            continue
        position = next(word_positions) if slot.kind == "word" else None
        if position is None:
            continue
        if pending_neg:
            found = _negation_before(index, position)
            if found is None:
                return None
            negations.add(found)
            pending_neg = False
    points = [*placed, *negations]
    return min(points), max(points), frozenset(negations)


def _number_near(index: CallIndex, term: Term, placed: list[int]) -> bool:
    """A term with `NUM` needs a number within its span's reach."""
    if not any(slot.kind == "num" for slot in term.slots):
        return True
    low, high = max(0, min(placed) - MAX_SPAN), min(len(index.tokens), max(placed) + MAX_SPAN + 1)
    return any(index.tokens[i].text.isdigit() or index.tokens[i].text in NUMBER_WORDS for i in range(low, high))


def find_term(index: CallIndex, term: Term) -> list[TermMatch]:
    """Every place the term matches, once per place (the leftmost occurrence of each word near an anchor)."""
    options = [index.candidates(slot) for slot in term.words]
    if any(not positions for positions in options):
        return []
    anchors = options[0] if term.ordered else min(options, key=len)
    matches: dict[tuple[int, int], TermMatch] = {}
    for anchor in anchors:
        placed = (
            _place_ordered(index, term, anchor, options)
            if term.ordered
            else _place_unordered(index, term, anchor, options)
        )
        if placed is None or not _number_near(index, term, placed):
            continue
        spanned = _with_negations(index, term, placed)
        if spanned is None or not _guard_clear(index, (spanned[0], spanned[1]), term):
            continue
        first, last, negations = spanned
        negations |= frozenset(p for p in placed if index.tokens[p].is_negation)  # a denial written as a word
        if any(index.tokens[i].is_negation for i in range(first, last + 1) if i not in negations):
            continue  # a denial among the term's words that is not its own `NEG`: "was not shot" is no "was shot"
        matches.setdefault((first, last), TermMatch(term, first, last, negations))
    return sorted(matches.values(), key=lambda m: (m.first, m.last))
