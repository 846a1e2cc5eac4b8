"""Whether a finding is denied, and whether it is about the patient now: ConText over a call's tokens.

NegEx (Chapman et al., J Biomed Inform 2001) asks "is it denied?"; ConText (Harkema et al., J Biomed Inform 2009)
adds "is it historical, hypothetical, someone else's?". Both are trigger phrases with a direction and a scope. The
triggers are data, per language, reviewed like the protocols (`knowledge/context/<language>.toml`, read by
`knowledge_files`); this module is the algorithm:

- A trigger's scope runs forward (after it), backward (before it) or both, over at most `scope` words, and ends at a
  sentence break, a terminating trigger ("but", "pero", "except") or, for a denial, at a conjunction or a comma:
  "not breathing, turning blue" denies the breathing, not the colour. A denial whose group says `lists = "or"`
  reaches across the commas of a list that closes with "or", "nor" or "ni" ("no fever, chills, or cough"); one
  whose group says `lists = "always"` ("denies", "negative for", "niega") reaches across every comma and "and" of its
  sentence, each item at most `scope` words. A new clause with its own subject ("he is", "she's", "está") ends a
  denial too (`terminate_negated`): "he ain't waking up, he's breathing weird" denies only the waking; news of the
  present ("recent", "reports", "denies") ends a history (`terminate_context`), not a denial.
- Pseudo-triggers ("not sure", "no idea", "no para de") hide the words they hold from every other trigger.
- A finding is modified when a scope holds its first word (forward) or its last (backward). A finding written as a
  denial ("not breathing") is never denied by its own denial word.
- `resolved` triggers ("coughed it out", "is fine now", "ya se le pasó") reach forward past sentence breaks: an
  episode over is often said a sentence later.
- An `animal` trigger ("my dog", "el caballo") that opens its clause makes what follows the animal's, across clauses
  and sentences ("my dog isn't breathing, he ate something, now he won't wake up"), until a person is named
  (`terminate_animal`: "I", "my son", "grandpa", "bit", "threw"); a finding with a person in its own words ("hit
  my head") stays that person's. Callers call pets "he" and "she", so pronouns do not end it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from triage_models.lexicon import CONJUNCTIONS, Token

Category = Literal[
    "negated",
    "historical",
    "hypothetical",
    "resolved",
    "other_person",
    "animal",
    "pseudo",
    "terminate",
    "terminate_negated",
    "terminate_context",
    "terminate_animal",
]
Direction = Literal["forward", "backward", "both"]
Lists = Literal["", "or", "always"]
CATEGORIES: tuple[Category, ...] = (
    "negated",
    "historical",
    "hypothetical",
    "resolved",
    "other_person",
    "animal",
    "pseudo",
    "terminate",
    "terminate_negated",
    "terminate_context",
    "terminate_animal",
)
TERMINATORS = ("terminate", "terminate_negated", "terminate_context", "terminate_animal")
LIST_CLOSERS = frozenset({"or", "nor", "ni", "o", "u"})
"""A list that ends "..., or Z" / "..., ni Z": a denial before it reaches each item."""
COMMA = ","
YEAR = "#year"
"""In a trigger's words, any year from 1900 to 2099."""


@dataclass(frozen=True, slots=True)
class Trigger:
    """A trigger phrase (its words as tokens read them) with what it says and how far it reaches."""

    words: tuple[str, ...]
    category: Category
    direction: Direction
    scope: int
    lists: Lists = ""
    crosses_sentences: bool = False


@dataclass(frozen=True, slots=True)
class FindingContext:
    """What the call says of one mention of a finding."""

    negated: bool = False
    historical: bool = False
    hypothetical: bool = False
    resolved: bool = False
    other_person: bool = False
    animal: bool = False
    """Said of an animal ("my dog isn't breathing"): a matter for a vet, not for an ambulance."""
    triggers: tuple[str, ...] = ()
    """The trigger phrases that modified it ("denies", "years ago"), for the evidence shown to a dispatcher."""

    @property
    def current(self) -> bool:
        """About the patient, now or just now (an episode over is still current: its rule says what it is worth)."""
        return not (self.historical or self.hypothetical or self.other_person or self.animal)

    @property
    def present(self) -> bool:
        """Affirmed and current: the finding counts."""
        return self.current and not self.negated


