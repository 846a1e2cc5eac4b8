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
from triage_models.terms import CallIndex, Term, find_term

_LABEL = re.compile(
    r"(?:^|(?<=[\s.?!]))(?P<who>ct|c|call[- ]?taker|dispatcher|dispatch|operator|911|operador|operadora|despachador"
    r"|despachadora|caller|persona|llamante|ciudadano|pt|patient)\s*:\s",
    re.IGNORECASE,
)
CALL_TAKER_LABELS = frozenset(
    {"ct", "calltaker", "call-taker", "call taker", "dispatcher", "dispatch", "operator", "911", "operador"}
    | {"operadora", "despachador", "despachadora"}
)
ANSWER_REACH = 6
"""The answer is read in the first words of the caller's turn."""
YES = frozenset({"yes", "yeah", "yep", "yup", "uh-huh", "correct", "affirmative", "si", "claro", "sip", "aja"})
NO = frozenset({"no", "nope", "nah", "negative", "not", "never", "nunca", "nel"})
UNSURE = (
    ("i", "do", "not", "know"),
    ("do", "not", "know"),
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
    return "call_taker" if match["who"].lower() in CALL_TAKER_LABELS else "caller"


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
    """ "yes", "no" or "unsure", with the answer's first and last token, from the opening words of a turn."""
    opening = [token for token in words[:ANSWER_REACH] if token.is_word]
    texts = tuple(token.text for token in opening)
    for phrase in UNSURE:
        for at in range(len(texts) - len(phrase) + 1):
            if texts[at : at + len(phrase)] == phrase:
                return "unsure", opening[at].index, opening[at + len(phrase) - 1].index
    if texts and texts[0] in YES:
        return "yes", opening[0].index, opening[0].index
    if texts and texts[0] in NO:
        return "no", opening[0].index, opening[0].index
    return None


def key_question_answers(
    kb: KnowledgeBase, tokens: Sequence[Token], dialogue: Sequence[Turn], languages: tuple[str, ...]
) -> list[Answer]:
    """The findings the caller's answers to recognised key questions affirm, in call order."""
    index = CallIndex.of(tokens)
    answers: list[Answer] = []
    for position, turn in enumerate(dialogue[:-1]):
        reply = dialogue[position + 1]
        if turn.speaker != "call_taker" or reply.speaker != "caller":
            continue
        asked = _tokens_in(tokens, turn)
        if not asked or not _is_question(asked):
            continue
        kind = _answer_kind(_tokens_in(tokens, reply))
        if kind is None:
            continue
        answer, first, last = kind
        for question in kb.key_questions:
            finding = {"yes": question.spec.yes, "no": question.spec.no, "unsure": question.spec.unsure}[answer]
            if finding and _asks(index, question.asked, languages, turn):
                answers.append(Answer(question.spec.id, finding, first, last))
    return answers


def _asks(index: CallIndex, asked: Mapping[str, tuple[Term, ...]], languages: tuple[str, ...], turn: Turn) -> bool:
    for language in languages:
        for term in asked.get(language, ()):
            for match in find_term(index, term):
                if turn.start <= index.tokens[match.first].start < turn.end:
                    return True
    return False
