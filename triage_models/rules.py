"""Red-flag safety rules (ESI decision points A, B and D): deterministic, versioned, each with an id.

They can only raise urgency: the final level is the more urgent of the classifier's and the rules'. A phrase
rule fires when one of its patterns matches and is not negated ("denies chest pain", "no bleeding"); a rule
with `context` patterns also needs one of those, not negated, anywhere in the message (chest pain *with* a risk
sign). Vital-sign rules use the ESI handbook's danger zones, by age.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from triage_models.context import HAND_WRITTEN, Context, ContextReader
from triage_models.language import rule_languages
from triage_models.prefilter import may_match, rule_literals
from triage_models.result import DecisionPoint, Evidence
from triage_models.rules_es import SPANISH_NEGATIVE_FORM, SPANISH_RULES
from triage_models.transcript import ReadableText, readable
from triage_models.vitals import Reading, Vitals, extract_vitals

RULES_VERSION = "rules-2026.11.5"


KEPT = -1
"""`PhraseRule.if_resolved`: the rule keeps its level when the episode is over."""


@dataclass(frozen=True, slots=True)
class PhraseRule:
    """A red flag recognised by wording."""

    rule_id: str
    esi_level: int
    decision_point: DecisionPoint
    description: str
    patterns: tuple[str, ...]
    context: tuple[str, ...] = ()
    if_resolved: int | None = KEPT
    """The floor when the caller says the episode is over ("coughed it out, talking now"): KEPT (the rule's own
    level: most red flags stay high-risk after they pass, a TIA or a syncope among them), a less urgent level, or
    None (no floor: the finding is shown as advisory evidence)."""

    def wording(self, languages: tuple[str, ...] = ("en", "es")) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The patterns and context in these languages' wordings (English here, Spanish in `rules_es`)."""
        spanish = SPANISH_RULES.get(self.rule_id) if "es" in languages else None
        english = "en" in languages
        return (
            (*(self.patterns if english else ()), *(spanish.patterns if spanish else ())),
            (*(self.context if english else ()), *(spanish.context if spanish else ())),
        )


def _compile(pattern: str) -> re.Pattern[str]:
    """Case-insensitive, and contractions match with or without the apostrophe ("cant breathe", "wont wake")."""
    return re.compile(pattern.replace("n't", "n'?t").replace("'s ", "'?s "), re.IGNORECASE)


A, B = DecisionPoint.A, DecisionPoint.B

# Shared wording, reused by several rules. Every gap is bounded ([^.]{0,40}) so matching stays linear-time.
_FEVER = (
    r"\bfevers?\b|\bfebrile\b|\bhigh temp(?:erature)?\b|\bburning up\b|\brigors\b",
    r"\b(?:temp(?:erature)?|t)\.?(?: of| is| was| at|:)? ?(?:100\.[4-9]|10[1-6](?:\.\d)?|3[89](?:\.\d)?|4[01](?:\.\d)?)"
    r" ?(?:°|˚|degrees)? ?[cf]?\b",
)
_CHILD = (
    r"\b(?:[1-9]|1[0-2])[\s-]*(?:years?|yrs?|months?|mos?|weeks?|wks?|days?)[\s-]*old\b",
    r"\b(?:[1-9]|1[0-2]) ?(?:y/o|yo|m/o)\b",
    r"\b(?:baby|infant|toddler|newborn|neonate|child|kid|preschooler|pediatric|little (?:boy|girl|one))\b",
    r"\bmy (?:son|daughter|boy|girl)\b",
)
_NEONATE = (
    r"\b(?:\d|1\d|2[0-7])[\s-]*(?:days?|d)[\s-]*old\b|\b(?:\d|1\d|2[0-7]) ?d/o\b",
    r"\b(?:[1-3]|one|two|three)[\s-]*(?:weeks?|wks?)[\s-]*old\b",
    r"\bnewborn\b|\bneonat",
    r"\bborn (?:yesterday|today|last week|(?:\d|1\d|2[0-7]) days ago|(?:a|one|two|three|[1-3]) weeks? ago)\b",
)
_INFANT = (
    *_NEONATE,
    r"\b(?:[4-9]|1[0-2]|four|five|six|seven|eight|nine|ten|eleven|twelve)[\s-]*(?:weeks?|wks?)[\s-]*old\b",
    r"\b(?:[1-2]|one|two|1\.5)[\s-]*(?:months?|mos?|mths?)[\s-]*old\b|\b[12] ?m/o\b",
    r"\b(?:[2-8]\d)[\s-]*days?[\s-]*old\b",
)
_ELDERLY = (
    r"\b(?:6[5-9]|[7-9]\d|1[01]\d)[\s-]*(?:years?|yrs?|y/?o|yo)\b",
    r"\belderly\b|\bgeriatric\b|\bnursing home\b|\bgrand(?:ma|pa|mother|father)\b",
    r"\bblood thinners?\b|\banticoag|\bwarfarin\b|\beliquis\b|\bxarelto\b|\bcoumadin\b",
)
_PREGNANT = (
    r"(?:(?<!negative )(?<!neg )\bpregnan(?:t|cy)\b(?! test (?:is |was )?neg)|\bpreg\b|\b\d{1,2} ?(?:weeks?"
    r"|wks?) (?:gestation|along|ga)\b|\biup\b|\bg\d ?p\d"
    r"|positive (?:home )?pregnancy test|(?:\+|positive) ?(?:upt|hcg|preg)\b|\b(?:upt|hcg) (?:is |was )?(?:positive"
    r"|\+))"
)
_PREGNANCY_SIGN = (
    r"(?P<also>(?:vaginal |pv )?bleeding|\bvb\b|passing clots|(?:lower |severe |sharp |bad )?(?:abdominal|abd|belly"
    r"|stomach|pelvic|lower quadrant|llq|rlq) (?:pain|cramps)|pain (?:in|to) (?:the |her |my )?(?:lower )?(?:abdomen|"
    r"belly|stomach|pelvis)|(?:sharp |bad |severe |stabbing )?pain (?:low )?(?:on|in) (?:my|her|the) (?:left"
    r"|right|lower)"
    r" (?:side|belly)|shoulder tip)"
)
_LATE_PREGNANCY = (
    r"(?:\b(?:2[1-9]|3\d|4[0-2]) ?(?:weeks?|wks?)(?: pregnant| gestation| along| ga\b| iup\b| preg\b)|\bga (?:2[1-9]"
    r"|3\d"
    r"|4[0-2])\b|third trimester|3rd trimester|\b(?:[6-9]|six|seven|eight|nine) months pregnant"
    r"|\b(?:g\d ?p\d|pregnan\w*|iup)\b[^.]{0,20}?\b(?:2[1-9]|3\d|4[0-2]) ?(?:weeks?|wks?)\b)"
)
_PREECLAMPSIA_SIGN = (
    r"(?P<also>headache|blurr(?:y|ed) vision|vision (?:change|problem)s?|visual (?:change|disturbance)s?|seeing spots"
    r"|spots in (?:her|my) vision|ruq pain|epigastric pain|swelling (?:of|in) (?:her|my) face|facial swelling|seizure)"
)
_HISTORY_AHEAD = r"(?![^.]{0,25}\b(?:years? ago|months? ago|yrs ago|in (?:19|20)\d\d))"
_SUBSTANCES = (
    r"(?:button batter(?:y|ies)|disc batter(?:y|ies)|watch batter(?:y|ies)|magnets|magnet set|magnetic balls|buckyballs"
    r"|anti-?freeze|ethylene glycol"
    r"|methanol|windshield (?:washer )?fluid|lamp oil|kerosene|gasoline|lighter fluid|paint thinner|hydrocarbons?"
    r"|drain cleaner|oven cleaner|\blye\b|caustic|laundry (?:pod|packet|detergent pod)s?|detergent pods?|bleach"
    r"|rat poison|pesticide|insecticide|weed killer|iron (?:pills?|tablets?|supplements?)|prenatal vitamins"
    r"|(?:fentanyl|nicotine) (?:patch|liquid)|e-?cig(?:arette)? liquid|vape (?:juice|liquid))"
)
_EYE_CHEMICAL = (
    r"(?:chemicals?|bleach|acid|alkali|lye|ammonia|drain cleaner|oven cleaner|cement|concrete|lime|caustic"
    r"|battery acid|degreaser|pool chlorine)"
)
_INGEST = r"(?:swallowed|swallowing|ate|eaten|ingested|ingesting|ingestion of|drank|drinking|chewed|bit into|bit)"
# A few words between a verb and its object, never across a conjunction ("ate lunch and cleaned with bleach").
_WORD_GAP = r"(?:\s+(?!and\b|then\b|but\b|or\b|after\b|before\b|while\b|later\b)[\w'/-]+){0,4}?\s+"
_DRUGS = (
    r"(?:pills?|tablets?|tabs|capsules?|caps|meds|medications?|medicines?|tylenol|acetaminophen|paracetamol|aspirin"
    r"|ibuprofen|advil|motrin|aleve|benadryl|xanax|valium|klonopin|ativan|ambien|oxycodone|oxys?|percocets?"
    r"|vicodin|norcos?|lithium|seroquel|trazodone|amitriptyline|insulin|metformin)"
)
_HEIGHT_GAP = (
    r"(?:\s+(?:about|around|approx\.?|approximately|over|more than|greater than|at least|nearly|almost|roughly|from"
    r"|off|down|a|an|the|height|of|estimated|est\.?|some)){0,5}\s*[~>]?\s*"
)
_NOT_NORMAL_AHEAD = r"(?! (?:right|normal|normally|good|well|properly|too good|great|easy|easily)\b)"
"""'not breathing right' is abnormal breathing (A-NOT-BREATHING-NORMALLY needs the patient not awake), not apnoea."""
_BREATHING_SUBJECT = r"(?:[\w']+ ){0,3}?(?:still |even |really )?breathing\b"
"""Whom the caller does not know to be breathing ("if he's still breathing", "whether my dad is breathing")."""
_AWAKE_BEFORE = r"(?<!woke up )(?<!woken up )(?<!wakes up )(?<!waking up )(?<!woke )(?<!wakes )(?<!waking )"
"""A finding said of someone as they wake ("woke up gasping"): awake, whatever the finding."""
_AWAKE_AHEAD = (
    r"(?![^.]{0,40}?\b(?:he's|she's|he is|she is|they're|they are|is) (?:still |wide |fully )?(?:awake|alert|talking"
    r"|speaking|answering|sitting up)\b)"
)
"""A finding followed, within its sentence, by the patient being awake ("gasping, she's talking to me")."""
_LIMB_AHEAD = (
    r"(?! (?:in|to|at|on) (?:his |her |the |their |my )?(?:left |right |lt |rt )?(?:leg|foot|feet|arm|hand|limb"
    r"|wrist|ankle|toes?|fingers?))"
)