@dataclass(frozen=True, slots=True)
class _Scope:
    trigger: Trigger
    start: int
    end: int
    """The trigger's own tokens."""
    low: int
    high: int
    """The tokens its scope holds (inclusive); empty when high < low."""


class CallContext(Protocol):
    """One call's triggers, asked about each finding."""

    def of(self, first: int, last: int, own_negations: frozenset[int] = frozenset()) -> FindingContext:
        """The context of the finding on tokens first..last (its own denial words excluded)."""
        ...


class ContextReader(Protocol):
    """How findings are read for negation and context (swappable, so another algorithm can be measured against
    ours: `triage context-compare`)."""

    name: str

    def read(self, text: str, tokens: Sequence[Token], languages: Sequence[str]) -> CallContext:
        """The call's context, for its tokens (`text` is what they were read from)."""
        ...


@dataclass(slots=True)
class TriggerLexicon:
    """The triggers of one or more languages, indexed by their first word."""

    triggers: tuple[Trigger, ...]
    by_first: dict[str, list[Trigger]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for trigger in sorted(self.triggers, key=lambda t: -len(t.words)):
            self.by_first.setdefault(trigger.words[0], []).append(trigger)

    @staticmethod
    def _same(words: Sequence[str], pattern: tuple[str, ...]) -> bool:
        """A trigger's words, where `#year` stands for any year from 1900 to 2099 ("back in 2019")."""
        return len(words) == len(pattern) and all(
            word == wanted or (wanted == YEAR and word.isdigit() and 1900 <= int(word) <= 2099)
            for word, wanted in zip(words, pattern, strict=True)
        )

    def found(self, tokens: Sequence[Token]) -> list[tuple[Trigger, int, int]]:
        """Every trigger in the call, the longest phrase at each place (with every trigger of those same words: one
        phrase can reach both ways), never two phrases over the same words."""
        hits: list[tuple[Trigger, int, int]] = []
        taken = -1
        for token in tokens:
            if token.index <= taken:
                continue
            matched: tuple[str, ...] | None = None
            spans: dict[int, tuple[str, ...]] = {}  # the call's words here, per trigger length: sliced once
            for trigger in self.by_first.get(token.text, ()):
                if matched is not None and trigger.words != matched:
                    continue
                size = len(trigger.words)
                words = spans.get(size)
                if words is None:
                    words = spans[size] = tuple(t.text for t in tokens[token.index : token.index + size])
                if words == trigger.words or (YEAR in trigger.words and self._same(words, trigger.words)):
                    hits.append((trigger, token.index, token.index + size - 1))
                    taken, matched = token.index + size - 1, trigger.words
        return hits


def _closes_with_list(tokens: Sequence[Token], start: int) -> bool:
    """A list closer ("or", "nor", "ni") comes before the sentence ends, after `start`."""
    for token in tokens[start:]:
        if token.ends_sentence:
            return False
        if token.text in LIST_CLOSERS:
            return True
    return False


def _ends(terminator: str, category: str) -> bool:
    """Whether a terminating trigger of this kind ends a scope of this category."""
    if terminator == "terminate_negated":
        return category == "negated"
    if terminator == "terminate_context":
        return category not in ("negated", "animal")
    if terminator == "terminate_animal":
        return category == "animal"
    return True


SUBJECTS = frozenset("i he she we they you yo el ella ellos ellas nosotros usted ustedes".split())  # noqa: SIM905
"""Subject pronouns: a denial said after its finding ("... are fine") is about the words between; one with its own
subject ("I hit my head, I was fine") says the person was fine, not that the finding is denied."""


def _stops(trigger: Trigger, token: Token, terminators: dict[int, str], list_open: bool, backward: bool) -> bool:
    """Whether the scope ends at this token (before taking it); `terminators` maps a terminating trigger's first
    token to its kind. A scope that crosses sentences (an episode over, said after it) ends only at its word budget:
    "he choked on a grape but coughed it out"; one about an animal also ends where a person is named ("the dog
    knocked grandpa down, he's not breathing")."""
    if trigger.crosses_sentences:
        return token.index in terminators and terminators[token.index] == f"terminate_{trigger.category}"
    if token.index in terminators and _ends(terminators[token.index], trigger.category):
        return True
    if token.ends_sentence and not trigger.crosses_sentences:
        return True
    if trigger.category != "negated":
        return backward and token.text == COMMA  # "c/o SOB, had surgery 2 weeks ago": the history is the surgery
    if backward and token.text in SUBJECTS:
        return True
    if token.text == COMMA:
        return not list_open
    return token.text in CONJUNCTIONS and token.text not in LIST_CLOSERS and trigger.lists != "always"


SPANISH_THIRD_PERSON = frozenset({"el", "ella", "ellos", "ellas"})
SPANISH_CLITICS = frozenset("me te le lo la nos les los las se".split())  # noqa: SIM905
"""Object pronouns that stand before a Spanish verb ("él me pegó"): after a subject pronoun, a new clause."""


SPANISH_STATE_VERBS = frozenset("esta estaba anda andaba sigue seguia".split())  # noqa: SIM905
"""Verbs of a state that open a new predicate in words said without commas ("ya no camina esta confundido")."""
SPANISH_VERB_LEADERS = SPANISH_CLITICS | frozenset(
    "no ni ya que si y o donde como cuando quien todavia aun tambien nunca casi".split()  # noqa: SIM905
)
"""Words that lead such a verb within the clause it belongs to ("no se esta moviendo", "ni esta consciente")."""


def _spanish_new_predicate(tokens: Sequence[Token], position: int) -> bool:
    """Whether a state verb right after another word of the scope opens a new predicate: "no camina esta confundido"
    denies the walking, not the confusion (a text to 911 without punctuation)."""
    if tokens[position].text not in SPANISH_STATE_VERBS:
        return False
    before = tokens[position - 1]
    return before.is_word and before.text not in SPANISH_VERB_LEADERS


def _spanish_subject_clause(tokens: Sequence[Token], position: int) -> bool:
    """Whether a Spanish subject pronoun and an object pronoun open a clause here ("el me pego", "ella lo empujo")."""
    following = tokens[position + 1].text if position + 1 < len(tokens) else ""
    return tokens[position].text in SPANISH_THIRD_PERSON and following in SPANISH_CLITICS


POSSESSIVES = frozenset("my his her our their your mi mis su sus tu nuestro nuestra".split())  # noqa: SIM905
PEOPLE = frozenset(
    """husband wife son daughter baby mom mother dad father brother sister grandma grandmother grandpa grandfather
    friend boyfriend girlfriend neighbor neighbour kid kids child boy girl uncle aunt cousin roommate coworker partner
    esposo esposa marido mujer hijo hija bebe mama papa hermano hermana abuela abuelo amigo amiga novio novia vecino
    vecina nino nina tio tia primo prima companero companera""".split()  # noqa: SIM905
)
"""A person named with a possessive after a comma is a new clause's subject as a pronoun is ("do you know if the
shelters are open, my husband can't breathe": the breathing is no hypothesis)."""


def _names_a_person(tokens: Sequence[Token], position: int) -> bool:
    """A possessive and a person, not set off as an aside ("what do I do if, my son, he has another seizure")."""
    following = tokens[position + 1].text if position + 1 < len(tokens) else ""
    after = tokens[position + 2].text if position + 2 < len(tokens) else ""
    return tokens[position].text in POSSESSIVES and following in PEOPLE and after != COMMA


def _new_clause(tokens: Sequence[Token], position: int, origin: int) -> bool:
    """Whether a new clause with its own subject opens here, ending a forward scope: a subject (a pronoun, or a
    person named with a possessive) after a comma ("not a big deal, I think I broke a rib or two": not a list item),
    or a Spanish subject before its object pronoun ("no puedo hablar el me pego")."""
    after_comma = position > 0 and tokens[position - 1].text == COMMA
    if after_comma and (tokens[position].text in SUBJECTS or _names_a_person(tokens, position)):
        return True
    return position > origin and (_spanish_subject_clause(tokens, position) or _spanish_new_predicate(tokens, position))


def _reach(tokens: Sequence[Token], trigger: Trigger, origin: int, step: int, terminators: dict[int, str]) -> int:
    """The last token a scope holds, walking from `origin` by `step` (+1 forward, -1 backward)."""
    words = 0
    position = origin
    last = origin - step
    list_open = trigger.lists == "always" or (trigger.lists == "or" and _closes_with_list(tokens, origin))
    while 0 <= position < len(tokens):
        token = tokens[position]
        if _stops(trigger, token, terminators, list_open, step < 0):
            break
        if step > 0 and trigger.category != "animal" and _new_clause(tokens, position, origin):
            break  # an animal is still what a new clause speaks of ("my dog isn't breathing, he ate something")
        if trigger.lists == "or" and step > 0 and token.text in LIST_CLOSERS:
            list_open = False  # "no X, Y or Z, ...": the list ends with its last item
        if trigger.category == "animal":
            words += token.is_word  # one budget over the clauses that speak of the animal
            if words > trigger.scope:
                break
        elif token.text == COMMA or (token.text in CONJUNCTIONS and trigger.category == "negated"):
            words = 0  # a new list item: its own budget of words
        elif token.is_word:
            words += 1
            if words > trigger.scope:
                break
        last = position
        position += step
    return last


@dataclass(slots=True)
class TriggerScopes:
    """A call's trigger scopes, computed once and asked about each finding."""

    scopes: list[_Scope]
    people: frozenset[int] = frozenset()
    """Where the call names a person (`terminate_animal`): a finding with a person in its own words ("hit my head")
    is that person's, whatever animal came before it."""

    def of(self, first: int, last: int, own_negations: frozenset[int] = frozenset()) -> FindingContext:
        found: dict[str, list[str]] = {}
        for scope in self.scopes:
            if any(scope.start <= i <= scope.end for i in own_negations):
                continue  # the trigger is the finding's own denial ("not breathing")
            if scope.trigger.category == "animal" and any(first <= i <= last for i in self.people):
                continue  # "hit my head": the person's, whatever animal came before
            if scope.trigger.category == "negated" and any(scope.low <= i <= scope.high for i in own_negations):
                continue  # a list its own denial continues ("no respira ni responde"); "if he isn't breathing" stays
            if first <= scope.start and scope.end <= last:
                continue  # a trigger among the finding's own words
            if scope.low <= first <= scope.high or scope.low <= last <= scope.high:
                found.setdefault(scope.trigger.category, []).append(" ".join(scope.trigger.words))
        return FindingContext(
            negated="negated" in found,
            historical="historical" in found,
            hypothetical="hypothetical" in found,
            resolved="resolved" in found,
            other_person="other_person" in found,
            animal="animal" in found,
            triggers=tuple(phrase for phrases in found.values() for phrase in phrases),
        )


CLAUSE_OPENERS = frozenset(
    """oh uh um well yes yeah hi hello ok okay please help god gosh now so and but a y pero pues bueno ay oiga dios
    ahora si""".split()  # noqa: SIM905
)
"""Words after which a noun is still the subject of its clause ("oh my god, um, my dog ..."; "a mi perro le dio")."""


def _opens_clause(tokens: Sequence[Token], start: int) -> bool:
    """Whether the words at `start` open a clause: the call's first words, or after a sentence break, a comma, a
    speaker's label ("C:") or an interjection or conjunction."""
    if start == 0:
        return True
    before = tokens[start - 1]
    return before.ends_sentence or before.text in (COMMA, ":", ";", "\n") or before.text in CLAUSE_OPENERS


def trigger_scopes(tokens: Sequence[Token], lexicon: TriggerLexicon) -> TriggerScopes:
    """Every trigger's scope in the call (pseudo-triggers hide their words; terminators end scopes)."""
    hits = lexicon.found(tokens)
    terminators = {start: str(trigger.category) for trigger, start, _ in hits if trigger.category in TERMINATORS}
    scopes: list[_Scope] = []
    for trigger, start, end in hits:
        if trigger.category == "pseudo" or trigger.category in TERMINATORS:
            continue
        if trigger.category == "animal" and not _opens_clause(tokens, start):
            continue  # "walking the dog he collapsed": the dog is not who the clause is about
        if trigger.direction in ("forward", "both"):
            scopes.append(_Scope(trigger, start, end, end + 1, _reach(tokens, trigger, end + 1, 1, terminators)))
        if trigger.direction in ("backward", "both"):
            low = _reach(tokens, trigger, start - 1, -1, terminators)
            scopes.append(_Scope(trigger, start, end, low, start - 1))
    people = frozenset(start for start, kind in terminators.items() if kind == "terminate_animal")
    return TriggerScopes(scopes, people)


@dataclass(slots=True)
class ConTextReader:
    """ConText with the project's trigger lists (`knowledge/context/*.toml`), one lexicon per language set."""

    lexicons: dict[tuple[str, ...], TriggerLexicon]
    name: str = "context"

    def read(self, text: str, tokens: Sequence[Token], languages: Sequence[str]) -> CallContext:
        return trigger_scopes(tokens, self.lexicons[tuple(languages)])
