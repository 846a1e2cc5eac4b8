"""A `ContextReader` backed by medspaCy's ConText component, with its default rules, to measure ours against.

medspaCy (https://github.com/medspacy/medspacy) implements ConText (Harkema et al., J Biomed Inform 2009) on spaCy:
modifier rules (a trigger, a category, a direction) whose scope is the sentence, cut short by a terminating rule
("but") or a later modifier of the same category. Its default English pipeline (`medspacy.load()`: medspaCy's
tokenizer, the PyRuSH sentence splitter and ConText with the rules packaged with medspaCy; not its target matcher,
since the findings are the red-flag rules' matches) reads each text once; each question the red-flag rules ask of a
finding (a character span) is answered by the library's own test (`ConTextModifier.modifies`) against every modifier
of that text. The categories map to ours:
- NEGATED_EXISTENCE: denied (medspaCy's rules also file "resolved" and "no longer present" here: it has no
  resolved category, so an episode over reads as denied, never as `Context.RESOLVED`);
- HISTORICAL: `Context.HISTORICAL`; HYPOTHETICAL: `Context.HYPOTHETICAL`;
- FAMILY (the experiencer is a relative): `Context.HISTORICAL`, not about the patient now, unless
  `family_is_other=False`. In a 911 call the patient is often the caller's relative ("my husband is not breathing"),
  which the clinical-note rules read as someone else's finding: the comparison reports both readings;
- POSSIBLE_EXISTENCE ("worried about", "might be"): about now (a possible red flag is still one in triage).
medspaCy ships no Spanish ConText rules (its resources/es/context_rules.json is empty): Spanish calls are read with
the English ones, whose "no" is Spanish too.
The rules' `window_words` (a NegEx window) has no ConText counterpart: scopes are the library's.

An optional extra (`pip install -e '.[context-compare]'`, then `make context-compare`): the product never imports it.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from triage_models.context import Context

EXTRA = "context-compare"
"""The optional extra that installs medspaCy (see pyproject.toml and `make context-compare`)."""
_DOCS_KEPT = 8
"""Texts whose parse is kept: the rules ask many questions of one message (its text and its masked text)."""


class MedspacyUnavailableError(RuntimeError):
    """medspaCy (or spaCy) is not installed in this environment."""


@dataclass(frozen=True, slots=True)
class _Parsed:
    """One text read by the pipeline: the spaCy doc and its ConText modifiers (scopes already settled)."""

    doc: Any
    modifiers: tuple[Any, ...]


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
    # The default pipeline less its target matcher: the findings are the red-flag rules' matches.
    return medspacy.load(medspacy_enable=["medspacy_tokenizer", "medspacy_pyrush", "medspacy_context"])


class MedspacyContext:
    """ConText as medspaCy implements it, with its default rules, answering the rules' questions."""

    def __init__(self, family_is_other: bool = True, nlp: Any = None) -> None:
        self.family_is_other = family_is_other
        self.name = "medspacy" if family_is_other else "medspacy-no-family"
        self._nlp = nlp if nlp is not None else load_pipeline()
        self._parsed: OrderedDict[str, _Parsed] = OrderedDict()

    def _parse(self, text: str) -> _Parsed:
        """The text's doc and modifiers, from the cache when it was read lately."""
        parsed = self._parsed.get(text)
        if parsed is not None:
            self._parsed.move_to_end(text)
            return parsed
        doc = self._nlp(text)
        parsed = _Parsed(doc, tuple(doc._.context_graph.modifiers))
        self._parsed[text] = parsed
        if len(self._parsed) > _DOCS_KEPT:
            self._parsed.popitem(last=False)
        return parsed

    def categories(self, text: str, start: int, end: int) -> set[str]:
        """The ConText categories of the modifiers whose scope holds the finding text[start:end]."""
        parsed = self._parse(text)
        target = parsed.doc.char_span(start, end, alignment_mode="expand")
        if target is None:
            return set()
        return {modifier.category.upper() for modifier in parsed.modifiers if modifier.modifies(target)}

    def negated(self, text: str, masked: str, start: int, end: int, window_words: int) -> bool:
        """Denied when a NEGATED_EXISTENCE modifier's scope holds it, read in `masked` (the hand-written reader reads
        it too: red flags worded as negations, "not breathing", are blanked so as not to deny what follows)."""
        return "NEGATED_EXISTENCE" in self.categories(masked, start, end)

    def context(self, text: str, start: int, end: int) -> Context | None:
        categories = self.categories(text, start, end)
        if "HYPOTHETICAL" in categories:
            return Context.HYPOTHETICAL
        if "HISTORICAL" in categories or (self.family_is_other and "FAMILY" in categories):
            return Context.HISTORICAL
        return None
