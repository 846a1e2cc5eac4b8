"""ESI decision point C: which resources a case will need, read from the message with the words that suggest them.

The ESI handbook (v4, chapter 5) counts resource *kinds*: labs, ECG, imaging (plain or advanced, one kind), IV
fluids, IV/IM/nebulised medication, specialty consultation, a simple procedure (1) and a complex procedure (2).
History and examination, point-of-care tests, oral medication, tetanus, prescription refills, a call to the
family doctor, simple wound care, crutches, splints and slings are not resources. Two sources of evidence: a
resource named outright ("needs an x-ray", "IV fluids"), and a complaint a triage nurse knows will need it
("abdominal pain" -> labs and imaging; "laceration" -> repair). A negated mention ("no CT needed") counts nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from triage_models.result import Resource
from triage_models.transcript import fold_accents

RESOURCES_VERSION = "resources-2026.11.2"


@dataclass(frozen=True, slots=True)
class ResourceCue:
    """Words that suggest one or more resource kinds."""

    cue_id: str
    kinds: tuple[str, ...]
    pattern: str


_EXPLICIT: tuple[ResourceCue, ...] = (
    ResourceCue(
        "labs",
        ("labs",),
        r"\b(?:labs?|blood (?:work|tests?|draw|count)|cbc|bmp|cmp|troponin|lactate|"
        r"urinalysis|u/?a\b|urine (?:test|culture|sample)|blood cultures?|lipase|electrolytes|"
        r"pregnancy test|beta[- ]?hcg|culture)",
    ),
    ResourceCue("ecg", ("ecg",), r"\b(?:ecg|ekg|electrocardiogram|12[- ]lead|cardiac monitor)\b"),
    ResourceCue(
        "imaging",
        ("imaging",),
        r"\b(?:x[- ]?rays?|xr\b|radiograph|ct\b(?!\s*:)|cat scan|ct scan|mri|"
        r"ultrasound|sonogram|u/?s\b|imaging|films?)",
    ),
    ResourceCue(
        "iv_fluids",
        ("iv_fluids",),
        r"\b(?:iv fluids?|intravenous fluids?|fluid bolus|iv hydration|"
        r"normal saline|rehydrat\w+ (?:iv|intravenous))",
    ),
    ResourceCue(
        "parenteral_medication",
        ("parenteral_medication",),
        r"\b(?:iv|im|intravenous|intramuscular)"
        r" (?:antibiotics?|medications?|meds|pain (?:medicine|medication|control)|morphine|antiemetics?|"
        r"steroids?|injection)|\bneb(?:ulizer|ulised|ulized|s)?\b|\bbreathing treatment\b|"
        r"\binjection\b|\bshot of\b",
    ),
    ResourceCue(
        "specialty_consult",
        ("specialty_consult",),
        r"\b(?:consult(?:ation)?|psychiatr\w+ (?:evaluation|"
        r"consult)|see (?:a|the) (?:surgeon|specialist|orthopedist|psychiatrist)|ob/?gyn consult)\b",
    ),
    ResourceCue(
        "simple_procedure",
        ("simple_procedure",),
        r"\b(?:sutures?|stitch(?:es)?|staples?|"
        r"laceration repair|foley|urinary catheter|catheteri[sz]\w+|incision and drainage|i ?& ?d|"
        r"drain(?:ed|age) of)\b",
    ),
    ResourceCue(
        "complex_procedure",
        ("complex_procedure",),
        r"\b(?:procedural sedation|conscious sedation|"
        r"reduction|reduced under|relocat\w+|chest tube|central line)\b",
    ),
)
"""Resources named outright."""

_COMPLAINTS: tuple[ResourceCue, ...] = (
    ResourceCue(
        "abdominal-pain",
        ("labs", "imaging"),
        r"\b(?:abd(?:ominal)?|belly|stomach|epigastric|"
        r"(?:rlq|ruq|llq|luq)|flank|pelvic) ?(?:pain|ache|tenderness|cramp\w*)|\babd pain\b",
    ),
    ResourceCue(
        "chest-pain",
        ("ecg", "labs"),
        r"\bchest (?:pain|discomfort|tightness|pressure)\b|"
        r"\bpalpitations?\b",
    ),
    ResourceCue(
        "dyspnea",
        ("imaging", "labs"),
        r"\b(?:dyspnea|dyspnoea|short(?:ness)? of breath|sob\b|"
        r"difficulty breathing|trouble breathing|wheez\w+)",
    ),
    ResourceCue(
        "vomiting-dehydration",
        ("labs", "iv_fluids"),
        r"\b(?:vomiting|dehydrat\w+|"
        r"(?:can't|cannot|unable to) keep (?:anything|fluids|food) down|n/v/d|hematuria)\b",
    ),
    ResourceCue(
        "fracture-or-injury",
        ("imaging",),
        r"\b(?:fractur\w+|broken|deform\w+|swollen (?:ankle|wrist|"
        r"knee|foot|hand|arm|leg|elbow|finger|toe)|(?:ankle|wrist|knee|foot|hand|arm|leg|elbow|shoulder|"
        r"hip|finger|toe|rib) (?:injury|pain|trauma|swelling)|(?:twisted|sprained|rolled|injured|hurt) "
        r"(?:his |her |their |my |the )?(?:ankle|wrist|knee|foot|arm|leg|shoulder)|fell on)\b",
    ),
    ResourceCue(
        "dislocation",
        ("imaging", "complex_procedure"),
        r"\b(?:dislocat\w+|popped out of (?:place|"
        r"the socket))\b",
    ),
    ResourceCue(
        "laceration",
        ("simple_procedure",),
        r"\b(?:laceration|lac\b|gash\w*|deep cut|cut (?:open|deep)|"
        r"(?:gaping|deep) (?:wound|cut)|wound (?:is )?gaping|needs? (?:stitches|sutures))",
    ),
    ResourceCue(
        "head-injury",
        ("imaging",),
        r"\b(?:head (?:injury|trauma)|hit (?:his|her|their|my) head|"
        r"struck (?:his|her|their) head|fell and hit)\b",
    ),
    ResourceCue(
        "kidney-stone",
        ("labs", "imaging", "parenteral_medication"),
        r"\b(?:kidney stones?|renal colic|"
        r"nephrolithiasis)\b",
    ),
    ResourceCue(
        "urinary",
        ("labs",),
        r"\b(?:uti\b|urinary (?:tract )?infection|burning (?:on|with|when) "
        r"urinat\w+|dysuria|painful urination|frequent urination)",
    ),
    ResourceCue(
        "fever-infection",
        ("labs", "imaging"),
        r"\b(?:pneumonia|cellulitis|abscess|sepsis|"
        r"productive cough with fever|fever and (?:chills|cough))\b",
    ),
    ResourceCue(
        "weakness-dizziness",
        ("labs", "ecg"),
        r"\b(?:general(?:i[sz]ed)? weakness|dizz(?:y|iness)|"
        r"syncope|fainted|passed out|lightheaded)\b",
    ),
    ResourceCue(
        "pregnancy",
        ("labs", "imaging"),
        r"\b(?:pregnan\w+|vaginal bleeding|missed (?:her |my )?period)"
        r"\b",
    ),
    ResourceCue(
        "gi-bleeding",
        ("labs", "iv_fluids"),
        r"\b(?:hematemesis|melena|hematochezia|rectal bleeding|"
        r"blood in (?:the |his |her )?(?:stool|vomit))\b",
    ),
    ResourceCue(
        "psychiatric",
        ("specialty_consult", "labs"),
        r"\b(?:psychiatric|psychosis|hallucinat\w+|"
        r"suicid\w+|homicidal|depress\w+ with)\b",
    ),
    ResourceCue(
        "asthma",
        ("parenteral_medication",),
        r"\b(?:asthma (?:attack|flare|exacerbation)|copd "
        r"exacerbation)\b",
    ),
    ResourceCue(
        "foreign-body",
        ("simple_procedure",),
        r"\b(?:foreign body|fish ?hook|splinter (?:under|deep)|"
        r"something (?:stuck|lodged) in (?:his|her|their|my) (?:ear|nose|eye))\b",
    ),
    ResourceCue(
        "stroke-signs",
        ("imaging", "labs"),
        r"\b(?:weakness on one side|(?:lt|rt|left|right)\.? ?"
        r"(?:side|sided)? ?(?:motor )?weakness|slurred speech|dysarthria|facial droop|hemiparesis)\b",
    ),
    ResourceCue("seizure", ("labs", "imaging"), r"\b(?:seizure|convulsion|seizing)\b"),
    # The same complaints as callers say them, in English and Spanish (`predict_resources` reads accents folded).
    ResourceCue(
        "abdominal-pain-caller",
        ("labs", "imaging"),
        r"\b(?:belly|stomach|tummy) (?:hurts|is hurting|is killing)|\b(?:dolor|duele|doliendo)\b[^.]{0,25}\b(?:panza"
        r"|barriga|estomago|vientre|abdomen|lado derecho abajo)\b",
    ),
    ResourceCue(
        "chest-pain-caller",
        ("ecg", "labs"),
        r"\b(?:dolor|duele|presion|opresion)\b[^.]{0,15}\bpecho\b|\bchest (?:hurts|is hurting|feels (?:heavy|tight))",
    ),
    ResourceCue(
        "dyspnea-caller",
        ("imaging", "labs"),
        r"\b(?:le|me) falta el aire\b|\bfalta de aire\b|\b(?:se|me) ahoga al\b|\bcan't catch (?:my|his|her) breath\b",
    ),
    ResourceCue(
        "vomiting-caller",
        ("labs", "iv_fluids"),
        r"\bthrowin[g']? up\b[^.]{0,40}\b(?:all day|whole day|can't keep|cant keep|won't stop|since)|\bcan'?t keep"
        r" (?:nothin|nothing)|\b(?:vomitando|vomita|vomito)\b[^.]{0,40}\b(?:todo el dia|no retiene|no para|desde)",
    ),
    ResourceCue(
        "injury-caller",
        ("imaging",),
        r"\b(?:hip|cadera) (?:hurts|pain|is hurting)|\b(?:duele|dolor)\b[^.]{0,20}\bcadera\b|\b(?:arm|leg|wrist|ankle"
        r"|finger|brazo|pierna|muneca|tobillo)\b[^.]{0,20}\b(?:bent|crooked|looks wrong|chueco|chueca|torcid[oa])\b"
        r"|\bcan'?t (?:walk|put (?:any )?weight|stand) on\b|\b(?:fractura|quebr[oa]|hueso roto)",
    ),
    ResourceCue(
        "infection-caller",
        ("labs", "imaging"),
        r"\b(?:fever|fiebre|calentura)\b[^.]{0,60}\b(?:cough|tos|flemas?|phlegm)\b|\b(?:cough|tos|flemas?|phlegm)\b"
        r"[^.]{0,60}\b(?:fever|fiebre|calentura)\b",
    ),
    ResourceCue(
        "urinary-caller",
        ("labs",),
        r"\bburn(?:s|ing)? when (?:i |he |she )?(?:pee|urinate)|\b(?:arde|ardor|duele) al orinar\b",
    ),
    ResourceCue(
        "laceration-caller",
        ("simple_procedure",),
        r"\b(?:cortada|herida) (?:profunda|grande|abierta)\b|\bnecesita (?:puntos|puntadas)\b"
        r"|\bcut (?:is )?(?:deep|wide open|gaping)\b",
    ),
)
"""Complaints a triage nurse knows will need these resources."""

_SENTENCE_END = re.compile(r"[.;!?\n]")
_LIST_NEGATION = re.compile(r"\b(?:denies|denied|no|not|without|negative for|never)\b", re.I)
_BUT = re.compile(r"\bbut\b", re.I)


def is_negated_in_list(text: str, start: int) -> bool:
    """A negation earlier in the same sentence governs a list ("denies fever, chills, abdominal pain"), unlike
    the red flags' scope, which ends at a comma; "but" ends it."""
    sentence_start = max((m.end() for m in _SENTENCE_END.finditer(text, 0, start)), default=0)
    before = text[sentence_start:start]
    negations = list(_LIST_NEGATION.finditer(before))
    return bool(negations) and not _BUT.search(before[negations[-1].end() :])


_COMPILED = [(cue, re.compile(cue.pattern, re.IGNORECASE)) for cue in (*_EXPLICIT, *_COMPLAINTS)]


def predict_resources(text: str) -> tuple[Resource, ...]:
    """The resource kinds the message suggests, each once (first unnegated evidence), in text order."""
    found: dict[str, Resource] = {}
    folded = fold_accents(text)  # one character for one: spans stay the message's
    for cue, pattern in _COMPILED:
        match = next((m for m in pattern.finditer(folded) if not is_negated_in_list(folded, m.start())), None)
        if match is None:
            continue
        for kind in cue.kinds:
            if kind not in found:
                found[kind] = Resource(kind, match.start(), match.end(), text[match.start() : match.end()])
    # Plain imaging and a complex procedure's imaging are one kind; a complex procedure already counts 2.
    return tuple(sorted(found.values(), key=lambda item: (item.start, item.kind)))


def resource_count(resources: tuple[Resource, ...]) -> int:
    """The ESI count: each kind once, a complex procedure 2."""
    return sum(item.weight for item in resources)


def level_for_resources(count: int) -> int:
    """ESI 5 for none, 4 for one, 3 for two or more."""
    return 5 if count == 0 else 4 if count == 1 else 3
