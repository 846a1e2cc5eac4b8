"""The knowledge files compiled for reading calls: findings with their terms indexed, determinants, questions.

`load_knowledge` reads `triage_models/knowledge/` once per process (and again when its files change) and refuses
knowledge that does not hold together: an unknown finding named by a determinant, two findings with one id, a term
that cannot be read or is written twice in one finding, a protocol whose examples are missing a language. `triage
protocols validate` also runs every example (`validation.py`).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from triage_models.context import YEAR, ConTextReader, Trigger, TriggerLexicon
from triage_models.knowledge_files import (
    KNOWLEDGE_DIR,
    LANGUAGES,
    DeterminantSpec,
    FindingSpec,
    KeyQuestionSpec,
    KnowledgeError,
    KnowledgeFiles,
    ProtocolSpec,
    read_knowledge_files,
)
from triage_models.terms import CallIndex, Term, TermError, compile_term

AGE_FINDINGS = {
    "age_neonate": (None, 28 / 365),
    "age_young_infant": (None, 0.25),
    "age_infant": (None, 1.0),
    "age_child": (None, 16.0),
    "age_elderly": (65.0, None),
}
"""Findings the patient's stated age affirms (at least, below), besides the words that say them ("newborn")."""
DIALOGUE_FINDINGS = frozenset({"answered_yes", "answered_no"})


@dataclass(frozen=True, slots=True)
class Finding:
    """A finding with its terms compiled per language."""

    id: str
    label: str
    group: str
    terms: dict[str, tuple[Term, ...]]
    defined_in: str
    spec: FindingSpec


@dataclass(frozen=True, slots=True)
class Determinant:
    """A determinant and the protocol it belongs to."""

    spec: DeterminantSpec
    protocol: str


@dataclass(frozen=True, slots=True)
class KeyQuestion:
    """A key question with its recognising terms compiled."""

    spec: KeyQuestionSpec
    protocol: str
    asked: dict[str, tuple[Term, ...]]


