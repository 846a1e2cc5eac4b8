"""A call read with the protocols: its findings (each with its context), the determinants they fire, its complaint.

The reading runs in this order:
1. the call as `transcript.readable` gives it (fillers, repeats and misspellings of red-flag words mended), cut into
   tokens with their lemma keys (`lexicon`), the call-taker's turns set apart (`dialogue`);
2. every finding term that occurs in the caller's words (`terms`), with its context (`context`): denied, historical,
   hypothetical, someone else's, an animal's (a call about an animal alone is not medical; one where an animal bit
   someone is about that person), or an episode over (a request that is not medical stands whether asked as a
   hypothesis or not: "do you know if the shelters are open"); overlapping terms of one group leave the longest;
3. the answers the caller gave to the call-taker's key questions, and the patient's stated age, as findings too;
4. each protocol's determinants on the findings present (affirmed, about the patient now): a determinant fires when
   each of its `all_of` entries is present, none of its `none_of` is said with or after them, none of its
   `none_of_anywhere` is said at all, within its age limits. An episode the caller
   says is over ("coughed it out") fires it at its `if_resolved` level;
5. the protocol of the call's chief complaint: that of the most urgent determinant, else of the first complaint
   finding said.
Each determinant becomes `Evidence`, quoting the caller's own words of its first finding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from triage_models.context import ContextReader, FindingContext
from triage_models.dialogue import Reply, Turn, caller_spans, key_question_answers, question_replies, turns
from triage_models.knowledge_base import AGE_FINDINGS, Determinant, KnowledgeBase
from triage_models.lexicon import Token, tokenize
from triage_models.result import DecisionPoint, Evidence, KeyQuestionState
from triage_models.terms import CallIndex, TermMatch, find_term
from triage_models.transcript import ReadableText, fold_accents, readable


@dataclass(frozen=True, slots=True)
class FindingHit:
    """One mention of a finding: where (tokens and the caller's characters), by which term, in what context."""

    finding: str
    first: int
    last: int
    start: int
    end: int
    term: str
    context: FindingContext
    slots: int = 1
    source: str = "words"
    """"words" (the caller said it), "answer" (a yes or no to a key question), "age" (the stated age) or "vitals" (a
    measured vital sign)."""


@dataclass(frozen=True, slots=True)
class CallReading:
    """What the protocols make of one call."""

    hits: tuple[FindingHit, ...]
    evidence: tuple[Evidence, ...]
    protocol: str | None
    """The protocol of the call's chief complaint, or None when nothing in the call names one."""
    answered: tuple[str, ...]
    """The key questions (ids) the call-taker asked and the caller answered."""
    non_medical: bool = False
    """The call names only something that is not a medical problem (a ride, a noise, a pet) and no medical finding."""
    medical: bool = False
    """The call names at least one medical finding (anything but who the patient is and what is not medical)."""

    def present(self) -> set[str]:
        """The findings said of the patient now (affirmed; an episode over included)."""
        return {hit.finding for hit in self.hits if hit.context.present}


def accented(message: str, reading: ReadableText) -> str:
    """The readable text with the caller's accents back, one character for one (the dictionary reads "cayó")."""
    out = []
    for position, char in enumerate(reading.text):
        origin = reading.origin[position]
        written = message[origin] if origin < len(message) else char
        out.append(written if fold_accents(written).lower() == char.lower() else char)
    return "".join(out)


def _word_hits(
    kb: KnowledgeBase,
    tokens: list[Token],
    reading: ReadableText,
    languages: tuple[str, ...],
    reader: ContextReader,
) -> list[FindingHit]:
    index = CallIndex.of(tokens)
    context = reader.read(reading.text, tokens, languages)
    # One match per finding and place: the term of most words (then the first written), whatever order the terms
    # were tried in.
    best: dict[tuple[str, int, int], TermMatch] = {}
    for finding_id, term in kb.candidate_terms(index, languages):
        for match in find_term(index, term):
            place = (finding_id, match.first, match.last)
            if place not in best or len(match.term.slots) > len(best[place].term.slots):
                best[place] = match
    hits: list[FindingHit] = []
    for (finding_id, _, _), match in sorted(best.items(), key=lambda item: item[0]):
        start, end = reading.span(tokens[match.first].start, tokens[match.last].end)
        found_context = context.of(match.first, match.last, match.own_negations)
        if found_context.historical and kb.findings[finding_id].spec.history_counts:
            found_context = replace(found_context, historical=False)  # a risk factor counts however old
        if found_context.animal and _of_animals(kb, finding_id):
            found_context = replace(found_context, animal=False)  # "my dog died" is what nm_pet means
        if found_context.hypothetical and kb.findings[finding_id].defined_in == NON_MEDICAL_FILE:
            found_context = replace(found_context, hypothetical=False)  # "do y'all know if ... open" asks all the same
        hits.append(
            FindingHit(
                finding_id,
                match.first,
                match.last,
                start,
                end,
                match.term.written,
                found_context,
                len(match.term.slots),
            )
        )
    return _people_hurt_by_animals(kb, _longest_in_group(kb, hits))


NON_MEDICAL_PROTOCOL = "non-medical"
NON_MEDICAL_FILE = f"protocols/{NON_MEDICAL_PROTOCOL}.toml"
NEUTRAL_FILES = ("findings/patient.toml", NON_MEDICAL_FILE)
"""Findings that say nothing medical: who the patient is, and what a call that is not medical is about."""
ANIMAL_BITES_FILE = "protocols/animal-bites.toml"
ANIMAL_FILES = (NON_MEDICAL_FILE, ANIMAL_BITES_FILE)
"""Findings about animals by definition: a pet's death, a bite. What `context` says of an animal does not hide them."""
ANIMAL_PATIENT = "animal_patient"
"""The finding that an animal is the patient (`protocols/seizure.toml`): a call that is not medical when alone."""


def _of_animals(kb: KnowledgeBase, finding_id: str) -> bool:
    """Whether a finding speaks of an animal by definition (a pet lost or dead, a bite, an animal patient)."""
    return kb.findings[finding_id].defined_in in ANIMAL_FILES or finding_id == ANIMAL_PATIENT


def _people_hurt_by_animals(kb: KnowledgeBase, hits: list[FindingHit]) -> list[FindingHit]:
    """A call where an animal bit, mauled or stung someone is about that person: nothing in it is the animal's ("the
    dog got her neck, she's bleeding bad")."""
    bitten = any(kb.findings[hit.finding].defined_in == ANIMAL_BITES_FILE and hit.context.present for hit in hits)
    if not bitten:
        return hits
    return [replace(hit, context=replace(hit.context, animal=False)) if hit.context.animal else hit for hit in hits]


def _beats(other: FindingHit, hit: FindingHit) -> bool:
    """Whether `other` stands over `hit` where they overlap: the one that holds the other's words whole, else the one
    of more words."""
    holds = other.first <= hit.first and hit.last <= other.last
    held = hit.first <= other.first and other.last <= hit.last
    if holds != held:
        return holds
    return other.slots > hit.slots


def _longest_in_group(kb: KnowledgeBase, hits: list[FindingHit]) -> list[FindingHit]:
    """Where terms of findings of one group overlap, the wider (then the one of more words) stands: "not breathing
    normally" is abnormal breathing, not absent breathing; "no me contesta" is no answer, not "me contesta"."""
    kept: list[FindingHit] = []
    for hit in hits:
        group = kb.findings[hit.finding].group
        beaten = group and any(
            other.finding != hit.finding
            and kb.findings[other.finding].group == group
            and other.first <= hit.last
            and hit.first <= other.last
            and _beats(other, hit)
            for other in hits
        )
        if not beaten:
            kept.append(hit)
    return kept


def _said_by_the_caller(
    hits: list[FindingHit], tokens: list[Token], dialogue: Sequence[Turn], replies: Sequence[Reply]
) -> list[FindingHit]:
    """The caller's findings, and those of the call-taker's questions the caller confirmed: by a yes ("was he shot?"
    "yes"), or by answering a question that takes them for granted ("where was he shot?" "in the chest"). Nothing
    else the call-taker says is a finding."""
    spans = caller_spans(dialogue, tokens[-1].end + 1 if tokens else 0)
    confirmed = [
        reply.question for reply in replies if reply.kind == "yes" or (reply.kind == "content" and reply.presupposes)
    ]
    kept = []
    for hit in hits:
        start = tokens[hit.first].start
        if any(low <= start < high for low, high in spans):
            kept.append(hit)
        elif any(turn.start <= start < turn.end for turn in confirmed):
            kept.append(replace(hit, source="answer"))
    return kept


def _age_hits(age_years: float | None, message: str) -> list[FindingHit]:
    if age_years is None:
        return []
    hits = []
    for finding, (at_least, below) in AGE_FINDINGS.items():
        if (at_least is None or age_years >= at_least) and (below is None or age_years < below):
            hits.append(FindingHit(finding, -1, -1, 0, 0, f"age {age_years:g}", FindingContext(), 1, "age"))
    return hits


def _present_hit(hits: Sequence[FindingHit], names: Sequence[str]) -> FindingHit | None:
    """The first mention of one of the findings that is present; a mention not over is preferred."""
    present = [hit for hit in hits if hit.finding in names and hit.context.present]
    ongoing = [hit for hit in present if not hit.context.resolved]
    chosen = ongoing or present
    return chosen[0] if chosen else None


def _age_allows(spec_age: tuple[float | None, float | None], unknown_fires: bool, age: float | None) -> bool:
    at_least, below = spec_age
    if at_least is None and below is None:
        return True
    if age is None:
        return unknown_fires
    return (at_least is None or age >= at_least) and (below is None or age < below)


def _fire(determinant: Determinant, hits: Sequence[FindingHit], age: float | None) -> list[FindingHit] | None:
    """The hits that fire a determinant (one per `all_of` entry), or None."""
    spec = determinant.spec
    if not _age_allows((spec.age_at_least_years, spec.age_below_years), spec.age_unknown_fires, age):
        return None
    chosen = []
    for names in spec.required:
        hit = _present_hit(hits, names)
        if hit is None:
            return None
        chosen.append(hit)
    # What excludes a determinant counts when said with or after its findings: "he was talking, then collapsed and
    # is gasping" is an arrest; "he collapsed, gasping, but he's awake now" is not.
    said = [hit.first for hit in chosen if hit.source not in ("age", "vitals")]
    since = min(said) if said else -1
    for hit in hits:
        if not hit.context.present:
            continue
        anywhere = hit.finding in spec.excluded_anywhere or hit.source in ("age", "vitals")
        if (anywhere and hit.finding in spec.excluded + spec.excluded_anywhere) or (
            hit.finding in spec.excluded and hit.last >= since
        ):
            return None
    return chosen


def _evidence(determinant: Determinant, chosen: list[FindingHit], message: str) -> Evidence:
    spec = determinant.spec
    decisive = next((hit for hit in chosen if hit.source not in ("age", "vitals")), chosen[0])
    resolved = any(hit.context.resolved for hit in chosen)
    level, floor, description = spec.level, spec.level <= 3, spec.description
    if resolved and spec.if_resolved != "kept":
        description = f"{spec.description} (over now, the caller says)"
        if spec.if_resolved == "none":
            floor = False
        else:
            level = spec.if_resolved
    point = DecisionPoint(spec.decision_point) if level == spec.level else DecisionPoint.B
    if level > 2 and point is DecisionPoint.B and level != spec.level:
        point = DecisionPoint.C
    return Evidence(
        spec.id,
        level,
        point,
        description,
        decisive.start,
        decisive.end,
        message[decisive.start : decisive.end] if decisive.end > decisive.start else decisive.term,
        floor,
        resolved and spec.if_resolved != "kept",
    )


def _protocol(kb: KnowledgeBase, evidence: Sequence[Evidence], hits: Sequence[FindingHit]) -> str | None:
    by_id = {d.spec.id: d.protocol for d in kb.determinants if not d.spec.generic}
    ranked = sorted(
        (item for item in evidence if item.floor and item.rule_id in by_id),
        key=lambda item: (item.esi_level, item.start),
    )
    if ranked:
        return by_id[ranked[0].rule_id]
    words = sorted((hit for hit in hits if hit.context.present and hit.source == "words"), key=lambda h: h.first)
    for hit in words:
        for protocol, findings in kb.complaint_findings.items():
            if hit.finding in findings:
                return protocol
    return None


def _said_in(kb: KnowledgeBase, hits: Sequence[FindingHit]) -> set[str]:
    """The files whose findings the caller said (present, or wondered about: "what if he stops breathing" is a medical
    call); what is said of an animal is a call that is not medical ("my dog is not breathing": a vet)."""
    said: set[str] = set()
    for hit in hits:
        if hit.source != "words":
            continue
        if hit.context.present:
            said.add(NON_MEDICAL_FILE if hit.finding == ANIMAL_PATIENT else kb.findings[hit.finding].defined_in)
        elif hit.context.animal and replace(hit.context, animal=False).present:
            said.add(NON_MEDICAL_FILE)
        elif hit.context.hypothetical and not hit.context.negated:
            said.add(kb.findings[hit.finding].defined_in)  # a medical worry asked as a question is still medical
    return said


def _non_medical(said: set[str]) -> bool:
    return NON_MEDICAL_FILE in said and said <= set(NEUTRAL_FILES)


def read_call(
    kb: KnowledgeBase,
    message: str,
    languages: tuple[str, ...],
    reader: ContextReader,
    age_years: float | None = None,
    measured: Sequence[str] = (),
) -> CallReading:
    """Read one call (see the module's docstring). `measured`: findings the call's measured vital signs give (a
    temperature of 38 °C or more is a fever, `vital_findings`)."""
    reading = readable(message, languages)
    tokens = tokenize(reading.text, languages, accented(message, reading))
    dialogue: list[Turn] = turns(reading.text)
    hits = _word_hits(kb, tokens, reading, languages, reader)
    replies = question_replies(tokens, dialogue) if dialogue else []
    if dialogue:
        hits = _said_by_the_caller(hits, tokens, dialogue, replies)
    answers = key_question_answers(kb, tokens, replies, languages)
    for answer in answers:
        start, end = reading.span(tokens[answer.first].start, tokens[answer.last].end)
        hits.append(
            FindingHit(
                answer.finding, answer.first, answer.last, start, end, answer.question, FindingContext(), 1, "answer"
            )
        )
    hits.extend(_age_hits(age_years, message))
    hits.extend(FindingHit(name, -1, -1, 0, 0, "measured", FindingContext(), 1, "vitals") for name in measured)
    evidence = []
    for determinant in kb.determinants:
        chosen = _fire(determinant, hits, age_years)
        if chosen is not None:
            evidence.append(_evidence(determinant, chosen, message))
    evidence.sort(key=lambda item: (item.esi_level, item.start, item.rule_id))
    answered = tuple(dict.fromkeys(answer.question for answer in answers))
    said = _said_in(kb, hits)
    non_medical = not any(item.floor or item.esi_level <= 2 for item in evidence) and _non_medical(said)
    medical = bool(said - set(NEUTRAL_FILES))
    protocol = NON_MEDICAL_PROTOCOL if non_medical else _protocol(kb, evidence, hits)
    return CallReading(tuple(hits), tuple(evidence), protocol, answered, non_medical, medical)


def key_question_states(reading: CallReading, kb: KnowledgeBase | None = None) -> tuple[KeyQuestionState, ...]:
    """The key questions of the call's chief complaint; one is answered when the caller answered it or already said
    what one of its answers affirms ("he's not breathing" answers "is he breathing normally?")."""
    if reading.protocol is None:
        return ()
    from triage_models.knowledge_base import load_knowledge

    kb = kb or load_knowledge()
    present = reading.present()
    states = []
    for question in kb.protocols[reading.protocol].key_question:
        said = {question.yes, question.no, question.unsure} - {""}
        answered = question.id in reading.answered or bool(said & present)
        states.append(KeyQuestionState(question.id, question.en, question.es, answered))
    return tuple(states)
