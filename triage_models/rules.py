"""Red-flag safety rules (ESI decision points A, B and D): deterministic, versioned, each with an id.

They can only raise urgency: the final level is the more urgent of the classifier's and the rules'. A phrase
rule fires when one of its patterns matches and is not negated ("denies chest pain", "no bleeding"); a rule
with `context` patterns also needs one of those, not negated, anywhere in the message (chest pain *with* a risk
sign). Vital-sign rules use the ESI handbook's danger zones, by age.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from triage_models.result import DecisionPoint, Evidence
from triage_models.text import is_negated
from triage_models.vitals import Reading, Vitals, extract_vitals

RULES_VERSION = "rules-2026.11.2"


@dataclass(frozen=True, slots=True)
class PhraseRule:
    """A red flag recognised by wording."""

    rule_id: str
    esi_level: int
    decision_point: DecisionPoint
    description: str
    patterns: tuple[str, ...]
    context: tuple[str, ...] = ()

    def compiled(self) -> tuple[list[re.Pattern[str]], list[re.Pattern[str]]]:
        return ([_compile(pattern) for pattern in self.patterns], [_compile(pattern) for pattern in self.context])


def _compile(pattern: str) -> re.Pattern[str]:
    """Case-insensitive, and contractions match with or without the apostrophe ("cant breathe", "wont wake")."""
    return re.compile(pattern.replace("n't", "n'?t").replace("'s ", "'?s "), re.IGNORECASE)


A, B = DecisionPoint.A, DecisionPoint.B

PHRASE_RULES: tuple[PhraseRule, ...] = (
    PhraseRule(
        "A-NOT-BREATHING",
        1,
        A,
        "Not breathing or agonal breathing",
        (
            r"\bnot breathing\b",
            r"\bno longer breathing\b",
            r"\bnot (?:moving|responding|conscious|awake) (?:or|nor|and not) breathing\b",
            r"\b(?:hasn't|has not|haven't|have not) been breathing\b",
            r"\b(?:isn't|is not|wasn't|stopped|stop) breathing\b",
            r"\bno (?:breathing|respirations?)\b",
            r"\bapn(?:o|e)ic\b",
            r"\bagonal\b",
            r"\bbarely breathing\b",
            r"\bgasping\b",
            r"\brespiratory arrest\b",
        ),
    ),
    PhraseRule(
        "A-NO-PULSE",
        1,
        A,
        "No pulse, cardiac arrest, CPR in progress",
        (
            r"\bno pulse\b",
            r"\bpulseless\b",
            r"\bcardiac arrest\b",
            r"\b(?:doing|started|performing|giving|in progress|ongoing) cpr\b",
            r"\bcpr (?:in progress|ongoing|started|being done)\b",
            r"\bcode blue\b",
            r"\bcan't (?:find|feel|get) (?:a|his|her|their|any) pulse\b",
            r"\b(?:doesn't|does not|don't|do not) have a pulse\b",
            r"\bno (?:heartbeat|heart beat|signs of life)\b",
            r"\b(?:he|she|they)'s dead\b|\b(?:he|she) is dead\b|\bi think (?:he|she)'s dead\b",
            r"\bheart (?:has )?stopped\b",
        ),
    ),
    PhraseRule(
        "A-UNRESPONSIVE",
        1,
        A,
        "Unresponsive or unconscious",
        (
            r"\bunresponsive\b",
            r"\bunconscious\b",
            r"\b(?:won't|will not|can't|cannot|doesn't|does not) (?:wake up|be woken|be roused|respond)\b",
            r"\bnot (?:responding|responsive|conscious|waking(?: up)?|rousable|arousable)\b",
            r"\bcan't (?:wake|rouse) (?:him|her|them)(?: up)?\b",
            r"\bno response to (?:voice|pain|stimuli)\b",
            r"\bunarousable\b",
            r"\b(?:responds?|responding|reacts?) only to pain\b",
            r"\bonly (?:responds?|reacts?) to pain\b",
        ),
    ),
    PhraseRule(
        "A-CHOKING",
        1,
        A,
        "Choking or airway obstruction",
        (
            r"\bchoking\b",
            r"\bchoked on\b",
            r"\bairway (?:obstruction|obstructed|blocked)\b",
            r"\bsomething stuck in (?:his|her|their|my) throat\b",
            r"\bturning blue\b",
            r"\b(?:lips|face) (?:are |is )?(?:blue|purple)\b",
            r"\bcyanotic\b",
        ),
    ),
    PhraseRule(
        "A-SEVERE-BLEEDING",
        1,
        A,
        "Severe or uncontrolled bleeding",
        (
            r"\b(?:severe|heavy|massive|uncontrolled|uncontrollable|profuse) bleeding\b",
            r"\bbleeding (?:heavily|profusely|badly|a lot|everywhere|out)\b",
            r"\bbleeding (?:really|very|so) (?:bad|badly|heavily|much)\b",
            r"\bwon't stop bleeding\b",
            r"\bspurting\b",
            r"\bblood everywhere\b",
            r"\bpool of blood\b",
            r"\bamputat(?:ed|ion)\b",
            r"\bhemorrhag(?:e|ing)\b",
        ),
    ),
    PhraseRule(
        "A-ANAPHYLAXIS",
        1,
        A,
        "Anaphylaxis: airway swelling after an exposure",
        (
            r"\banaphyla(?:xis|ctic)\b",
            r"\bthroat (?:is )?(?:closing|swelling|swollen|tight)\b",
            r"\b(?:tongue|lips?) (?:is |are )?(?:swelling|swollen)\b",
            r"\bswelling (?:of|in) (?:the |his |her )?(?:throat|tongue)\b",
        ),
    ),
    PhraseRule(
        "A-SEIZURE-ONGOING",
        1,
        A,
        "Ongoing seizure",
        (
            r"\b(?:still|actively|currently|continuously) (?:seizing|convulsing|having a seizure)\b",
            r"\bstatus epilepticus\b",
            r"\bseizure (?:won't|will not|hasn't|has not) stop",
            r"\b(?:seizing|convulsing) (?:continuously|nonstop|non-stop|for (?:over )?\d+ minutes)\b",
            r"\b(?:seizing|convulsing)\b[^.]{0,30}\b(?:won't|will not) stop\b",
        ),
    ),
    PhraseRule(
        "B-SEIZURE",
        2,
        B,
        "Seizure now or just now",
        (
            r"\bhaving a seizure\b|\b(?:is |are )?seizing\b|\bconvuls(?:ing|ions?)\b",
            r"\b(?:had|has had) (?:a|another) seizure\b",
            r"\bfitting\b",
        ),
    ),
    PhraseRule(
        "A-HANGING-DROWNING",
        1,
        A,
        "Hanging, drowning or electrocution",
        (
            r"\bhanging\b",
            r"\bhanged (?:him|her|them)sel(?:f|ves)\b",
            r"\bdrown(?:ed|ing)\b",
            r"\bpulled (?:him|her|them) out of the (?:water|pool)\b",
            r"\belectrocut(?:ed|ion)\b",
        ),
    ),
    PhraseRule(
        "B-STROKE-SIGNS",
        2,
        B,
        "Stroke signs (face, arm, speech)",
        (
            r"\bstroke\b",
            r"\b(?:face|facial) (?:is )?droop",
            r"\bdrooping (?:face|mouth|on one side)\b",
            r"\bslurr(?:ed|ing) (?:speech|words)\b",
            r"\bspeech (?:is )?slurred\b",
            r"\b(?:one|left|right) (?:side|arm|leg) (?:is )?(?:weak|numb|limp|paraly[sz]ed)\b",
            r"\bsudden (?:weakness|numbness|confusion|trouble (?:speaking|seeing|walking))\b",
            r"\bcan't (?:move|lift|feel) (?:his|her|their|my) (?:left|right) (?:arm|leg|side)\b",
            r"\bhemipare|\bhemiplegi|\baphasi|\bparapare|\bparapleg|\bquadripare",
            r"\b(?:(?:lt|rt|left|right)\.? )?(?:side |sided )?motor weakness\b",
            r"\b(?:lt|rt|left|right)\.? ?(?:side|sided) weakness\b",
        ),
    ),
    PhraseRule(
        "B-CHEST-PAIN-RISK",
        2,
        B,
        "Chest pain with risk signs (possible acute coronary syndrome)",
        (
            r"\bchest (?:pain|pressure|tightness|discomfort|heaviness)\b",
            r"\b(?:pain|discomfort|pressure|tightness),? (?:in |on )?(?:the |his |her |my )?chest\b(?! wall)",
            r"\b(?:heart attack|crushing pain)\b",
            r"\b(?:elephant|weight|pressure) on (?:his|her|my|their|the) chest\b",
        ),
        context=(
            r"\bsweat(?:y|ing)\b",
            r"\bdiaphoretic\b",
            r"\bclammy\b",
            r"\bradiat(?:es|ing) (?:to|down|into)\b",
            r"\b(?:into|down|to) (?:the |his |her |my )?(?:left )?(?:arm|jaw|back|shoulder)\b",
            r"\bshort(?:ness)? of breath\b",
            r"\b(?:trouble|difficulty) breathing\b",
            r"\bnause(?:a|ous)\b",
            r"\bvomit",
            r"\b(?:history of|had a) (?:heart|cardiac|mi\b|stent|bypass)",
            r"\bcardiac history\b",
            r"\b(?:[3-9]\d|1[01]\d)[\s-]*(?:years?|yrs?|y/?o|yo)\b",
            r"\bdiabet",
            r"\bpale\b",
            r"\bdizz",
            r"\bfaint",
            r"\bcrushing\b",
            r"\bpressure\b",
            r"\bambulance\b",
        ),
    ),
    PhraseRule(
        "B-GI-BLEEDING",
        2,
        B,
        "Gastrointestinal bleeding (vomiting blood, black or bloody stool)",
        (
            r"\bhematemesis\b|\bhaematemesis\b|\bmelena\b|\bhematochezia\b",
            r"\b(?:vomiting|throwing up|coughing up) blood\b",
            r"\b(?:black|tarry|bloody) (?:stools?|poop)\b",
        ),
    ),
    PhraseRule(
        "B-SUICIDAL",
        2,
        B,
        "Suicidal intent or self-harm",
        (
            r"\bsuicid(?:al|e)\b",
            r"\b(?:kill|hurt|harm) (?:him|her|my|them)sel(?:f|ves)\b",
            r"\bend (?:his|her|my|their) life\b",
            r"\bwants? to die\b",
            r"\boverdos(?:e|ed) on purpose\b",
            r"\bself[- ]harm",
            r"\bcut (?:his|her|their|my) wrists?\b",
        ),
    ),
    PhraseRule(
        "B-VIOLENCE-THREAT",
        2,
        B,
        "Threat of violence or weapon on scene",
        (
            r"\b(?:has|with|holding|pointing) a (?:gun|knife|weapon)\b",
            r"\bthreatening to (?:kill|hurt|shoot|stab)\b",
            r"\bhomicidal\b",
        ),
    ),
    PhraseRule(
        "B-PENETRATING-TRAUMA",
        2,
        B,
        "Gunshot or stab wound, or a high-energy mechanism",
        (
            r"\b(?:shot|gunshot|gsw|stabbed|stab wound|impaled)\b",
            r"\bejected\b",
            r"\brolled over\b|\brollover\b",
            r"\b(?:hit|struck|run over) by a (?:car|truck|vehicle|bus|train)\b",
            r"\bpedestrian (?:struck|hit|vs)\b",
            r"\bmotorcycle (?:crash|accident|collision)\b",
            r"\bfell (?:from|off) (?:a |the )?(?:roof|ladder|balcony|building|scaffold"
            r"|(?:\d+|two|three|four|five) (?:stor(?:y|ies)|floors?))\b",
            r"\bhigh[- ]speed (?:crash|collision|mvc|accident)\b",
        ),
    ),
    PhraseRule(
        "B-ALTERED-MENTAL-STATUS",
        2,
        B,
        "New confusion, lethargy or disorientation",
        (
            r"\bconfus(?:ed|ion)\b",
            r"\bdisoriented\b",
            r"\blethargic\b",
            r"\baltered (?:mental status|level of consciousness|mentation)\b",
            r"\b(?:not making sense|talking nonsense)\b",
            r"\bacting (?:strange|strangely|weird|funny|odd)\b",
            r"\bmental (?:status )?changes?\b",
            r"\b(?:very )?(?:drowsy|hard to wake|difficult to rouse)\b",
            r"\bin and out of consciousness\b",
            r"\bpassed out\b|\bfainted\b|\bsyncop",
            r"\bcollapsed\b",
            r"\b(?:responds?|responding) (?:only )?to voice\b",
        ),
    ),
    PhraseRule(
        "B-RESPIRATORY-DISTRESS",
        2,
        B,
        "Respiratory distress",
        (
            r"\b(?:can't|cannot|can not|unable to) (?:breathe|catch (?:his|her|my|their) breath)\b",
            r"\b(?:struggling|fighting|gasping) (?:to|for) (?:breathe|breath|air)\b",
            r"\b(?:severe|bad|really bad) (?:asthma attack|shortness of breath|difficulty breathing)\b",
            r"\bcan (?:only|barely) (?:speak|talk) (?:in )?(?:a few|single|one) words?\b",
            r"\brespiratory distress\b",
        ),
    ),
    PhraseRule(
        "B-SEVERE-PAIN",
        2,
        B,
        "Severe pain or distress",
        (
            r"\bworst (?:pain|headache) (?:of|in) (?:his|her|my|their) life\b",
            r"\b(?:excruciating|unbearable|agonizing|severe) (?:\w+ ){0,2}(?:pain|headache)\b",
            r"\bscreaming (?:in|with) pain\b",
            r"\bthunderclap\b",
        ),
    ),
    PhraseRule(
        "B-OVERDOSE-POISONING",
        2,
        B,
        "Overdose or poisoning",
        (
            r"\boverdos(?:e|ed|ing)\b",
            r"\b(?:took|swallowed|ate) (?:a (?:whole )?(?:bottle|handful|bunch)|all) (?:of )?"
            r"[\w' ]{0,25}?(?:pills|tablets|medications?|meds)\b",
            r"\bpoison(?:ed|ing)\b",
            r"\bcarbon monoxide\b",
            r"\bnarcan\b|\bnaloxone\b",
        ),
    ),
    PhraseRule(
        "B-OBSTETRIC",
        2,
        B,
        "Obstetric emergency: active labour, bleeding in pregnancy",
        (
            r"\bcrowning\b",
            r"\bbaby is coming\b|\bbaby's coming\b|\bhaving the baby\b|\bgiving birth\b",
            r"\bpregnant\b[^.]{0,40}\bbleeding\b",
            r"\bpregnant\b[^.]{0,60}\b(?:headache|blurr(?:y|ed) vision|seizure)",
            r"\bbleeding\b[^.]{0,40}\bpregnant\b",
            r"\bcord (?:is )?(?:out|prolapse)",
            r"\b(?:eclampsia|placental abruption)\b",
        ),
    ),
    PhraseRule(
        "B-HEAD-INJURY-RISK",
        2,
        B,
        "Head injury with loss of consciousness, anticoagulation or vomiting",
        (
            r"\bhit (?:his|her|their|my) head\b",
            r"\bhead (?:injury|trauma|wound)\b",
            r"\bstruck (?:his|her|their) head\b",
        ),
        context=(
            r"\b(?:knocked out|lost consciousness|loss of consciousness|\bloc\b|blacked out)\b",
            r"\bblood thinners?\b|\banticoagul|\bwarfarin\b|\beliquis\b|\bxarelto\b|\bcoumadin\b",
            r"\bvomit",
            r"\bseizure\b",
        ),
    ),
    PhraseRule(
        "B-MAJOR-BURN",
        2,
        B,
        "Major burn or airway burn",
        (
            r"\bburn(?:s|ed)? (?:to|on) (?:the |his |her |their )?(?:face|airway|neck|chest|whole)\b",
            r"\bsinged (?:nose hairs|eyebrows)\b",
            r"\b(?:large|extensive|major|severe) burns?\b",
            r"\bhouse fire\b[^.]{0,60}\b(?:burn|smoke)",
            r"\bsmoke inhalation\b",
        ),
    ),
    PhraseRule(
        "B-SEPSIS-NEUTROPENIA",
        2,
        B,
        "Fever in a high-risk patient (chemotherapy, transplant, newborn)",
        (r"\bfever\b", r"\bfebrile\b", r"\bhigh temperature\b"),
        context=(
            r"\bchemo",
            r"\btransplant\b",
            r"\bneutropeni",
            r"\bnewborn\b",
            r"\b(?:\d|1\d|2[0-7])[\s-]*days?[\s-]*old\b",
        ),
    ),
    PhraseRule(
        "B-HYPOGLYCEMIA-DKA",
        2,
        B,
        "Diabetic emergency",
        (
            r"\b(?:blood sugar|glucose|bgl|bg)\s*(?:(?:is|of|at|was|:)\s*)?(?:[1-4]\d|[1-9])\b",
            r"\b(?:very )?low (?:blood )?sugar\b",
            r"\bsugar (?:is |was )?(?:very |really |extremely )?low\b",
            r"\bhypoglyc",
            r"\bdka\b|\bketoacidosis\b",
        ),
    ),
    PhraseRule(
        "B-ANAPHYLAXIS-RISK",
        2,
        B,
        "Allergic reaction with hives or swelling",
        (r"\ballergic reaction\b", r"\bhives\b", r"\bepi-?pen\b"),
        context=(
            r"\bswell",
            r"\bwheez",
            r"\bbreath",
            r"\bdizz",
            r"\bvomit",
            r"\bepi-?pen\b",
            r"\bbee sting\b",
            r"\bpeanut",
        ),
    ),
)


@dataclass(frozen=True, slots=True)
class VitalLimits:
    """ESI danger-zone limits for one age band (handbook v4): HR and RR above, SpO2 below."""

    max_age_years: float
    heart_rate: float
    respiratory_rate: float


DANGER_ZONES = (
    VitalLimits(0.25, 180, 50),  # under 3 months
    VitalLimits(3.0, 160, 40),  # 3 months to 3 years
    VitalLimits(8.0, 140, 30),  # 3 to 8 years
    VitalLimits(200.0, 100, 20),  # older than 8
)
DANGER_SPO2 = 92.0


def _limits_for(age: float | None) -> VitalLimits:
    years = 30.0 if age is None else age
    return next(limits for limits in DANGER_ZONES if years <= limits.max_age_years)


def _evidence(
    rule_id: str, level: int, point: DecisionPoint, description: str, reading: Reading, floor: bool = True
) -> Evidence:
    return Evidence(rule_id, level, point, description, reading.start, reading.end, reading.text, floor)


ADVISORY_RULES = frozenset({"D-HEART-RATE", "D-RESP-RATE", "B-PAIN-SCORE", "D-TEMPERATURE"})
"""Danger-zone flags the ESI handbook says to *consider*: shown as evidence and used as features, but they set
no floor (on KTAS ED1, a heart rate over 100 meant level 1-2 in only 15 % of cases, pain 7/10+ in 13 %)."""


def _vital_rules(vitals: Vitals) -> list[Evidence]:
    """Danger-zone (D, ESI 2) and extreme (A, ESI 1) vital signs."""
    hits: list[Evidence] = []
    age = vitals.age_years.value if vitals.age_years else None
    limits = _limits_for(age)
    adult = age is None or age > 8
    checks: list[tuple[Reading | None, Callable[[float], bool], Callable[[float], bool], str, str]] = [
        (
            vitals.heart_rate,
            lambda v: v > limits.heart_rate or (adult and v < 50),
            lambda v: v >= 180 or v < 40 if adult else v >= limits.heart_rate + 40 or v < 60,
            "D-HEART-RATE",
            "heart rate",
        ),
        (
            vitals.respiratory_rate,
            lambda v: v > limits.respiratory_rate or v < 10,
            lambda v: v >= 40 or v <= 6 if adult else v >= limits.respiratory_rate + 20 or v <= 8,
            "D-RESP-RATE",
            "respiratory rate",
        ),
        (vitals.spo2, lambda v: v < DANGER_SPO2, lambda v: v < 85, "D-SPO2", "oxygen saturation"),
        (vitals.systolic_bp, lambda v: v < 90, lambda v: v < 70, "D-HYPOTENSION", "systolic blood pressure"),
        (vitals.gcs, lambda v: v <= 13, lambda v: v <= 8, "D-GCS", "Glasgow coma scale"),
        (
            vitals.temperature_c,
            lambda v: v >= 40.0 or v < 35.0,
            lambda v: v < 32.0 or v >= 41.5,
            "D-TEMPERATURE",
            "temperature",
        ),
        (vitals.pain_score, lambda v: v >= 7, lambda v: False, "B-PAIN-SCORE", "pain score"),
    ]
    temperature = vitals.temperature_c
    if temperature is not None and age is not None and age < 0.08 and temperature.value >= 38.0:
        hits.append(_evidence("B-NEONATAL-FEVER", 2, DecisionPoint.B, "fever in a baby under 28 days", temperature))
    for reading, danger, extreme, rule_id, name in checks:
        if reading is None:
            continue
        if extreme(reading.value):
            hits.append(_evidence("A-EXTREME-VITALS", 1, DecisionPoint.A, f"extreme {name}", reading))
        elif danger(reading.value):
            point = DecisionPoint.B if rule_id.startswith("B-") else DecisionPoint.D
            label = "severe pain (7/10 or more)" if rule_id.startswith("B-") else f"danger-zone {name}"
            hits.append(_evidence(rule_id, 2, point, label, reading, floor=rule_id not in ADVISORY_RULES))
    return hits


_COMPILED = [(rule, *rule.compiled()) for rule in PHRASE_RULES]
# Red flags worded as negations ("not breathing", "no pulse", "won't wake up") must not negate what follows
# them ("not breathing and has no pulse"), so they are masked before negation scopes are looked for.
_NEGATIVE_FORM = re.compile(
    r"\b(?:no|not|isn't|is not|wasn't|won't|will not|can't|cannot|doesn't|does not|stopped)\b", re.I
)
_SELF_NEGATED = [
    compiled
    for rule, patterns, _ in _COMPILED
    for raw, compiled in zip(rule.patterns, patterns, strict=True)
    if _NEGATIVE_FORM.search(raw.replace("\\b", " ").replace("(?:", " "))
]


def _mask_negative_red_flags(text: str) -> str:
    masked = text
    for pattern in _SELF_NEGATED:
        masked = pattern.sub(lambda match: "x" * len(match.group(0)), masked)
    return masked


def _first_unnegated(
    patterns: list[re.Pattern[str]], text: str, masked: str, window_words: int = 6
) -> re.Match[str] | None:
    for pattern in patterns:
        for match in pattern.finditer(text):
            if not is_negated(masked, match.start(), window_words):
                return match
    return None


def evaluate_rules(text: str, vitals: Vitals | None = None) -> list[Evidence]:
    """Every red flag in the message, most urgent first; empty when none fires."""
    hits: list[Evidence] = []
    masked = _mask_negative_red_flags(text)
    for rule, patterns, context in _COMPILED:
        # A life threat is only taken as negated by a negation right before it ("not choking", "no agonal").
        match = _first_unnegated(patterns, text, masked, 3 if rule.esi_level == 1 else 6)
        if match is None:
            continue
        if context and _first_unnegated(context, text, masked) is None:
            continue
        hits.append(
            Evidence(
                rule.rule_id,
                rule.esi_level,
                rule.decision_point,
                rule.description,
                match.start(),
                match.end(),
                match.group(0),
            )
        )
    hits.extend(_vital_rules(vitals if vitals is not None else extract_vitals(text)))
    return sorted(hits, key=lambda hit: (hit.esi_level, hit.start, hit.rule_id))


def rules_floor(hits: list[Evidence]) -> int | None:
    """The most urgent level the rules demand (advisory flags excluded), or None."""
    return min((hit.esi_level for hit in hits if hit.floor), default=None)


RULE_IDS = (
    *(rule.rule_id for rule in PHRASE_RULES),
    "A-EXTREME-VITALS",
    "D-HEART-RATE",
    "D-RESP-RATE",
    "D-SPO2",
    "D-HYPOTENSION",
    "D-GCS",
    "D-TEMPERATURE",
    "B-PAIN-SCORE",
    "B-NEONATAL-FEVER",
)