PHRASE_RULES: tuple[PhraseRule, ...] = (
    PhraseRule(
        "A-NOT-BREATHING",
        1,
        A,
        "Not breathing or agonal breathing",
        (
            r"\bnot breathing\b" + _NOT_NORMAL_AHEAD,
            r"\bno longer breathing\b",
            r"\bnot (?:moving|responding|conscious|awake) (?:or|nor|and not) breathing\b",
            r"\b(?:hasn't|has not|haven't|have not) been breathing\b",
            r"\b(?:isn't|is not|wasn't|stopped|stop) breathing\b" + _NOT_NORMAL_AHEAD,
            r"\bno (?:breathing|respirations?)\b",
            r"\bapn(?:o|e)ic\b",
            r"\bagonal\b",
            r"\bbarely breathing\b",
            # Gasping in someone awake ("woke up gasping", "gasping, she's talking to me") is breathlessness: an
            # awake patient is not in arrest. A-NOT-BREATHING-NORMALLY still reads it once they do not respond.
            _AWAKE_BEFORE + r"\bgasping\b(?! (?:for|to) (?:breath|air|breathe)\b)" + _AWAKE_AHEAD,
            r"\brespiratory arrest\b",
            r"\b(?:hardly|barely) (?:really )?breathing\b|\bnot (?:crying|moving|talking) (?:or|nor) breathing\b",
            r"\bbreathing (?:every|once every) (?:few|couple|\d+) (?:seconds|breaths)\b",
            r"\b(?:doesn't|does not|don't) (?:seem to be |look like (?:he's|she's|they're) )?breathing\b",
            r"\bno (?:sign|signs) of breathing\b|\bchest (?:isn't|is not|not) (?:moving|going up)\b",
        ),
        if_resolved=2,
    ),
    PhraseRule(
        "A-NOT-BREATHING-NORMALLY",
        1,
        A,
        "Not awake and not breathing normally (agonal: gasping, snoring, gurgling, 'breathing weird') or not known to"
        " be breathing: treat as cardiac arrest",
        # After the AHA guidelines for telecommunicator CPR (2020 guidelines; 2023 scientific statement on
        # telecommunicator CPR): a patient who does not respond and whose breathing is absent, abnormal (agonal) or
        # unknown to the caller is taken as in cardiac arrest, and compression instructions start.
        (
            r"\bgasping\b",
            r"\b(?:don't|do not|can't|cannot|can not|couldn't) (?:know|no|tell|see|hear|say)(?: for sure)?"
            r" (?:if|whether) " + _BREATHING_SUBJECT,
            r"\b(?:not sure|unsure|not certain|no idea|no clue)(?: (?:if|whether))? " + _BREATHING_SUBJECT,
            r"\bbreathing (?:really |very |all |kind of |kinda |real )?(?:weird|funny|strange|odd|wrong|off|slow|"
            r"shallow|irregular|noisy|loud)\b",
            r"\b(?:not|isn't|is not|isnt) breathing (?:right|normal(?:ly)?|good|well|properly)\b",
            r"\b(?:snoring|snorting|gurgling|gurgle|gargling|rattling)\b",
            r"\b(?:weird|funny|strange|gurgling|snoring|gasping|choking) (?:noises?|sounds?|breaths?)\b",
            r"\b(?:lips|face|skin|he|she|they|his lips|her lips) (?:is |are |looks? |turning |went |gone )?"
            r"(?:blue|purple|gray|grey)\b",
        ),
        context=(
            r"\bunconsc(?!iously)\w*|\b(?:unresponsive|passed out|out cold|knocked out|collapsed|limp|(?:not|isn't"
            r"|is not) (?:awake|"
            r"waking|moving|responding|answering)|(?:won't|wont|isn't|can't|cannot|doesn't) (?:wake|respond|answer"
            r"|open)|eyes"
            r" (?:rolled|are rolled|rolling)|found (?:him|her|them) (?:down|on the floor|on the ground))",
            r"\b(?:no responde|no despierta|inconsciente|desmayad[oa])\b",
            r"\b(?:floppy|limp|lifeless)\b",
        ),
        if_resolved=2,
    ),
    PhraseRule(
        "A-NO-PULSE",
        1,
        A,
        "No pulse or cardiac arrest",
        (
            # A pulse missing in one limb is limb ischaemia (B-LIMB-ISCHEMIA), not an arrest.
            r"\bno pulse\b" + _LIMB_AHEAD,
            r"\bpulseless\b(?! (?:and cold |cold )?(?:leg|foot|arm|hand|limb|extremity))",
            r"\bcardiac arrest\b",
            r"\bcode blue\b",
            r"\bcan't (?:find|feel|get) (?:a|his|her|their|any) pulse\b" + _LIMB_AHEAD,
            r"\b(?:doesn't|does not|don't|do not) have a pulse\b",
            r"\bno (?:heartbeat|heart beat|signs of life)\b",
            r"\b(?:he|she|they)'s dead\b|\b(?:he|she) is dead\b|\bi think (?:he|she)'s dead\b",
            r"\bheart (?:has )?stopped\b",
            r"(?<!history of )(?<!hx of )(?<!h/o )(?:\basystol(?:e|ic)\b|\bpea arrest\b"
            r"|\bpulseless electrical activity\b"
            r"|\bv-?fib\b|\bventricular fibrillation\b)",
        ),
    ),
    PhraseRule(
        "A-RESUSCITATION",
        1,
        A,
        "Resuscitation under way: CPR, compressions, defibrillation, pacing, assisted ventilation or intubation",
        (
            r"\b(?:doing|started|starting|performing|giving|continuing|continue|in progress|ongoing|bystander|"
            r"bystanders started|bystanders? doing|ems (?:is |are )?doing|they're doing|they are doing) cpr\b",
            r"\bcpr (?:in progress|ongoing|under ?way|started|initiated|being (?:done|performed|given)|continues|"
            r"continuing|x ?\d+|for (?:\d+|about|over|several)|prior to arrival|pta|by (?:bystanders?|ems|family|police"
            r"|fire|the|a|his|her))\b",
            r"\b(?:doing|started|starting|performing|giving|continuing|continue) (?:chest )?compressions\b",
            r"\bchest compressions\b|\bcompressions (?:in progress|ongoing|under ?way|started|being (?:done"
            r"|performed))\b",
            r"\baed\b[^.]{0,20}\b(?P<also>shocked|shock advised|advised (?:a )?shock|delivered (?:a )?shock|gave (?:a "
            r"|him |her"
            r" |them )?(?:a )?shocks?|fired)\b",
            r"\bshock(?:ed)? (?:him|her|them|the patient|pt)?(?: \d+ times| x ?\d| once| twice)? ?(?:with|by) (?:the "
            r"|an )"
            r"?aed\b",
            r"\bdefibrillated\b|\bcardioverted\b|\b(?:synchronized|synchronised) cardioversion\b",
            r"\b(?:externally|transcutaneous(?:ly)?) pac(?:ing|ed)\b|\b(?:transcutaneous|external) pacing\b"
            r"|\bpads on and"
            r" pacing\b|\bneedle decompression\b",
            r"\bbeing bagged\b|\bbagging (?:him|her|them|the patient|pt)\b|\bbvm\b|\bbag[- ]valve[- ]mask\b",
            r"\b(?:was |is |been |being |now |field )?intubated\b(?![^.]{0,20}\b(?:before|in the past|previously|years?"
            r" ago|as a child|last year))",
            r"\bking airway\b|\bi-gel\b|\bsupraglottic airway\b|\bendotracheal tube\b",
            r"\brosc\b|\breturn of spontaneous circulation\b|\bpost[- ]?arrest\b",
        ),
    ),
    PhraseRule(
        "A-UNRESPONSIVE",
        1,
        A,
        "Unresponsive or unconscious",
        (
            # "usually unresponsive" is a baseline, not a change.
            r"(?<!usually )(?<!normally )(?<!baseline )(?<!chronically )\bunresponsive\b",
            # "unconscience", "unconsciousness": speech-to-text writes the word in forms too far for the spelling fix.
            r"\bunconsc(?!iously)\w*",
            r"\b(?:won't|will not|can't|cannot|doesn't|does not) (?:wake up|be woken|be roused|respond)\b",
            r"\b(?:not|isn't|wasn't) (?:responding|responsive|conscious|waking(?: up)?|rousable|arousable)\b",
            r"\bcan't (?:really |even |quite )?(?:wake|rouse) (?:him|her|them)(?: up)?\b",
            r"\bno response to (?:voice|pain|stimuli)\b",
            r"\bunarousable\b",
            r"\b(?:responds?|responding|reacts?) only to pain\b",
            r"\bonly (?:responds?|reacts?|moves|moans|groans) (?:to|when (?:i|we) (?:pinch|shake|rub))\b",
            r"\b(?:barely|hardly) (?:responsive|responding|conscious|awake|arousable)\b",
            r"\b(?:isn't|is not|not|isnt) (?:waking|wakin)\b|\bout cold\b",
            r"\b(?:won't|will not|can't|cannot|doesn't) (?:open (?:his|her|their) eyes|answer (?:me|us)|respond to"
            r" (?:me|us|anything|his name|her name))\b",
            r"\bcan't (?:get|make) (?:him|her|them) (?:to )?(?:wake|respond|answer)\b",
        ),
        if_resolved=2,
    ),
    PhraseRule(
        "A-CHOKING",
        1,
        A,
        "Choking or airway obstruction",
        (
            r"\bchoking\b(?! (?:him|her|me|them)\b)",
            r"\bchoked on\b",
            r"\bairway (?:obstruction|obstructed|blocked)\b",
            r"\bsomething stuck in (?:his|her|their|my) throat\b",
            r"\b(?:can't|cannot|can not|isn't able to) (?:make a sound|make any sound|cough or (?:talk|speak|breathe)"
            r"|talk or (?:breathe|cough)|speak or (?:breathe|cough))\b",
            r"\b(?:grabbing|clutching|holding|pointing at) (?:at )?(?:his|her|their|my) (?:throat|neck)\b",
            r"\b(?:food|something|a \w+|piece of \w+) (?:is )?(?:stuck|caught|lodged) in (?:his|her|their|my) "
            r"(?:throat|windpipe|airway)\b",
            # A colour change last: the evidence quotes an obstruction when the caller names one (the card follows it).
            r"\bturning blue\b",
            r"\b(?:lips|face) (?:are |is )?(?:blue|purple)\b",
            r"\bcyanotic\b",
        ),
        if_resolved=None,
    ),
    PhraseRule(
        "A-SEVERE-BLEEDING",
        1,
        A,
        "Severe or uncontrolled bleeding",
        (
            r"\b(?:severe|heavy|massive|uncontrolled|uncontrollable|profuse) bleeding\b",
            r"\bbleeding (?:heavily|profusely|out)\b",
            r"\bbleeding (?:really|very|so) (?:heavily|much)\b",
            r"\b(?:won't|will not|doesn't|does not|can't get it to) stop bleeding\b|\bbleeding (?:won't|will not"
            r"|doesn't)"
            r" stop\b",
            r"\bspurting\b|\bgushing\b|\bpumping (?:out )?blood\b",
            r"\b(?:soaking|soaked|bled) (?:right )?through\b",
            r"\bpool of blood\b",
            r"\bamputat(?:ed|ion)\b",
            r"\bhemorrhag(?:e|ing)\b",
        ),
        if_resolved=None,
    ),
    PhraseRule(
        "B-BLEEDING",
        2,
        B,
        "Bleeding a lot, not said to be uncontrolled",
        (
            r"\bbleeding (?:badly|a lot|everywhere|really bad|so bad|very bad)\b",
            r"\b(?:a lot of|lots of|so much) (?:blood|bleeding)\b|\bblood everywhere\b",
        ),
        if_resolved=None,
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
            r"\b(?:face|lips?|tongue|throat|mouth|eyes) (?:is |are )?(?:swelling|swollen|puffing|puffed) up\b[^.]{0,60}"
            r"\b(?:can't|cannot|cant|trouble|hard to|difficulty) (?:swallow|breathe|breathing|talk|swallowing)",
            r"\b(?:can't|cannot|trouble|hard to) (?:swallow|breathe)\b[^.]{0,40}\b(?:allergic|allergy|peanuts?|sting|"
            r"stung|bee|wasp|epi-?pen|shellfish)\b",
            r"\b(?:allergic|allergy|peanuts?|sting|stung|bee|wasp|shellfish)\b[^.]{0,80}\b(?:face|lips?|tongue|throat)"
            r" (?:is |are )?(?:swelling|swollen)\b",
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
            r"\b(?:shaking|jerking|twitching) (?:all over|uncontrollably|violently)\b|\b(?:arms|legs|body|whole body)"
            r" (?:and (?:arms|legs) )?(?:are |is )?(?:jerking|shaking|twitching|stiff and jerking)\b",
            r"\b(?:eyes|eyes are) (?:rolled|rolling) back\b[^.]{0,40}\b(?:shaking|jerking|foaming)\b|\bfoaming at the"
            r" mouth\b",
        ),
    ),
    PhraseRule(
        "A-HANGING-DROWNING",
        1,
        A,
        "Hanging, drowning or electrocution",
        (
            # Not "hanging out", "hanging up", or hanging something ("hanging a picture", "hanging the laundry").
            r"\bhanging\b(?! (?:out|up|on|onto|around|in there|loose|down|off|over|a|an|the|some|his|her|my|their|our"
            r"|pictures?|curtains|lights|laundry|clothes|decorations|wallpaper|drywall)\b)",
            r"\bhanged (?:him|her|them)sel(?:f|ves)\b",
            r"\bdrown(?:ed|ing)\b",
            r"\bpulled (?:him|her|them) out of the (?:water|pool)\b",
            # "pulled a little boy out of the deep end", "s/p submersion, pulled from pool" (a triage note).
            r"\bpulled (?:a|the|my|his|her|their|our) (?:\w+ ){0,2}?(?:out of|from) the (?:water|pool|deep end|lake"
            r"|river|canal|pond|sea|ocean)\b",
            r"\bpulled from (?:the )?(?:water|pool|lake|river|canal|pond|sea|ocean)\b|\bsubmersion\b",
            r"\belectrocut(?:ed|ion)\b",
        ),
    ),
    PhraseRule(
        "B-STRANGULATION",
        2,
        B,
        "Strangulation or a hanging attempt",
        (
            r"\bstrangl(?:ed|ing|ulation)\b",
            r"\bchok(?:ed|ing) (?:her|him|me|them)\b(?! on\b)",
            r"\b(?:hands?|arm|rope|cord|belt) (?:was |were )?around (?:her|his|my|their) (?:neck|throat)\b",
            r"\b(?:tried|trying|attempted|attempt) to hang\b|\b(?:hanging|suicide by hanging) attempt\b",
            r"\battempted hanging\b|\bs/p hanging\b|\bligature (?:mark|around|on)",
        ),
    ),
    PhraseRule(
        "B-STROKE-SIGNS",
        2,
        B,
        "Stroke signs (face, arm, speech), or a stroke or TIA within hours",
        (
            # A stroke in the history ("had a stroke 4 years ago", "h/o CVA") is not a new one.
            r"(?<!history of )(?<!hx of )(?<!h/o )(?<!prior )(?<!previous )(?<!old )(?<!past )(?<!remote )(?<!hx )(?<!h"
            r"eat )"
            r"\b(?:stroke|cva|tia|mini[- ]stroke)\b" + _HISTORY_AHEAD,
            r"\bcode stroke\b|\bstroke alert\b|\blast (?:known|seen) (?:well|normal)\b|\blkw\b",
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
            r"\b(?:left|right|one) side of (?:my|his|her|the) (?:face|body|mouth)\b[^.]{0,40}\b(?:numb|droop|drooping"
            r"|weak|dead|tingl|heavy|gone|went)",
            r"\b(?:words|speech|talking) (?:are |is )?(?:coming out |come out )?(?:wrong|weird|funny|jumbled|garbled"
            r"|slurry"
            r"|all mixed up)\b|\bcan't (?:get|find) (?:my|his|her|the) words\b",
            r"\bworst headache (?:of|in) (?:my|his|her|their) (?:whole )?life\b|\bthunderclap\b|\b(?:sudden|explosive)"
            r" (?:severe |terrible |horrible )?headache\b",
        ),
    ),
    PhraseRule(
        "B-VISION-LOSS",
        2,
        B,
        "Sudden loss of vision",
        (
            r"\b(?:sudden|acute|abrupt|painless|new|transient) (?:\w+ )?(?:loss of vision|vision loss|visual loss"
            r"|blindness)\b",
            r"(?<!gradual )(?<!progressive )(?<!chronic )\b(?:loss of vision|vision loss|visual loss)\b",
            r"\b(?:can't|cannot|couldn't|could not|unable to) see (?:out of|with|from) (?:my |his |her |their |the |one"
            r" |either |both )?(?:left |right |lt |rt )?eyes?\b",
            r"\b(?:lost|losing) (?:the |all |his |her |my )?(?:vision|sight) (?:in|of|out of)\b",
            r"\bwent blind\b|\bsuddenly blind\b|\bamaurosis\b|\bcurtain (?:over|coming down|came down)\b",
        ),
    ),
    PhraseRule(
        "B-CHEMICAL-EYE",
        2,
        B,
        "Chemical (acid or alkali) in the eye",
        (
            r"\b"
            + _EYE_CHEMICAL
            + r" (?:\w+ ){0,2}?(?:splashed |sprayed |squirted |got |went |spilled )?(?:in|into|to)"
            r" (?:the |his |her |my |their |both |one |left |right ){0,3}eyes?\b",
            r"\b(?:splashed|sprayed|squirted|got|spilled)\b (?:some |a little |a lot of )?"
            + _EYE_CHEMICAL
            + r" (?:\w+ )?"
            r"(?:in|into) (?:the |his |her |my |their |both |one |left |right ){0,3}eyes?\b",
            r"\beyes? (?:was |were |got )?(?:splashed|sprayed|exposed|burned|burnt) (?:with|by|to) (?:some |a |an )?"
            + _EYE_CHEMICAL,
            r"\b(?:chemical|alkali|acid) (?:burns?|exposure|splash|injury) (?:to|in|of) (?:the |his |her |my |both |"
            r"left |right )?eyes?\b|\bocular (?:chemical|alkali|acid) ",
        ),
    ),
    PhraseRule(
        "B-CHEST-PAIN-RISK",
        2,
        B,
        "Chest pain with risk signs (possible acute coronary syndrome, cocaine chest pain)",
        (
            r"\bchest (?:pain|pressure|tightness|discomfort|heaviness)\b",
            r"\b(?:pain|discomfort|pressure|tightness),? (?:in |on )?(?:the |his |her |my )?chest\b(?! wall)",
            r"\b(?:heart attack|crushing pain)\b",
            r"\b(?:elephant|weight|pressure) on (?:his|her|my|their|the) chest\b",
            r"\bchest (?:has )?(?:felt|feels|feeling|is) (?:heavy|tight|like (?:a weight|an elephant|pressure"
            r"|someone))",
            r"\b(?:heavy|tight|squeezing|crushing) (?:feeling|sensation)? ?in (?:my|his|her|the) chest\b",
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
            r"\bcocaine\b|\bcrack\b|\bmeth(?:amphetamine)?\b|\bamphetamines?\b|\bstimulants?\b",
        ),
    ),
    PhraseRule(
        "B-AORTIC-DISSECTION",
        2,
        B,
        "Tearing or ripping pain (possible aortic dissection or ruptured aneurysm)",
        (
            r"\b(?:tearing|ripping) (?:pain|sensation|feeling)\b",
            r"\b(?:feels? like|as if) (?:something|someone|it) (?:is |was )?(?:tearing|ripping)\b",
            r"\bripping (?:me|him|her) apart\b|\btearing (?:me|him|her) apart\b",
            r"\b(?:tearing|ripping) (?:in|through|into|to) (?:my |his |her |the )?(?:chest|back|abdomen|belly"
            r"|stomach)\b",
            r"\b(?:chest|back|abdominal|abd|belly|stomach) pain\b[^.]{0,25}\b(?:tearing|ripping)\b",
            r"\baortic dissection\b|\bdissecting aneurysm\b|\b(?:ruptured|leaking) (?:aortic |abdominal )?aneurysm\b",
            r"\baneurysm (?:rupture|ruptured|leaking)\b|\bpulsatile (?:abdominal )?mass\b",
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
            r"\bcoffee[- ]grounds? (?:emesis|vomit(?:us)?)\b|\bvomit(?:ing|ed)? (?:what looks like )?coffee[- ]grounds?"
            r"\b",
            r"\bblack(?:,? (?:and )?(?:sticky|tarry|tar-like|smelly))? (?:stools?|poops?|bowel movements?)\b"
            r"|\b(?:stools?|"
            r"poop) (?:is |are |look |looks )?(?:black|like tar)\b",
        ),
    ),
    PhraseRule(
        "B-GI-BLEED-RISK",
        2,
        B,
        "Rectal or GI bleeding in an elderly or anticoagulated patient",
        (
            r"\brectal bleed(?:ing)?\b|\bbleeding from (?:the |his |her |my )?(?:rectum|bottom|butt|back passage)\b",
            r"\bblood (?:in|with) (?:the |his |her |my )?(?:stools?|poop|bowel movements?)\b",
            r"\bbright red blood per rectum\b|\bbrbpr\b|\bblood per rectum\b|\bbpr\b",
            r"\b(?:gi|gastrointestinal) (?:bleed|bleeding|hemorrhage)\b|\bgib\b",
        ),
        context=(*_ELDERLY, r"\bdizz", r"\bfaint", r"\bpale\b", r"\bweak\b", r"\blightheaded\b"),
    ),
    PhraseRule(
        "B-SUICIDAL",
        2,
        B,
        "Suicidal ideation or intent, self-harm, or command hallucinations",
        (
            r"\bsuicid(?:al|e)\b",
            r"\b(?:kill|hurt|harm|shoot|hang|killing|hurting|harming|shooting|hanging) (?:him|her|my|them"
            r"|your)sel(?:f|ves)"
            r"\b",
            r"\b(?:going|gonna|wants?|threatening|threatened) to (?:drive|crash|jump|walk)\b[^.]{0,30}\b(?:into|off|in"
            r" front of) (?:the |a )?(?:river|lake|bridge|train|traffic|wall|tree|ocean|building)\b",
            r"\bend (?:his|her|my|their) (?:own )?life\b|\btake (?:his|her|my|their) own life\b|\bend it all\b",
            r"\bwants? to die\b|\b(?:doesn't|does not|don't|do not) want to (?:live|be alive)\b|\bbetter off dead\b",
            r"\boverdos(?:e|ed) on purpose\b",
            r"\bself[- ]+(?:harm|inflicted|injur)",
            r"\b(?:cut|slit|slashed) (?:his|her|their|my) (?:wrists?|throat|neck)\b|\bcutting (?:him|her|my"
            r"|them)sel(?:f|ves)\b",
            r"\b(?:threatening|threatened|going|wants?) to jump (?:off|from|in front)\b",
            r"(?:\+ ?|\b(?:positive for|endorses|endorsing|reports|reporting|has|having|with|c/o|admits to|expresses?"
            r"|active|passive) )si\b(?![\s-]*(?:joint|jt)\b)",
            r"\bsi (?:w/|with) (?:a )?plan\b|\bsi ?/ ?hi\b",
            r"\bvoices (?:are |were )?(?:telling|told|tell|commanding) (?:him|her|me|them) to (?:kill|hurt|harm|die"
            r"|jump)\b",
            r"\bcommand hallucinations?\b",
        ),
    ),
    PhraseRule(
        "B-VIOLENCE-THREAT",
        2,
        B,
        "Homicidal ideation, threat of violence, or weapon on scene",
        (
            r"\b(?:has|with|holding|pointing|swinging|waving|brandishing|pulled|pulling) (?:a|his|her) (?:gun|knife"
            r"|machete|weapon|bat|pistol|rifle)\b",
            r"\b(?:smashing|breaking|throwing) (?:the |all the )?(?:windows|furniture|dishes|things at)\b",
            r"\bthreatening to (?:kill|hurt|shoot|stab)\b",
            r"\bhomicidal\b",
            r"(?:\+ ?|\b(?:positive for|endorses|endorsing|reports|c/o|admits to|expresses?) )hi\b",
            r"\bhi (?:w/|with) (?:a )?plan\b|\bhi (?:towards?|against)\b",
            r"\b(?:wants?|wanted|going|plans?|planning|threatens?|threatened|urges?) to (?:hurt|kill|harm|shoot|stab"
            r"|murder)"
            r" (?:someone|somebody|people|others|everyone|everybody|his|her|my|their|him|them)\b",
            r"\bvoices (?:are |were )?(?:telling|told|tell|commanding) (?:him|her|me|them) to (?:kill|hurt|harm|attack"
            r"|shoot|stab) (?!(?:him|her|my|them|your)sel)",
            r"\bthoughts of (?:hurting|killing|harming) (?:others|someone|somebody|people|his|her|him|them)\b",
        ),
    ),
    PhraseRule(
        "B-ASSAULT-ABUSE",
        2,
        B,
        "Sexual assault, child abuse or elder abuse",
        (
            r"\brap(?:e|ed|ing)\b",
            r"\bsexual(?:ly)? (?:assault(?:ed)?|abus(?:e|ed)|molest(?:ed)?|attack(?:ed)?|violence)\b",
            r"\bmolest(?:ed|ation|ing)?\b|\bdate rape\b|\broofied\b|\bsane exam\b|\bs/p sa\b",
            r"\b(?:child|elder|elderly|spousal|physical|parental) (?:abuse|neglect|maltreatment)\b",
            r"\bnon-?accidental (?:trauma|injur(?:y|ies))\b|\bshaken baby\b|\bsuspected abuse\b",
            r"\b(?:abused|abusing|beaten|beating|hitting) (?:her|his|the|my|their) (?:child|baby|kid|son|daughter"
            r"|mother"
            r"|father|mom|dad|grand(?:mother|father|ma|pa))\b",
        ),
    ),
    PhraseRule(
        "B-DOMESTIC-VIOLENCE",
        2,
        B,
        "Domestic or intimate-partner violence with an injury",
        (
            r"\bdomestic (?:violence|assault|abuse|dispute|disturbance)\b|\bdv\b|\bintimate partner violence\b",
            r"\b(?:boyfriend|girlfriend|husband|wife|partner|ex|ex-(?:husband|wife|boyfriend|girlfriend)|spouse"
            r"|fianc[eé]e?"
            r"|caregiver|caretaker|stepfather|stepdad|father|dad|mother|mom|son|daughter|grandson|pimp)\b[^.]{0,20}?"
            r"\b(?:beat|hit|punched|kicked|choked|strangled|attacked|assaulted|slapped|stomped on|threw) (?:him|me|them"
            r"|her(?=\s*(?:[.,;!?]|$|\s(?:in|on|with|and|up|until|again|so|badly|repeatedly|several|multiple|hard|last"
            r"|this|yesterday|today|tonight|around|down)\b)))\b",
            r"\b(?:beaten|beaten up|assaulted|attacked|hit|punched|kicked|choked|strangled) by (?:her|his|my|their|a)"
            r" (?:boyfriend|girlfriend|husband|wife|partner|ex|spouse|fianc[eé]e?|caregiver|son|daughter|father"
            r"|mother)\b",
        ),
        context=(
            r"\binjur|\bbruis|\bbleed|\blacerat|\blac\b|\bswell|\bswollen|\bpain\b|\bfractur|\bbroken\b|\bblack eye\b",
            r"\bstrangl|\bchok|\bbeat|\bpunch|\bkick|\bhit\b|\bslap|\bstomp|\bthrew\b|\bcut\b|\bwound|\bhurt",
            r"\bhead\b|\bface\b|\bpregnan|\bloc\b|\bunconscious\b|\bknocked out\b",
        ),
    ),
    PhraseRule(
        "B-PENETRATING-TRAUMA",
        2,
        B,
        "Gunshot, stab or impalement wound",
        (
            r"\b(?:gunshot|gsw|stabbed|stab wounds?|impaled|shotgun wound|stabbing)\b",
            r"\b(?:was|been|got|get|getting|is|he's|she's|i'm|i've been|being|accidentally) shot\b",
            r"\bshot (?:in|through|to) (?:the|his|her|my|their)\b|\bshot (?:him|her|them|me|myself|himself|herself)\b",
            r"\b(?:knife|bullet|arrow|nail gun|rebar|stick|pole)\b[^.]{0,20}\b(?:in|into|through) (?:his|her|my|their"
            r"|the)"
            r" (?:chest|abdomen|belly|stomach|neck|back|head|eye|groin|flank)\b",
        ),
    ),
    PhraseRule(
        "B-HIGH-RISK-MECHANISM",
        2,
        B,
        "High-risk mechanism: pedestrian or cyclist struck, ejection, rollover, death in the vehicle, motorcycle"
        " or high-speed crash, entrapment",
        (
            r"\bejected\b|\bejection\b(?! fraction)|\bthrown from (?:the|a|his|her|their) (?:car|vehicle|truck"
            r"|motorcycle"
            r"|horse|atv|bike|motorbike)\b",
            r"\brollover\b|\broll-over\b|\b(?:car|truck|vehicle|suv|van|jeep|atv|quad|tractor)\b[^.]{0,20}\b(?:rolled"
            r"(?: over)?|flipped)\b|\brolled (?:the|his|her|their) (?:car|truck|vehicle|suv|van|atv)\b",
            r"\b(?:pedestrian|ped|cyclist|bicyclist|jogger|skateboarder) (?:was )?(?:struck|hit|vs\.?|versus|run over"
            r"|knocked down)\b|\b(?:bicycle|bike|biker) (?:vs\.?|versus)\b",
            r"\b(?:auto|car|vehicle|mv|mvc|truck) (?:vs\.?|versus) (?:pedestrian|ped|bicycle|bike|bicyclist|cyclist)\b",
            r"\b(?:hit|struck|run over|ran over|knocked (?:down|over)|backed over|mowed down) by (?:a |an |the |his "
            r"|her |"
            r"their )?(?:\w+ )?(?:car|truck|vehicle|bus|train|van|suv|motorcycle|lorry|tractor|pickup|motor vehicle)\b",
            r"\b(?:car|truck|vehicle|bus|van|train|suv|driver) (?:hit|struck|ran over|backed over|knocked (?:down"
            r"|over))"
            r" (?:a |the |my |his |her )?(?:him|her|me|them|child|kid|boy|girl|son|daughter|pedestrian|cyclist|man"
            r"|woman|person)\b",
            r"\b(?:fatality|died|dead|deceased|killed|doa)\b[^.]{0,30}\b(?:same|in the) (?:car|vehicle)\b",
            r"\b(?:same|in the) (?:car|vehicle)\b[^.]{0,30}\b(?:died|dead|deceased|killed|fatality|doa)\b",
            r"\b(?:other )?(?:driver|passenger|occupant)s? (?:was |were |is |are )?(?:killed|dead|doa|deceased)\b",
            r"\b(?:motorcycle|motorbike|motor bike|dirt bike|moped|atv|quad bike|snowmobile)\b[^.]{0,15}\b(?:crash|"
            r"accident|collision|wreck|mva|mvc)\b|\bmcc\b|\bmotorcyclist\b",
            r"\bhigh[- ]speed\b[^.]{0,20}\b(?:crash|collision|mvc|mva|accident|wreck|impact|rollover)\b|\b(?:highway|"
            r"freeway|interstate) speeds?\b|\b(?:[5-9]\d|1\d\d) ?(?:mph|miles (?:per|an) hour|km/?h)\b",
            r"\b(?:prolonged )?extrication\b|\bextricated\b|\bentrapment\b|\b(?:trapped|pinned|entrapped) (?:in|inside"
            r"|under|beneath) (?:the |his |her |their |a )?(?:car|vehicle|truck|wreckage|machinery|tractor)\b",
            r"\b(?:significant|major|severe|massive) (?:\w+ )?intrusion\b|\bintrusion (?:into|of) the\b",
        ),
    ),
    PhraseRule(
        "B-FALL-FROM-HEIGHT",
        2,
        B,
        "Fall from height (over 20 feet, a roof, a ladder, a second storey or higher, a window)",
        (
            r"\b(?:fell|fallen|falling|fall|jumped|thrown|tumbled) (?:from|off|out of|through) (?:a |an |the |his "
            r"|her |"
            r"their )?(?:roof|rooftop|ladder|balcony|building|scaffold(?:ing)?|bridge|cliff|overpass|tree ?stand|deer "
            r"stand|hayloft|loft)\b",
            r"\b(?:fell|fallen|falling|fall|jumped|thrown|tumbled) (?:from|off|out of|through) (?:a |an |the |his "
            r"|her |"
            r"their )?(?:\d+|two|three|four|five|six|second|third|fourth|fifth|2nd|3rd|4th|5th)[- ](?:stor(?:y|ey|ies)"
            r"|floors?)\b",
            r"\b(?:fell|fallen|falling|jumped|thrown|tumbled) (?:from|out of) (?:a |an |the |his |her |their )?"
            r"(?:[\w-]+ ){0,2}window\b",
            r"\b(?:fell|fallen|fall|falling|jumped|dropped|tumbled)"
            + _HEIGHT_GAP
            + r"(?:2\d|[3-9]\d|\d{3}) ?(?:feet|foot"
            r"|ft|')(?:\W|$)",
            r"\b(?:fell|fallen|fall|falling|jumped)"
            + _HEIGHT_GAP
            + r"(?:[6-9]|[1-9]\d)(?:\.\d)? ?(?:m|meters?|metres?)\b",
            r"\b(?:2\d|[3-9]\d|\d{3})[- ]?(?:feet|foot|ft)[- ](?:fall|drop)\b|\bfall (?:>|over|more than) ?20 ?(?:feet"
            r"|ft)",
            r"\bfall from (?:a )?(?:significant |great |substantial |considerable )?height\b",
        ),
    ),
    PhraseRule(
        "B-PEDIATRIC-FALL",
        2,
        B,
        "Fall in a child from over 10 feet or two to three times the child's height",
        (
            r"\b(?:fell|fallen|fall|falling|jumped|dropped|tumbled)" + _HEIGHT_GAP + r"1\d ?(?:feet|foot|ft|')(?:\W|$)",
            r"\b(?:fell|fallen|fall|falling|jumped)" + _HEIGHT_GAP + r"[3-5](?:\.\d)? ?(?:m|meters?|metres?)\b",
            r"\b1\d[- ]?(?:feet|foot|ft)[- ](?:fall|drop)\b",
            r"\b(?:fell|fallen|falling|fall) (?:out of|from) (?:a |the )?tree\b",
            r"\b(?:[2-5]|two|three|twice|2-3|2 to 3) ?(?:x|times) (?:his |her |their |the child's |body "
            r"|own )?height\b",
        ),
        context=_CHILD,
    ),
    PhraseRule(
        "B-ELDERLY-FALL",
        2,
        B,
        "Fall down a flight of stairs in an elderly or anticoagulated patient",
        (
            r"\b(?:fell|fallen|falling|fall|tumbled|slipped)\b (?:down|from the top of) (?:a |the |some |several |\d+ |"
            r"(?:two|three|four|five|ten) )?(?:whole |full |entire )?(?:flights? of )?(?:stairs|steps|staircase"
            r"|stairway)\b",
            r"\b(?:on|lying on|laying on|stuck on) the (?:floor|ground)\b[^.]{0,40}\b(?:since (?:last night"
            r"|yesterday|this"
            r" morning)|for (?:hours|days|\d+ hours|a day|two days)|(?:can't|cannot|couldn't) get up)\b",
            r"\b(?:been|lying|laying) on the (?:floor|ground) (?:since|for|all night|overnight)\b|\b(?:lying"
            r"|laying) on the"
            r" floor\b[^.]{0,60}\b(?:days|mail|newspaper)\b",
        ),
        context=_ELDERLY,
    ),
    PhraseRule(
        "B-DIVING-INJURY",
        2,
        B,
        "Diving injury with neck pain or neurological signs (possible spinal injury)",
        (
            r"\b(?:dove|dived|diving|dive|jumped)\b[^.]{0,30}\b(?:shallow|pool|lake|river|water|creek|pond|quarry)\b",
            r"\bdiving (?:injury|accident)\b|\bshallow[- ]water div(?:e|ing)\b",
        ),
        context=(
            r"\bneck\b|\bc-?spine\b|\bcervical\b|\bnumb|\btingl|\bweak|\bcan't (?:move|feel)\b|\bparaly",
            r"\bhit (?:his|her|their|my) head\b|\bhead ?first\b|\b(?:hit|struck) the bottom\b|\bback pain\b",
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
            r"\bblack(?:ed|s)? out\b|\b(?:really |totally |kind of |kinda |completely )?out of it\b|\bmumbling\b",
            r"\bkeeps? (?:asking|repeating|saying) the same (?:questions?|things?)\b|\bsleepier than (?:usual"
            r"|normal)\b",
            r"\bhard to (?:keep|get) (?:him|her|them) (?:awake|up)\b",
        ),
    ),
    PhraseRule(
        "B-CARDIAC-SYNCOPE",
        2,
        B,
        "A racing or pounding heart with fainting, near-fainting or chest pain",
        (
            r"\bheart\b[^.]{0,10}\b(?:racing|pounding|beating (?:really |so |very )?fast|going (?:really |so )?fast)\b"
            r"[^.]{0,80}\b(?P<also>pass(?:ed)? out|black(?:ed)? out|faint|dizzy|lightheaded|chest pain)",
            r"\b(?:pass(?:ed)? out|black(?:ed)? out|fainted)\b[^.]{0,80}\bheart\b[^.]{0,10}\b(?P<also>racing|pounding"
            r"|beating (?:really |so |very )?fast)",
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
            # Gasping in someone awake ("woke up gasping") and breathlessness lying flat (orthopnoea: "has to sit up to
            # breathe", a sign of heart failure) are distress; gasping in someone who does not respond is A-NOT-*.
            r"\bgasping\b",
            r"\b(?:has to|have to|needs to|need to|must|can only) (?:sit|stand|prop (?:him|her|them|myself))"
            r"(?: up| upright| forward)?(?: on the (?:edge|side) of (?:the|his|her|my|their) bed)?(?: in order)? to"
            r" breathe\b",
            r"\b(?:can't|cannot|can not|unable to) (?:lie|lay) (?:down|flat)\b[^.]{0,30}\bbreath",
            r"\b(?:can't|cannot|can not) breathe (?:when |while |if )?(?:lying|laying) (?:down|flat)\b",
            r"\b(?:severe|bad|really bad) (?:asthma attack|shortness of breath|difficulty breathing)\b",
            r"\brespiratory distress\b",
            r"\b(?:working|breathing|trying) (?:really |very |so )?hard to breathe?\b|\bbreathing (?:really |very "
            r"|so )?"
            r"(?:hard|fast|heavy)\b",
            r"\b(?:can't|cannot) (?:get|catch) (?:a |any |enough )?(?:air|breath)\b|\bshort of breath\b[^.]{0,20}"
            r"\b(?:getting worse|worse|won't (?:stop|go away))\b",
            r"\b(?:inhaler|puffer|nebulizer|albuterol)\b[^.]{0,30}\b(?:not|isn't|isnt|doesn't|didn't|no longer)"
            r" (?:help|helping|work|working)\b",
            r"\bstridor\b|\bhigh[- ]pitched (?:noise|sound|squeak|whistle|wheeze)\b[^.]{0,30}\bbreathes? in\b"
            r"|\b(?:terribly|really|very|so|extremely) short of breath\b|\b(?:oxygen|o2)\b[^.]{0,20}\b(?:isn't"
            r"|is not|not|"
            r"doesn't|isnt) (?:help|helping|working)\b",
        ),
    ),
    PhraseRule(
        "A-SEVERE-RESPIRATORY-DISTRESS",
        1,
        A,
        "Severe respiratory distress: speaking in single words, retractions, grunting, tripod position, blue lips, pink"
        " frothy sputum",
        (
            # Pink frothy sputum is acute pulmonary oedema (AHA/ACC heart failure guideline, 2022); the ESI handbook
            # counts the non-invasive ventilation it needs as a life-saving intervention.
            r"\bcough\w*\b[^.]{0,30}\bpink\w*,? (?:and )?(?:froth\w*|foam\w*|bubbl\w*)"
            r"|\bpink\w*,? (?:and )?(?:froth\w*|foam\w*|bubbl\w*) (?:sputum|phlegm|spit|mucus)\b",
            r"\b(?:can|could) (?:only|barely|just) (?:speak|talk|say|get out) (?:in )?(?:a few|a couple of|single|one"
            r"|two|one or two|1 or 2) words?\b",
            r"\b(?:speaking|talking) (?:only )?(?:in )?(?:single|one|two|a few|one or two|short) words?\b|\bonly"
            r" (?:speaking|talking|saying|gets out) (?:a few|one|two|single|one or two) words?\b",
            r"\b(?:can't|cannot|can not|unable to) (?:finish|complete|get out) (?:a |his |her )?(?:sentence|word)s?\b",
            r"\b(?:retractions?|retracting)\b|\b(?:ribs|skin|chest|belly|neck|tummy|stomach)\b[^.]{0,25}\b(?:sucking"
            r"|sucks|pulling|sinking|caving) in\b",
            r"\bsucking in (?:at|around|between|under) (?:the |his |her )?(?:ribs|neck|collar ?bones?)\b",
            r"\bgrunting\b(?! (?:and|with) (?:pushing|straining|effort))",
            r"\btripod(?:ing)?\b|\bleaning forward (?:on|with) (?:his|her|their) (?:hands|arms|knees) to breathe\b",
            r"\bnostrils (?:are )?flaring\b|\bhead bobbing\b",
        ),
    ),
    PhraseRule(
        "A-SHOCK",
        1,
        A,
        "Shock: cold, clammy, grey or mottled skin, or fainting on standing with bleeding",
        (
            r"\bcold (?:and |n )?(?:clammy|sweaty)\b|\bclammy (?:and |n )?(?:cold|grey|gray|ashen|pale|white)\b",
            r"\b(?:grey|gray|ashen) (?:and |n )?(?:sweaty|clammy|cold)\b|\b(?:skin|face|he|she) (?:is |looks |went "
            r"|turned"
            r" )?(?:grey|gray|ashen|mottled)\b|\bmottled\b",
            r"\b(?:blood|bleeding|bled)\b[^.]{0,60}\b(?:faint(?:s|ed|ing)?|pass(?:es|ed)? out|black(?:s|ed)? out)"
            r"\b[^.]{0,25}\b(?:stand|stands|stood|standing|gets? up|getting up|sits? up)\b",
            r"\b(?:faint(?:s|ed|ing)?|pass(?:es|ed)? out|black(?:s|ed)? out)\b[^.]{0,25}\b(?:stand|stands|stood|"
            r"standing|gets? up|getting up|sits? up)\b[^.]{0,60}\b(?:blood|bleeding|bled)\b",
        ),
    ),
    PhraseRule(
        "B-PE-RISK",
        2,
        B,
        "Shortness of breath with risk factors for pulmonary embolism or peripartum heart failure",
        (
            r"\bshort(?:ness)? of breath\b|\bsob\b|\bdyspn(?:e|o)a\b|\b(?:trouble|difficulty) breathing\b",
            r"\bpleuritic (?:chest )?pain\b|\bhurts to (?:breathe|take a deep breath)\b",
        ),
        context=(
            r"\bbirth control\b|\boral contraceptives?\b|\bocps?\b|\bthe pill\b|\bestrogen\b",
            r"\bcalf (?:is )?(?:swollen|painful|hurts|red)\b|\b(?:one|left|right) leg (?:is )?swollen\b"
            r"|\b(?:long|\d+[- ]hour)"
            r" (?:flight|drive|car ride|bus ride)\b|\bflight (?:back|home)\b",
            r"\brecent (?:\w+ )?surgery\b|\b(?:just had|had) (?:\w+ )?surgery (?:last|this|yesterday|recently"
            r"|\d+ (?:days?"
            r"|weeks?) ago|a (?:few )?(?:days?|weeks?) ago)\b|\bpost[- ]?op\b|\b(?:long|recent) (?:flight|car ride"
            r"|trip)\b",
            r"\bpost[- ]?partum\b|\b(?:had|delivered) (?:a|her|my) baby\b|\bgave birth\b",
            r"\bcalf (?:pain|swelling|tenderness)\b|\b(?:one|left|right) leg (?:is )?swollen\b|\bswollen (?:left "
            r"|right |one )"
            r"?(?:calf|leg)\b",
            r"\bdvt\b|\bblood clots?\b|\bpulmonary embol",
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
        "B-MENINGITIS-SIGNS",
        2,
        B,
        "Stiff neck with fever, sudden severe headache or confusion (meningitis, subarachnoid haemorrhage)",
        (
            r"\b(?:stiff|rigid) neck\b|\bneck (?:is )?(?:stiff|rigid)\b|\bneck (?:stiffness|rigidity)\b",
            r"\bnuchal rigidity\b|\bmeningism|\bmeningitis\b",
            r"\bcan't (?:bend|touch|put) (?:his|her|my|their) (?:neck|head|chin)(?: down)?(?: to (?:his|her|my"
            r"|their) chest)?",
            r"\bneck (?:is )?(?:real |really |very |so )?stiff\b",
        ),
        context=(
            *_FEVER,
            r"\bsudden(?: onset)?(?: severe)? headache\b|\bthunderclap\b|\bworst headache\b|\bsevere headache\b",
            r"\bphotophobia\b|\b(?:light|lights) (?:hurts?|bother)|\bsensitive to light\b",
            r"\bconfus|\blethargic\b|\brash\b|\bmeningitis\b",
        ),
    ),
    PhraseRule(
        "B-PURPURIC-RASH",
        2,
        B,
        "Fever or lethargy with a purple, non-blanching rash (possible meningococcaemia)",
        (
            r"\b(?:purple|purplish|dark red|blood[- ]?red) (?:spots|rash|blotches|dots|patches)\b",
            r"\bpurpur(?:a|ic)\b|\bpetechia(?:e|l)?\b|\bnon-?blanching\b",
            r"\brash (?:that )?(?:doesn't|does not|won't) (?:blanch|fade|go away when (?:pressed|you press))\b",
        ),
        context=(*_FEVER, r"\blethargic\b|\bfloppy\b|\blistless\b|\bconfus|\bunwell\b|\bvery (?:sick|ill)\b"),
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
            r"(?<!food )\bpoison(?:ed|ing)\b",
            r"\bcarbon monoxide\b",
            r"\bnarcan\b|\bnaloxone\b",
        ),
    ),
    PhraseRule(
        "B-LARGE-INGESTION",
        2,
        B,
        "Intentional or large ingestion (a bottle, dozens of pills), even with no symptoms yet",
        (
            r"\b(?:took|taken|swallowed|ate|eaten|ingested|ingestion of|downed|popped|od'?d on"
            r"|overdosed on)\s+(?:about |"
            r"around |approximately |approx\.? |~ ?|maybe |like |over |at least |up to |nearly )?(?:\d{2,3}|twenty|"
            r"thirty|forty|fifty|sixty|a hundred|dozens of)\b(?!\s*(?:mg|mcg|g|ml|cc|units?|minutes?|mins?|hours?|hrs?"
            r"|days?|years?)\b)[^.]{0,30}?\b" + _DRUGS + r"\b",
            r"\b(?:took|taken|swallowed|ate|eaten|ingested|downed|popped|emptied)\b[^.]{0,15}?\b(?:a|an|the) (?:whole|"
            r"entire|full) (?:bottle|box|pack(?:et)?|blister pack|strip|container|jar)\b",
            r"\b(?:a|an|the) (?:whole|entire|full) (?:bottle|box|pack) of (?:her |his |my |their )?(?:\w+ )?" + _DRUGS,
            r"\bempty (?:pill|medicine|medication|prescription) (?:bottles?|boxe?s?|packs?)\b|\bpill bottles? (?:is "
            r"|was"
            r" |were |found )?empty\b",
            r"\bintentional (?:overdose|ingestion|od|poisoning)\b|\bs/p (?:intentional )?(?:od|overdose|ingestion)\b",
            r"\b(?:took|swallowed|ingested|ate)\b[^.]{0,40}\b(?:on purpose|intentionally|deliberately)\b",
            r"\b(?:tried|trying|attempted|attempt) to (?:overdose|od|poison)\b",
            r"\b(?:took|taken|swallowed|ate|downed|popped)\b[^.]{0,10}?\b(?:a )?(?:handful|bunch|whole lot|lot) of\b"
            r"[^.]{0,15}?\b(?:her |his |my |their )?(?:\w+ )?" + _DRUGS,
        ),
    ),
    PhraseRule(
        "B-TOXIC-INGESTION",
        2,
        B,
        "Ingestion of a dangerous substance (button battery, magnets, antifreeze, hydrocarbons, caustics, iron,"
        " someone else's medicines), or pills swallowed by a child",
        (
            r"\b" + _INGEST + _WORD_GAP + _SUBSTANCES,
            _SUBSTANCES + r"[^.]{0,30}?\b(?:ingest(?:ed|ion)|swallowed|eaten|drank|drunk|in (?:his|her|their) mouth)\b",
            r"\b(?:" + _INGEST[3:-1] + r"|got into)\b[^.]{0,40}?\b(?:grand(?:ma|pa|mother|father|parent)s?'?s?|nana'?s"
            r"|mom'?s|mother'?s|dad'?s|father'?s|parents'?|someone else'?s|sister'?s"
            r"|brother'?s)\b[^.]{0,25}?\b(?:pills?"
            r"|tablets?|meds|medications?|medicines?|patch(?:es)?|vitamins)\b",
            r"\bgot into (?:the |a |his |her )?(?:medicine cabinet|pill (?:bottle|box|organi[sz]er)|medicine bottle)\b",
        ),
    ),
    PhraseRule(
        "B-PEDIATRIC-INGESTION",
        2,
        B,
        "A child who swallowed pills or medicine",
        (
            r"\b(?:swallowed|ate|eaten|ingested|chewed|got into)" + _WORD_GAP + r"(?:[\w'-]+ )?(?:pills?|tablets?"
            r"|capsules?|meds|medications?|medicines?|vitamins|gummies|edibles?|patch(?:es)?)\b",
            r"\b(?:pills?|tablets?|capsules?|medications?|medicines?) (?:ingestion|ingested|swallowed)\b",
        ),
        context=_CHILD,
    ),
    PhraseRule(
        "B-OBSTETRIC",
        2,
        B,
        "Obstetric emergency: active labour, cord prolapse, pre-eclampsia signs, decreased fetal movement",
        (
            r"\bcrowning\b",
            r"\bbaby is coming\b|\bbaby's coming\b|\bhaving the baby\b|\bgiving birth\b",
            r"\bpregnant\b[^.]{0,60}\b(?P<also>headache|blurr(?:y|ed) vision|seizure)",
            _LATE_PREGNANCY + r"[^.]{0,60}\b" + _PREECLAMPSIA_SIGN,
            r"\bcord (?:is )?(?:out|prolapse)",
            r"\b(?:eclampsia|pre-?eclampsia|placental abruption|hellp)\b",
            r"\b(?:baby|fetus) (?:is |has )?(?:not|stopped|hasn't been|has not been|hasn't|has not) moving\b",
            r"\b(?:decreased|reduced|no|absent) fetal movements?\b|\bdecreased fm\b",
            r"\b(?:need|needs|have|has|feel like (?:i|she) (?:need|needs|have|has)|urge) to push\b|\b(?:i|she)'s"
            r" pushing\b|\bcontractions (?:are )?(?:\d|one|two|three) minutes? apart\b|\b(?:head|baby) is out\b",
            r"\b(?:baby|babies) (?:hasn't|has not|haven't|isn't|stopped) (?:moved|moving|kicking|kicked)\b"
            r"|\b(?:haven't|hasn't"
            r"|have not|not) felt (?:the|my|her) baby (?:move|kick)",
        ),
    ),
    PhraseRule(
        "B-PREGNANCY-RISK",
        2,
        B,
        "Pregnancy with bleeding or abdominal or pelvic pain, or a possible ectopic pregnancy",
        (
            _PREGNANT + r"[^.]{0,60}?" + _PREGNANCY_SIGN,
            _PREGNANCY_SIGN.replace("?P<also>", "?:") + r"[^.]{0,60}?(?P<also>" + _PREGNANT + ")",
            r"(?<!previous )(?<!prior )(?<!history of )(?<!hx of )(?<!h/o )\bectopic\b" + _HISTORY_AHEAD,
            r"\b(?:missed|late) (?:(?:her|my|a|two) )?(?:menstrual )?periods?\b[^.]{0,60}?" + _PREGNANCY_SIGN,
            r"\blmp (?:\d+|six|seven|eight|nine|ten) (?:weeks?|wks) ago\b[^.]{0,60}?" + _PREGNANCY_SIGN,
        ),
    ),
    PhraseRule(
        "B-TESTICULAR-TORSION",
        2,
        B,
        "Sudden testicular pain or swelling (possible torsion), or ovarian torsion",
        (
            r"\b(?:testic(?:le|les|ular)|scrot(?:um|al)|testis|testes)\b[^.]{0,20}?\b(?:pain|hurts?|hurting|swollen|"
            r"swelling|ache|torsion)\b",
            r"\b(?:pain|swelling)\b[^.]{0,20}?\b(?:testic(?:le|les|ular)|scrot(?:um|al)|testis|testes)\b",
            r"\btorsion\b",
        ),
        context=(
            r"\bsudden|\bacute\b|\bsevere\b|\babrupt|\bexcruciating\b|\bwoke (?:him |me )?up\b|\btorsion\b",
            r"\bvomit|\bnause|\b(?:an?|\d+|few) (?:hours?|hrs?) ago\b|\bsince (?:this morning|last night|tonight)\b",
            r"\bhigh[- ]riding\b",
        ),
    ),
    PhraseRule(
        "B-HEAD-INJURY-RISK",
        2,
        B,
        "Head injury with loss of consciousness, anticoagulation, intoxication or vomiting",
        (
            r"\bhit (?:his|her|their|my) head\b",
            r"\bhead (?:injury|trauma|wound|lac(?:eration)?)\b",
            r"\bstruck (?:his|her|their) head\b",
            r"\b(?:forehead|scalp) (?:lac(?:eration)?|wound|hematoma)\b|\b(?:lac(?:eration)?|wound|hematoma) (?:to|on)"
            r" (?:the |his |her |their )?(?:forehead|scalp|head)\b",
        ),
        context=(
            r"\b(?:knocked out|lost consciousness|loss of consciousness|\bloc\b|blacked out)\b",
            r"\bblood thinners?\b|\banticoagul|\bwarfarin\b|\beliquis\b|\bxarelto\b|\bcoumadin\b",
            r"\bvomit",
            r"\bseizure\b",
            r"\bintoxicated\b|\bdrunk\b|\betoh\b|\bvodka\b|\bwhiskey\b|\bbeer\b|\bdrinking\b",
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
            r"\bskin (?:is )?(?:peeling|coming|falling|sloughing) off\b|\b(?:blisters?|blistering"
            r")\b[^.]{0,60}"
            r"\b(?:baby|infant|toddler|child)\b|\b(?:baby|infant|toddler)\b[^.]{0,80}\b(?:blisters?|blistering)\b",
            r"\bburn(?:s|ed)? (?:all )?(?:over|on|to) (?:both|his|her|their|my)? ?(?:arms?|legs?) and (?:chest"
            r"|face|back|"
            r"belly|stomach)\b|\b(?:grease|oil|kitchen) fire\b[^.]{0,60}\bburn",
        ),
    ),
    PhraseRule(
        "B-TEMPERATURE-EXTREME",
        2,
        B,
        "Hypothermia or heat stroke",
        (
            r"\bhypotherm(?:ia|ic)\b",
            r"\bheat ?stroke\b|\bhypertherm(?:ia|ic)\b",
            r"\bfound (?:outside|outdoors|in the snow|in the cold)\b[^.]{0,30}\b(?:cold|freezing|frozen|overnight"
            r"|all night|hours)\b",
            r"\b(?:lying|laying|passed out|found)\b[^.]{0,15}\bin the snow\b"
            r"|\bfreezing cold\b[^.]{0,40}\b(?:won't|can't|"
            r"isn't|not) (?:get up|move|wake|respond)",
        ),
    ),
    PhraseRule(
        "B-LIMB-ISCHEMIA",
        2,
        B,
        "Cold, pulseless limb or compartment syndrome",
        (
            r"\bcompartment syndrome\b|\bpain out of proportion\b",
            r"\b(?:cold|pale|white|blue|mottled)(?:,? (?:and )?(?:cold|pale|white|blue|numb)){0,3},? (?:and )?"
            r"pulseless (?:leg|foot|arm|hand|limb|extremity)\b",
            r"\b(?:leg|foot|arm|hand|limb|extremity|toes|fingers) (?:is |are |feels |looks )?(?:(?:cold|ice cold|icy)"
            r"(?: and|,) (?:pale|white|blue|numb|mottled)|(?:pale|white|blue|mottled)(?: and|,) (?:cold|icy)"
            r"|pulseless)\b",
            r"\b(?:no|absent|can't find (?:a|the)) (?:pedal |distal |radial |dp |pt |femoral |foot )?pulses? (?:in|to"
            r"|at|on)"
            r" (?:his |her |the |their |my )?(?:left |right |lt |rt )?(?:leg|foot|feet|arm|hand|limb|wrist|ankle)\b",
            r"\b(?:no|absent) (?:pedal|distal|radial|dp|femoral|dorsalis pedis) pulses?\b",
        ),
    ),
    PhraseRule(
        "B-ENVENOMATION",
        2,
        B,
        "Snake bite or other venomous bite",
        (
            r"\bsnake ?bites?\b|\bsnakebite\b|\bbitten by a (?:\w+ )?(?:snake|rattlesnake|rattler|copperhead"
            r"|cottonmouth"
            r"|water moccasin|coral snake|viper|adder|black widow|scorpion)\b",
            r"\b(?:rattlesnake|rattler|copperhead|cottonmouth|moccasin|coral snake|viper|adder"
            r"|snake)\b[^.]{0,20}\bbit\b",
            r"\benvenomation\b",
        ),
    ),
    PhraseRule(
        "B-SEPSIS-NEUTROPENIA",
        2,
        B,
        "Fever in an immunocompromised patient (chemotherapy, transplant, HIV, steroids, sickle cell, asplenia,"
        " dialysis)",
        _FEVER,
        context=(
            r"\bchemo",
            r"\btransplant\b",
            r"\bneutropeni",
            r"\bhiv\b|\baids\b|\bimmunosuppress|\bimmunocompromis|\bimmune ?compromised\b|\bweak(?:ened)? immune",
            r"\bon (?:high[- ]dose |long[- ]term |chronic )?(?:steroids|prednisone|dexamethasone|methotrexate"
            r"|biologics?"
            r"|humira|remicade|tacrolimus|cyclosporine|cellcept|mycophenolate)\b",
            r"\bsickle\b|\bhb ?ss\b|\bsplenectom|\basplen|\bno spleen\b",
            r"\bdialysis\b|\besrd\b|\bhemodialysis\b",
            r"\bleukemia\b|\blymphoma\b|\bmyeloma\b|\bbone marrow\b|\bstem cell\b|\bradiation (?:therapy|treatment)\b",
            r"\bport-?a-?cath\b|\bportacath\b|\bpicc\b|\bcentral line\b|\bhickman\b|\bbroviac\b",
        ),
    ),
    PhraseRule(
        "B-NEONATE-ILL",
        2,
        B,
        "A baby under 28 days with fever, poor feeding, lethargy or not acting right",
        (
            *_FEVER,
            r"\bnot (?:feeding|eating|nursing|taking (?:the |her |his )?(?:bottle|breast|feeds?))\b|\bpoor feeding\b",
            r"\b(?:won't|doesn't|isn't|refusing to|refuses to) (?:feed|eat|nurse|wake (?:up )?for feeds)\b",
            r"\bnot acting (?:right|normal(?:ly)?|like (?:him|her)self)\b|\blethargic\b|\bfloppy\b|\blistless\b",
            r"\b(?:is |went |seems |very |so |all )limp\b|\bhard to wake\b|\bgrunting\b|\bmottled\b",
            r"\bhypothermic\b|\bbreathing (?:fast|funny|hard)\b",
        ),
        context=_NEONATE,
    ),
    PhraseRule(
        "B-INFANT-FEVER",
        2,
        B,
        "Fever in a baby under 3 months",
        (*_FEVER, r"\bfeels (?:really |very )?(?:hot|warm)\b"),
        context=_INFANT,
    ),
    PhraseRule(
        "B-ILL-CHILD",
        2,
        B,
        "Ill-appearing child: not acting right, floppy, listless, or severe dehydration (no wet diapers)",
        (
            r"\bnot acting (?:right|normal(?:ly)?|like (?:him|her)self)\b|\bfloppy\b|\blistless\b",
            r"\b(?:is |went |seems |very |so |all )limp\b|\bhard to (?:wake|rouse)\b",
            r"\b(?:hasn't|has not|had no|no|without) (?:had (?:a |any )?)?wet diapers?\b|\bdry diapers?\b",
            r"\bsunken (?:soft spot|fontanel+e?|eyes)\b|\bno tears\b",
            r"\b(?:hasn't|has not) (?:peed|urinated|voided) (?:in|for|since) (?:\d{2}|[89]|a day|all day|yesterday)\b",
        ),
        context=_CHILD,
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
            r"\b(?:sugar|glucose)\b[^.]{0,30}\b(?:high|over [4-9]\d\d|[4-9]\d\d|(?:four|five|six"
            r"|seven) (?:hundred|fifty|"
            r"sixty|seventy|eighty|ninety))\b[^.]{0,80}\b(?P<also>throwing up|vomiting|breathing (?:deep|fast"
            r"|weird|hard|"
            r"funny)|deep breaths|confused|drowsy)",
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
    PhraseRule(
        "B-MISSED-DIALYSIS",
        2,
        B,
        "Missed dialysis (risk of hyperkalaemia and fluid overload)",
        (
            r"\b(?:missed|skipped|didn't go to|did not go to|hasn't been to|has not been to|didn't make it to)"
            r" (?:(?:his|her|my|their|a|last) )?(?:\w+ )?(?:dialysis|hemodialysis|hd)\b(?! (?:catheter|access"
            r"|fistula))",
            r"\b(?:dialysis|hd)\b[^.]{0,15}\b(?:missed|skipped)\b",
        ),
    ),
    PhraseRule(
        "B-ICD-SHOCK",
        2,
        B,
        "Shock from an implanted defibrillator",
        (
            r"\b(?:icd|aicd|implanted defibrillator|internal defibrillator|implantable defibrillator|defibrillator)\b"
            r"[^.]{0,30}\b(?P<also>fired|shocked|went off|discharged|gave (?:me|him|her|them) (?:a )?shocks?)\b",
            r"\bshocked by (?:his|her|my|their) (?:icd|aicd|defibrillator)\b|\b(?:icd|aicd) (?:firing|shock)",
        ),
    ),
    PhraseRule(
        "B-SICKLE-CELL-CRISIS",
        2,
        B,
        "Sickle cell disease with a pain crisis, chest pain, fever or priapism",
        (r"\bsickle(?! cell trait)(?! trait)\b|\bhb ?ss\b|\bvaso-?occlusive\b|\bacute chest syndrome\b",),
        context=(
            r"\bcrisis\b|\bpain\b|\bhurts?\b|\bpriapism\b|\bchest\b|\bshort(?:ness)? of breath\b|\bacute chest\b",
            *_FEVER,
        ),
    ),
    PhraseRule(
        "B-WITHDRAWAL",
        2,
        B,
        "Alcohol or sedative withdrawal with tremor, hallucinations or agitation",
        (
            r"\bdelirium tremens\b|\bthe dts\b|\bwithdrawal seizures?\b",
            r"\b(?:alcohol|etoh|alcoholic|benzo(?:diazepine)?) withdrawal\b|\bwithdrawing from (?:alcohol|etoh"
            r"|benzos)\b",
        ),
        context=(
            r"\btremor|\bshak(?:y|ing|es)\b|\bhallucinat|\bseiz|\bsweat|\bdiaphor|\bagitat|\bconfus|\brestless",
            r"\bdelirium tremens\b|\bthe dts\b",
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


_NAMED_GROUP = re.compile(r"\(\?P<\w+>")
# Red flags worded as negations ("not breathing", "no pulse", "won't wake up") must not negate what follows
# them ("not breathing and has no pulse"), so they are masked before negation scopes are looked for.
_NEGATIVE_FORM = re.compile(
    r"\b(?:no|not|isn't|is not|wasn't|won't|will not|can't|cannot|doesn't|does not|stopped)\b|" + SPANISH_NEGATIVE_FORM,
    re.I,
)


def _alternation(patterns: Iterable[str]) -> re.Pattern[str]:
    """One alternation of patterns (named groups made plain): a quick test that none can match."""
    return _compile("|".join(f"(?:{_NAMED_GROUP.sub('(?:', pattern)})" for pattern in patterns))


@dataclass(frozen=True, slots=True)
class _Reading:
    """The rules compiled for the wordings of one or two languages ("en", "es")."""

    rules: list[tuple[PhraseRule, list[re.Pattern[str]], list[re.Pattern[str]], frozenset[str] | None, re.Pattern[str]]]
    """Each rule with its patterns, its context, its prefilter literals (`prefilter.rule_literals`) and one
    alternation of its patterns."""
    self_negated: list[re.Pattern[str]]
    any_self_negated: re.Pattern[str]


def _reading(languages: tuple[str, ...]) -> _Reading:
    rules: list[tuple[PhraseRule, list[re.Pattern[str]], list[re.Pattern[str]], frozenset[str] | None, re.Pattern[str]]]
    rules = []
    self_negated: list[re.Pattern[str]] = []
    for rule in PHRASE_RULES:
        patterns, context = rule.wording(languages)
        compiled = [_compile(pattern) for pattern in patterns]
        context_compiled = [_compile(pattern) for pattern in context]
        rules.append((rule, compiled, context_compiled, rule_literals(compiled), _alternation(patterns)))
        self_negated.extend(
            regex
            for raw, regex in zip(patterns, compiled, strict=True)
            if _NEGATIVE_FORM.search(raw.replace("\\b", " ").replace("(?:", " "))
        )
    return _Reading(rules, self_negated, _alternation(regex.pattern for regex in self_negated))


_READINGS: dict[tuple[str, ...], _Reading] = {
    languages: _reading(languages) for languages in (("en",), ("es",), ("en", "es"))
}


def _mask_negative_red_flags(text: str, reading: _Reading) -> str:
    masked = text
    if reading.any_self_negated.search(text) is None:
        return masked
    for pattern in reading.self_negated:
        masked = pattern.sub(lambda match: "x" * len(match.group(0)), masked)
    return masked


def _first_current(
    patterns: list[re.Pattern[str]], text: str, masked: str, reader: ContextReader, window_words: int = 6
) -> tuple[re.Match[str], Context | None] | None:
    """The first match that is not negated, historical or hypothetical, with its context (None, or RESOLVED when
    only an episode over was found). A pattern pairing two findings marks the second with the group `also`, which
    must not be negated either ("pregnant, denies bleeding" is no red flag)."""
    resolved: re.Match[str] | None = None
    for pattern in patterns:
        for match in pattern.finditer(text):
            if reader.negated(text, masked, match.start(), match.end(), window_words):
                continue
            second = match.start("also") if "also" in pattern.groupindex else -1
            if second > match.start() and reader.negated(text, masked, second, match.end(), window_words):
                continue
            context = reader.context(text, match.start(), match.end())
            if context is None:
                return match, None
            if context is Context.RESOLVED and resolved is None:
                resolved = match
    return (resolved, Context.RESOLVED) if resolved is not None else None


def _phrase_evidence(
    rule: PhraseRule, found: re.Match[str], resolved: bool, message: str, reading: ReadableText
) -> Evidence:
    """The evidence of a phrase rule, quoting the caller's own words; an episode over sets the rule's
    `if_resolved` floor instead of its own."""
    start, end = reading.span(found.start(), found.end())
    level, floor, description = rule.esi_level, True, rule.description
    resolved = resolved and rule.if_resolved != KEPT  # a TIA or a syncope over is still the red flag it was
    if resolved:
        description = f"{rule.description} (over now, the caller says)"
        if rule.if_resolved is None:
            floor = False
        else:
            level = rule.if_resolved
    point = rule.decision_point if level == rule.esi_level else DecisionPoint.B
    return Evidence(rule.rule_id, level, point, description, start, end, message[start:end], floor, resolved)


def evaluate_rules(text: str, vitals: Vitals | None = None, reader: ContextReader = HAND_WRITTEN) -> list[Evidence]:
    """Every red flag in the message, most urgent first; empty when none fires.

    The rules read the message as `transcript.readable` gives it (fillers, repeats and misspellings of red-flag
    words mended, accents folded), in the wording of its language (`language.rule_languages`: English, Spanish,
    or both), and each evidence quotes the original words.
    """
    hits: list[Evidence] = []
    languages = rule_languages(text)
    reading = readable(text, languages)
    folded = reading.text
    compiled = _READINGS[languages]
    masked = _mask_negative_red_flags(folded, compiled)
    lowered = folded.lower()
    for rule, patterns, context, literals, any_of in compiled.rules:
        # Most rules match nothing: a substring test of their literals, else one scan, before one per pattern.
        if not may_match(literals, lowered) or (literals is None and any_of.search(folded) is None):
            continue
        # A life threat is only taken as negated by a negation right before it ("not choking", "no agonal").
        found = _first_current(patterns, folded, masked, reader, 3 if rule.esi_level == 1 else 6)
        if found is None:
            continue
        if context and _first_current(context, folded, masked, reader) is None:
            continue
        hits.append(_phrase_evidence(rule, found[0], found[1] is Context.RESOLVED, text, reading))
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
