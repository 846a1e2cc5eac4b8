"""A transcript with both sides of the call: the call-taker's key questions give the caller's answers their meaning.

A live transcript arrives one utterance per line, the call-taker's prefixed `CT:` and the caller's `C:` (typed
transcripts also write "Call-taker:", "Dispatcher:", "Operador:", "Caller:", "Persona:"). The call-taker's words are
not findings ("is he having chest pain?" says nothing of the patient); a key question of a protocol
(`KeyQuestionSpec`) recognised in them makes the caller's next answer one: "CT: is he breathing normally? C: no" is
abnormal breathing, "C: I don't know" breathing not known to be normal.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from triage_models.knowledge_base import KnowledgeBase
from triage_models.lexicon import Token
from triage_models.speakers import SPEAKER_LABELS, is_call_taker, label_pattern
from triage_models.terms import CallIndex, Term, find_term

_LABEL = re.compile(
    r"(?:^|(?<=[\s.?!]))(?P<who>" + label_pattern(SPEAKER_LABELS) + r")\s*:\s",
    re.IGNORECASE,
)
ANSWER_REACH = 6
"""The answer is read in the first words of the caller's turn."""
YES = frozenset(
    {"yes", "yeah", "yep", "yup", "huh", "mhm", "correct", "affirmative", "some", "little", "kinda", "si", "claro"}
    | {"sip", "aja", "poco", "poquito", "algo", "simon", "aha"}
)
"""A yes, or a yes to a degree ("some", "a little", "un poco")."""
RELAYED = (
    ("he", "says"),
    ("she", "says"),
    ("he", "said"),
    ("she", "said"),
    ("they", "say"),
    ("he", "is", "saying"),
    ("she", "is", "saying"),
    ("dice", "que"),
    ("dice",),
    ("dijo", "que"),
    ("dijo",),
)
"""An interpreter's or a bystander's relay before the answer: "he says no", "dice que sí"."""
NO = frozenset({"no", "nope", "nah", "negative", "not", "never", "nunca", "nel"})
INTERJECTIONS = frozenset(
    {"oh", "ohh", "well", "ok", "okay", "so", "god", "gosh", "jesus", "man", "dude", "like"}
    | {"ay", "ayy", "pues", "bueno", "mire", "mira", "oiga", "este", "dios", "oye", "fijese"}
)
"""Words a caller opens an answer with that are no answer themselves: "oh no", "ay, no", "pues sí"."""
UNSURE = (
    ("not", "know"),
    ("not", "sure"),
    ("no", "idea"),
    ("can", "not", "tell"),
    ("cannot", "tell"),
    ("i", "can", "not", "tell"),
    ("no", "se"),
    ("no", "lo", "se"),
    ("no", "estoy", "seguro"),
    ("no", "estoy", "segura"),
    ("quien", "sabe"),
    ("i", "have", "no", "idea"),
    ("dunno",),
)
WH_WORDS = frozenset(
    {"where", "how", "what", "when", "which", "who", "whose", "why"}
    | {"donde", "como", "que", "cuando", "cual", "cuales", "quien", "cuanto", "cuanta", "cuantos", "cuantas", "adonde"}
)
"""A question opening so takes its finding for granted ("where was he stabbed?")."""
_QUESTION_OPENERS = frozenset(
    {"is", "are", "was", "were", "does", "do", "did", "can", "could", "has", "have", "will", "any"}
    | {"esta", "estan", "respira", "tiene", "puede", "hay", "sabe", "se", "le", "ha", "es"}
)


@dataclass(frozen=True, slots=True)
class Turn:
    """One utterance: who spoke and where its words are in the text."""

    speaker: str
    """"call_taker" or "caller"."""
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Answer:
    """A key question the caller answered, the finding the answer affirms, and the answer's tokens."""

    question: str
    finding: str
    first: int
    last: int


def turns(text: str) -> list[Turn]:
    """The utterances of a labelled transcript, in order; empty when the text has no speaker labels."""
    found = list(_LABEL.finditer(text))
    if not any(_speaker(match) == "call_taker" for match in found):
        return []
    result = []
    for position, match in enumerate(found):
        end = found[position + 1].start() if position + 1 < len(found) else len(text)
        result.append(Turn(_speaker(match), match.end(), end))
    return result


def _speaker(match: re.Match[str]) -> str:
    return "call_taker" if is_call_taker(match["who"]) else "caller"


def caller_spans(dialogue: Sequence[Turn], length: int) -> list[tuple[int, int]]:
    """Where the caller's words are (and any words before the first label)."""
    spans = [(turn.start, turn.end) for turn in dialogue if turn.speaker == "caller"]
    if dialogue and dialogue[0].start > 0:
        spans.insert(0, (0, dialogue[0].start))
    return spans


def _tokens_in(tokens: Sequence[Token], turn: Turn) -> list[Token]:
    return [token for token in tokens if turn.start <= token.start < turn.end]


def _is_question(words: Sequence[Token]) -> bool:
    texts = [token.text for token in words]
    return "?" in texts or "¿" in texts or (bool(texts) and texts[0] in _QUESTION_OPENERS)