@dataclass(slots=True)
class KnowledgeBase:
    """Everything the reader needs, compiled once."""

    version: str
    digest: str
    findings: dict[str, Finding]
    protocols: dict[str, ProtocolSpec]
    determinants: tuple[Determinant, ...]
    key_questions: tuple[KeyQuestion, ...]
    context: ConTextReader
    complaint_findings: dict[str, frozenset[str]]
    """Per protocol: the findings that make a call that chief complaint (its `complaint` list)."""
    _anchored: dict[str, dict[str, list[tuple[str, Term]]]] = field(default_factory=dict)
    _unanchored: dict[str, list[tuple[str, Term]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for language in LANGUAGES:
            anchored: dict[str, list[tuple[str, Term]]] = defaultdict(list)
            unanchored: list[tuple[str, Term]] = []
            for finding in self.findings.values():
                for term in finding.terms.get(language, ()):
                    first = term.words[0]
                    if first.prefixes:
                        unanchored.append((finding.id, term))
                    for key in first.keys | first.forms:
                        anchored[key].append((finding.id, term))
            self._anchored[language] = dict(anchored)
            self._unanchored[language] = unanchored

    def candidate_terms(self, index: CallIndex, languages: Iterable[str]) -> Iterator[tuple[str, Term]]:
        """The terms whose first word occurs in the call (each once), for the languages read."""
        for language in languages:
            seen: set[int] = set()
            anchored = self._anchored[language]
            for key in sorted(index.by_key):
                for finding_id, term in anchored.get(key, ()):
                    if id(term) not in seen:
                        seen.add(id(term))
                        yield finding_id, term
            yield from self._unanchored[language]

    @property
    def determinant_ids(self) -> tuple[str, ...]:
        return tuple(determinant.spec.id for determinant in self.determinants)


def _compile_finding(spec: FindingSpec, origin: str, problems: list[str]) -> Finding:
    terms: dict[str, tuple[Term, ...]] = {}
    for language in LANGUAGES:
        compiled = []
        seen: set[str] = set()
        for written in getattr(spec, language):
            if written in seen:
                problems.append(f"{origin}: finding {spec.id}: {language} term {written!r} is written twice")
                continue
            seen.add(written)
            try:
                compiled.append(compile_term(written, language))
            except TermError as error:
                problems.append(f"{origin}: finding {spec.id}: {error}")
        terms[language] = tuple(compiled)
    return Finding(spec.id, spec.label, spec.group, terms, origin, spec)


def _collect_findings(files: KnowledgeFiles, problems: list[str]) -> dict[str, Finding]:
    findings: dict[str, Finding] = {}
    sources = [(f"findings/{name}.toml", file.finding) for name, file in files.shared]
    sources += [(f"protocols/{protocol.id}.toml", protocol.finding) for protocol in files.protocols]
    for origin, specs in sources:
        for spec in specs:
            if spec.id in findings:
                problems.append(f"{origin}: finding {spec.id} is also defined in {findings[spec.id].defined_in}")
                continue
            findings[spec.id] = _compile_finding(spec, origin, problems)
    return findings


def _check_references(files: KnowledgeFiles, known: set[str], problems: list[str]) -> None:
    seen: dict[str, str] = {}
    for protocol in files.protocols:
        where = f"protocols/{protocol.id}.toml"
        for name in protocol.complaint:
            if name not in known:
                problems.append(f"{where}: complaint names unknown finding {name!r}")
        for determinant in protocol.determinant:
            if determinant.id in seen:
                problems.append(f"{where}: determinant {determinant.id} is also in {seen[determinant.id]}")
            seen[determinant.id] = where
            named = {n for group in determinant.required for n in group}
            for name in named | set(determinant.excluded) | set(determinant.excluded_anywhere):
                if name not in known:
                    problems.append(f"{where}: determinant {determinant.id} names unknown finding {name!r}")
        for question in protocol.key_question:
            for name in (question.yes, question.no, question.unsure):
                if name and name not in known:
                    problems.append(f"{where}: key question {question.id} names unknown finding {name!r}")


def _key_questions(files: KnowledgeFiles, problems: list[str]) -> tuple[KeyQuestion, ...]:
    compiled: list[KeyQuestion] = []
    for protocol in files.protocols:
        for spec in protocol.key_question:
            asked: dict[str, tuple[Term, ...]] = {}
            for language, written_terms in (("en", spec.asked_en), ("es", spec.asked_es)):
                terms = []
                for written in written_terms:
                    try:
                        terms.append(compile_term(written, language))
                    except TermError as error:
                        problems.append(f"protocols/{protocol.id}.toml: key question {spec.id}: {error}")
                asked[language] = tuple(terms)
            compiled.append(KeyQuestion(spec, protocol.id, asked))
    return tuple(compiled)


def _context_reader(files: KnowledgeFiles, problems: list[str]) -> ConTextReader:
    by_language: dict[str, list[Trigger]] = {language: [] for language in LANGUAGES}
    for file in files.context:
        for group in file.group:
            for phrase in (spelled for written in group.words for spelled in _alternatives(written)):
                words = tuple(_trigger_words(phrase))
                if not words:
                    problems.append(f"context/{file.language}.toml: an empty trigger in a {group.category} group")
                    continue
                by_language[file.language].append(
                    Trigger(words, group.category, group.direction, group.scope, group.lists, group.crosses_sentences)
                )
    lexicons: dict[tuple[str, ...], TriggerLexicon] = {}
    language_sets: tuple[tuple[str, ...], ...] = (("en",), ("es",), ("en", "es"))
    for languages in language_sets:
        lexicons[languages] = TriggerLexicon(tuple(t for language in languages for t in by_language[language]))
    return ConTextReader(lexicons)


def _alternatives(phrase: str) -> list[str]:
    """A trigger phrase with alternatives per word ("my|our dog|cat"): every phrase it stands for."""
    choices = [word.split("|") for word in phrase.split()]
    return [" ".join(words) for words in itertools.product(*choices)]


def _trigger_words(phrase: str) -> list[str]:
    """A trigger phrase as the tokenizer splits words (contractions apart, accents folded); `#year` kept whole."""
    from triage_models.lexicon import tokenize

    words: list[str] = []
    for part in phrase.lower().split():
        words.extend([YEAR] if part == YEAR else [token.text for token in tokenize(part, ())])
    return words


def _digest(directory: Path) -> str:
    content = hashlib.sha256()
    for path in sorted(directory.rglob("*.toml")):
        content.update(path.relative_to(directory).as_posix().encode())
        content.update(path.read_bytes())
    return content.hexdigest()[:10]


def compile_knowledge(files: KnowledgeFiles, digest: str = "") -> KnowledgeBase:
    """The knowledge base of parsed files; `KnowledgeError` lists what does not hold together."""
    problems: list[str] = []
    findings = _collect_findings(files, problems)
    known = set(findings)
    missing_age = sorted(set(AGE_FINDINGS) - known)
    if missing_age:
        problems.append(f"findings: the age findings {missing_age} must be defined (the stated age affirms them)")
    _check_references(files, known, problems)
    questions = _key_questions(files, problems)
    context = _context_reader(files, problems)
    if problems:
        raise KnowledgeError(problems)
    complaint_findings = {protocol.id: frozenset(protocol.complaint) for protocol in files.protocols}
    return KnowledgeBase(
        version=files.version,
        digest=digest,
        findings=findings,
        protocols={protocol.id: protocol for protocol in files.protocols},
        determinants=tuple(Determinant(d, p.id) for p in files.protocols for d in p.determinant),
        key_questions=questions,
        context=context,
        complaint_findings=complaint_findings,
    )


@functools.cache
def load_knowledge(directory: Path = KNOWLEDGE_DIR) -> KnowledgeBase:
    """The compiled knowledge of a directory (the package's own by default), once per process: a centre that edits
    its knowledge restarts its workers, as it does for a new model."""
    return compile_knowledge(read_knowledge_files(directory), _digest(directory))
