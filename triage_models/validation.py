"""`triage protocols validate`: every example of every finding and determinant read as a call, and checked.

A finding's `fire_*` examples must find it (affirmed, about the patient now) and its `not_*` examples must not; a
determinant's `fire_*` examples must fire it and its `not_*` examples must not. Each example is read in the language
it is filed under, with the age it states. A protocol needs examples in both languages, for and against, for each
determinant. A term whose word repeats in one slot, or whose single-word slot repeats an alternative of the slot beside
it, is a problem too: a space inside an alternative starts a new required slot (`carro|troca|carro rentado` asks for
"rentado" after any of them), which is rarely what its author meant.
"""

from __future__ import annotations

from dataclasses import dataclass

from triage_models.context import ContextReader
from triage_models.knowledge_base import KnowledgeBase
from triage_models.knowledge_files import CoverageFile, Examples
from triage_models.protocols import read_call
from triage_models.rules import vital_findings
from triage_models.terms import Term
from triage_models.vitals import extract_vitals


@dataclass(frozen=True, slots=True)
class ExampleFailure:
    """An example that did not do what its file says."""

    where: str
    """"protocols/choking.toml determinant A-CHOKING", "findings/breathing.toml finding cyanosis"."""
    language: str
    must_fire: bool
    text: str
    found: tuple[str, ...]
    """What the example did fire (determinants, or the finding's present mentions)."""

    def __str__(self) -> str:
        verb = "must fire" if self.must_fire else "must not fire"
        return f"{self.where}: {verb} ({self.language}): {self.text!r} -> found {', '.join(self.found) or 'nothing'}"


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """How many examples were run, which failed, and which protocols lack examples."""

    examples: int
    failures: tuple[ExampleFailure, ...]
    missing: tuple[str, ...]
    slot_problems: tuple[str, ...] = ()
    """Terms that look like a space inside an alternative (see the module's docstring)."""

    @property
    def ok(self) -> bool:
        return not self.failures and not self.missing and not self.slot_problems


def _check(
    kb: KnowledgeBase, reader: ContextReader, where: str, examples: Examples, target: str, determinant: bool
) -> tuple[int, list[ExampleFailure]]:
    failures = []
    count = 0
    for language, must_fire, text in examples.by_language():
        count += 1
        vitals = extract_vitals(text)
        stated = None if vitals.age_years is None else vitals.age_years.value
        reading = read_call(kb, text, (language,), reader, stated, vital_findings(vitals))
        if determinant:
            found = tuple(item.rule_id for item in reading.evidence if item.floor or item.esi_level >= 4)
        else:
            found = tuple(sorted(reading.present()))
        if (target in found) != must_fire:
            failures.append(ExampleFailure(where, language, must_fire, text, found))
    return count, failures


def _missing(kb: KnowledgeBase) -> list[str]:
    missing = []
    for protocol in kb.protocols.values():
        for determinant in protocol.determinant:
            for name in ("fire_en", "fire_es", "not_en", "not_es"):
                if not getattr(determinant, name):
                    missing.append(f"protocols/{protocol.id}.toml determinant {determinant.id}: no {name} examples")
    return missing


def _slot_problem(term: Term) -> bool:
    """True when a word repeats in one slot, or a one-word slot repeats an alternative of a slot beside it."""
    slots = [[word.strip('"').lower() for word in slot.written.split("|")] for slot in term.slots]
    for index, words in enumerate(slots):
        if len(set(words)) < len(words):
            return True
        if index and (len(words) == 1) != (len(slots[index - 1]) == 1) and set(words) & set(slots[index - 1]):
            return True
    return False


def slot_problems(kb: KnowledgeBase) -> list[str]:
    """Every finding term of the knowledge base that `_slot_problem` flags, named with its file and finding."""
    return [
        f"{finding.defined_in} finding {finding.id} ({language}): {term.written!r}: a word in two slots; a space "
        "inside an alternative starts a new required slot"
        for finding in kb.findings.values()
        for language, terms in finding.terms.items()
        for term in terms
        if _slot_problem(term)
    ]


def validate(kb: KnowledgeBase, reader: ContextReader | None = None) -> ValidationReport:
    """Run every example of the knowledge base (see the module's docstring)."""
    reader = reader or kb.context
    total = 0
    failures: list[ExampleFailure] = []
    for finding in kb.findings.values():
        where = f"{finding.defined_in} finding {finding.id}"
        count, failed = _check(kb, reader, where, finding.spec, finding.id, False)
        total += count
        failures.extend(failed)
    for determinant in kb.determinants:
        where = f"protocols/{determinant.protocol}.toml determinant {determinant.spec.id}"
        count, failed = _check(kb, reader, where, determinant.spec, determinant.spec.id, True)
        total += count
        failures.extend(failed)
    return ValidationReport(total, tuple(failures), tuple(_missing(kb)), tuple(slot_problems(kb)))


def coverage_problems(kb: KnowledgeBase, coverage: CoverageFile) -> list[str]:
    """Coverage entries naming a protocol or a determinant the knowledge does not have, and protocols no chief
    complaint names."""
    problems = []
    named: set[str] = set()
    for item in coverage.cbd:
        for name in item.protocols:
            named.add(name)
            if name not in kb.protocols:
                problems.append(f"coverage.toml: {item.complaint!r} names unknown protocol {name!r}")
    known = set(kb.determinant_ids)
    for risk in coverage.high_risk:
        for name in risk.determinants:
            if name not in known:
                problems.append(f"coverage.toml: {risk.situation!r} names unknown determinant {name!r}")
    for name in sorted(set(kb.protocols) - named):
        problems.append(f"coverage.toml: protocol {name!r} covers no chief complaint listed")
    return problems