def _answer_kind(words: Sequence[Token]) -> tuple[str, int, int] | None:
    """ "yes", "no" or "unsure", with the answer's first and last token, from the opening words of a turn (past a
    relayed "he says", "dice que", and an opening "oh", "well", "ay", "pues")."""
    opening = [token for token in words[: ANSWER_REACH + 2] if token.is_word]
    texts = tuple(token.text for token in opening)
    for prefix in RELAYED:
        if texts[: len(prefix)] == prefix:
            opening, texts = opening[len(prefix) :], texts[len(prefix) :]
            break
    while texts[:1] and texts[0] in INTERJECTIONS and len(texts) > 1:
        opening, texts = opening[1:], texts[1:]
    opening, texts = opening[:ANSWER_REACH], texts[:ANSWER_REACH]
    for phrase in UNSURE:
        for at in range(len(texts) - len(phrase) + 1):
            if texts[at : at + len(phrase)] == phrase:
                return "unsure", opening[at].index, opening[at + len(phrase) - 1].index
    if texts[:1] == ("a",) and texts[1:2] in (("little",), ("bit",)):
        return "yes", opening[0].index, opening[1].index
    if texts and texts[0] in YES:
        return "yes", opening[0].index, opening[0].index
    if texts and texts[0] in NO:
        return "no", opening[0].index, opening[0].index
    return None


@dataclass(frozen=True, slots=True)
class Reply:
    """A question of the call-taker and how the caller's next turn answers it."""

    question: Turn
    kind: str
    """"yes", "no", "unsure", or "content" (the caller answered with something else: "in the chest")."""
    first: int
    last: int
    """The answer's tokens (for "content": the reply's first word)."""
    presupposes: bool
    """A question that takes its finding for granted ("where was he shot?", "how many pills did she take?"): a
    content answer confirms it."""


def question_replies(tokens: Sequence[Token], dialogue: Sequence[Turn]) -> list[Reply]:
    """Each question of the call-taker that the caller's next turn answers, in call order."""
    replies = []
    for position, turn in enumerate(dialogue[:-1]):
        reply = dialogue[position + 1]
        if turn.speaker != "call_taker" or reply.speaker != "caller":
            continue
        asked, answered = _tokens_in(tokens, turn), _tokens_in(tokens, reply)
        if not asked or not answered or not _is_question(asked):
            continue
        kind = _answer_kind(answered)
        words = [token for token in asked if token.is_word]
        presupposes = bool(words) and words[0].text in WH_WORDS
        if kind is not None:
            replies.append(Reply(turn, kind[0], kind[1], kind[2], presupposes))
        else:
            first_word = next((token for token in answered if token.is_word), answered[0])
            replies.append(Reply(turn, "content", first_word.index, first_word.index, presupposes))
    return replies


def key_question_answers(
    kb: KnowledgeBase, tokens: Sequence[Token], replies: Sequence[Reply], languages: tuple[str, ...]
) -> list[Answer]:
    """The findings the caller's yes, no or "I don't know" to recognised key questions affirm, in call order. Where
    several key questions are recognised in one question, the most specific (the longest recognising term) counts:
    "is he breathing normally?" is not "is he breathing?"."""
    index = CallIndex.of(tokens)
    answers: list[Answer] = []
    for reply in replies:
        if reply.kind == "content":
            continue
        asked = [
            (question, _asked_size(index, question.asked, languages, reply.question)) for question in kb.key_questions
        ]
        best = max((size for _, size in asked), default=0)
        for question, size in asked:
            finding = {"yes": question.spec.yes, "no": question.spec.no, "unsure": question.spec.unsure}[reply.kind]
            if finding and size and size == best:
                answers.append(Answer(question.spec.id, finding, reply.first, reply.last))
    return answers


def _asked_size(index: CallIndex, asked: Mapping[str, tuple[Term, ...]], languages: tuple[str, ...], turn: Turn) -> int:
    """The number of words of the longest recognising term found in the call-taker's turn (0: not asked)."""
    size = 0
    for language in languages:
        for term in asked.get(language, ()):
            for match in find_term(index, term):
                if turn.start <= index.tokens[match.first].start < turn.end and not _asked_as_a_difficulty(
                    index.tokens, match.first, term
                ):
                    size = max(size, len(term.slots))
    return size


DIFFICULTY = frozenset(
    {"trouble", "problem", "problems", "difficulty", "hard", "struggling", "problema", "problemas", "dificultad"}
    | {"cuesta", "batalla", "batallando"}
)
"""Words that turn a key question round: "any trouble talking?" asks the opposite of "can he talk?"."""


def _asked_as_a_difficulty(tokens: Sequence[Token], first: int, term: Term) -> bool:
    """Whether a difficulty word the recognising term does not write stands just before it ("¿tiene problemas para
    hablar?" is no "¿puede hablar?": its "no" is the caller's speech being fine, not a patient who cannot speak)."""
    if not any(token.text in DIFFICULTY for token in tokens[max(0, first - 3) : first]):
        return False
    return all(word.strip('"') not in DIFFICULTY for slot in term.slots for word in slot.written.split("|"))
