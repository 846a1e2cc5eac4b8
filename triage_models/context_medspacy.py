"""A `ContextReader` backed by medspaCy's ConText component, with its default rules, to measure ours against.

medspaCy (https://github.com/medspacy/medspacy) implements ConText (Harkema et al., J Biomed Inform 2009) on spaCy:
modifier rules (a trigger, a category, a direction) whose scope is the sentence, cut short by a terminating rule
("but") or a later modifier of the same category. Its default English pipeline (`medspacy.load()`: medspaCy's
tokenizer, the PyRuSH sentence splitter and ConText with the rules packaged with medspaCy; not its target matcher,
since the findings are the protocols' matches) reads each call once; each finding (a span of the call's tokens) is
asked about with the library's own test (`ConTextModifier.modifies`) against every modifier. The categories map to
ours:
- NEGATED_EXISTENCE: denied (medspaCy's rules also file "resolved" and "no longer present" here: it has no
  resolved category, so an episode over reads as denied);
- HISTORICAL and HYPOTHETICAL: ours;
- FAMILY (the experiencer is a relative): someone else's, not about the patient now, unless `family_is_other=False`.
  In a 911 call the patient is often the caller's relative ("my husband is not breathing"), which the
  clinical-note rules read as someone else's finding: the comparison reports both readings;
- POSSIBLE_EXISTENCE ("worried about", "might be"): about now (a possible red flag is still one in triage).
medspaCy ships no Spanish ConText rules (its resources/es/context_rules.json is empty): Spanish calls are read with
the English ones, whose "no" is Spanish too. A finding's own denial ("not breathing") is not asked of medspaCy: the
finding is the words after it.

An optional extra (`pip install -e '.[context-compare]'`, then `make context-compare`): the product never imports it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from triage_models.context import CallContext, FindingContext
from triage_models.lexicon import Token

EXTRA = "context-compare"
"""The optional extra that installs medspaCy (see pyproject.toml and `make context-compare`)."""


class MedspacyUnavailableError(RuntimeError):
    """medspaCy (or spaCy) is not installed in this environment."""


def load_pipeline() -> Any:
    """medspaCy's default English pipeline; `MedspacyUnavailableError` names the extra when it is missing."""
    try:
        import medspacy
        from loguru import logger
    except ImportError as error:
        raise MedspacyUnavailableError(
            f"medspaCy is not installed ({error}): run `pip install -e '.[{EXTRA}]'` then `make {EXTRA}` "
            "(medspaCy and PyRuSH install with --no-deps: their metadata pins spaCy < 3.8, which needs numpy 1)"
        ) from error
    logger.disable("PyRuSH")  # PyRuSH logs every token at DEBUG through loguru
    # The default pipeline less its target matcher: the findings are the protocols' matches.
    return medspacy.load(medspacy_enable=["medspacy_tokenizer", "medspacy_pyrush", "medspacy_context"])


@dataclass(slots=True)
class MedspacyCall:
    """One call as medspaCy reads it, parsed on the first question (when the denials findings own are known)."""

    nlp: Any
    text: str
    tokens: Sequence[Token]
    family_is_other: bool
    _parsed: tuple[Any, tuple[Any, ...]] | None = field(default=None)

    def _parse(self) -> tuple[Any, tuple[Any, ...]]:
        if self._parsed is None:
            doc = self.nlp(self.text)
            self._parsed = (doc, tuple(doc._.context_graph.modifiers))
        return self._parsed

    def categories(self, start: int, end: int) -> set[str]:
        """The ConText categories of the modifiers whose scope holds text[start:end]."""
        doc, modifiers = self._parse()
        target = doc.char_span(start, end, alignment_mode="expand")
        if target is None:
            return set()
        return {modifier.category.upper() for modifier in modifiers if modifier.modifies(target)}

    def of(self, first: int, last: int, own_negations: frozenset[int] = frozenset()) -> FindingContext:
        if own_negations:
            first = max(own_negations) + 1
        found = self.categories(self.tokens[first].start, self.tokens[last].end)
        return FindingContext(
            negated="NEGATED_EXISTENCE" in found,
            historical="HISTORICAL" in found,
            hypothetical="HYPOTHETICAL" in found,
            other_person=self.family_is_other and "FAMILY" in found,
            triggers=tuple(sorted(found)),
        )


class MedspacyContext:
    """ConText as medspaCy implements it, with its default rules, answering the protocols' questions."""

    def __init__(self, family_is_other: bool = True, nlp: Any = None) -> None:
        self.family_is_other = family_is_other
        self.name = "medspacy" if family_is_other else "medspacy-no-family"
        self._nlp = nlp if nlp is not None else load_pipeline()

    def read(self, text: str, tokens: Sequence[Token], languages: Sequence[str]) -> CallContext:
        return MedspacyCall(self._nlp, text, tokens, self.family_is_other)
