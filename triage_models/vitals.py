"""Vital signs, age and pain score read out of free text, each with the span it came from."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from triage_models.ages import spoken_age
from triage_models.speakers import CALL_TAKER_LABELS, CALLER_LABELS, SPEAKER_LABELS, label_pattern

_NUMBER = r"(\d{1,3}(?:\.\d)?)"


@dataclass(frozen=True, slots=True)
class Reading:
    """One value found in the text and where."""

    value: float
    start: int
    end: int
    text: str


@dataclass(slots=True)
class Vitals:
    """What the message says about the patient's numbers; None where it says nothing."""

    age_years: Reading | None = None
    heart_rate: Reading | None = None
    respiratory_rate: Reading | None = None
    spo2: Reading | None = None
    systolic_bp: Reading | None = None
    diastolic_bp: Reading | None = None
    temperature_c: Reading | None = None
    gcs: Reading | None = None
    pain_score: Reading | None = None
    readings: dict[str, Reading] = field(default_factory=dict)


# "HR is 120", "sats are 91", "BP: 80/50"; a caller's hedge after it ("pulse at like 150", "pulso como de 140").
# One optional linking word, then one optional hedge, each ending in the whitespace after it (a hedge needs some):
# never two optional whitespace runs in a row, which backtrack quadratically on long runs of spaces.
_LINK = (
    r"\s*(?:(?:is|are|of|at|was|were|=|:|est[aá] en|es de|est[aá]|es|de|en|'s)\s*)?"
    r"(?:(?:like|about|around|roughly|maybe|almost|nearly|over|como de|como|unos|casi|m[aá]s de)\s+)?"
)

# "her pressure dropped to 78/40", "pressure's dropped all the way down to 64/30", "la presión le bajó a 80/50": how
# a pressure moved, before its value.
_BP_CHANGE = (
    r"(?:(?:'s|\s+has|\s+is|\s+was|\s+just)?\s+(?:dropped|fell|went|came|got|crashed|tanked|bottomed|down|le|se)"
    r"(?:\s+(?:down|back|up|out|all|the|way|baj[oó]|subi[oó]|cay[oó])){0,4}(?:\s+(?:to|a|at|en|hasta))?)?"
)
_BP_PERSON = (
    r"(?:his|her|my|their|your|patient's|pt's|mom's|dad's|mother's|father's|wife's|husband's|son's|daughter's"
    r"|grandma's|grandpa's|resident's)\s+pressure"
)
"""A pressure is a blood pressure when "blood" or a person's says so: "his pressure", never a tyre's or a pipe's."""

_PATTERNS: dict[str, list[re.Pattern[str]]] = {
    "heart_rate": [
        re.compile(
            r"(?<![/\w])(?:hr|heart rate|heart number|pulse(?: rate)?|p|pulso|frecuencia card[ií]aca|fc)"
            + _LINK
            + _NUMBER
            + r"\b",
            re.I,
        ),
        re.compile(_NUMBER + r"\s*(?:bpm|beats (?:per|a) minute)\b", re.I),
    ],
    "respiratory_rate": [
        re.compile(
            r"\b(?:rr|resp(?:iratory)?(?: rate)?|respirations|breathing rate|frecuencia respiratoria|fr)"
            + _LINK
            + _NUMBER
            + r"\b",
            re.I,
        ),
        re.compile(_NUMBER + r"\s*(?:breaths?|respirations) (?:per|a) minute\b", re.I),
    ],
    "spo2": [
        re.compile(
            r"\b(?:spo2|sp02|o2 sats?|sats?|saturation|oxygen(?: saturation| sat| level)?|pulse ox|saturaci[oó]n"
            r"(?: de ox[ií]geno)?|ox[ií]geno)" + _LINK + _NUMBER + r"\s*(?:%|percent)?",
            re.I,
        ),
        # The oximeter in a caller's words, and what it "says": "the little finger thing says 89".
        re.compile(
            r"\b(?:pulse ?ox(?:imeter)?|oximeter|ox[ií]metro|oxygen (?:meter|monitor|reader|clip)|finger "
            r"(?:oxygen |pulse |ox )?(?:thing|clip|monitor|meter|gadget|reader|machine)"
            r"|(?:aparat(?:o|ito)|cosit[ao]) del dedo)\s*"
            r"(?:(?:says|reads|shows|is showing|showing|said|read|is at|dice|marca|sale|est[aá] en)\s*)?"
            + _NUMBER
            + r"\s*(?:%|percent)?",
            re.I,
        ),
    ],
    "blood_pressure": [
        re.compile(
            r"\b(?:b/?p|blood pressure|" + _BP_PERSON + r"|presi[oó]n(?: arterial)?"
            r"|ta)" + _BP_CHANGE + _LINK + r"(\d{2,3})\s*(?:/|sobre|over)\s*(\d{2,3})\b(?!\s*psi)",
            re.I,
        ),
        # "(se) le bajó la presión a 64/30": the Spanish verb before its noun.
        re.compile(
            r"\b(?:se\s+)?le\s+(?:baj[oó]|cay[oó]|subi[oó])\s+la\s+presi[oó]n(?:\s+(?:a|en|hasta))?\s*"
            r"(\d{2,3})\s*(?:/|sobre)\s*(\d{2,3})\b",
            re.I,
        ),
        re.compile(r"\b(\d{2,3})\s*/\s*(\d{2,3})\s*(?:mm ?hg)\b", re.I),
    ],
    "systolic_bp": [re.compile(r"\b(?:sbp|systolic)" + _LINK + r"(\d{2,3})\b", re.I)],
    "temperature": [
        re.compile(
            r"\b(?:temp(?:erature)?|bt|t|fever(?: of)?|temperatura|fiebre de)" + _LINK + r"(\d{2,3}(?:[.,]\d)?)\s*"
            r"(?:°\s*|deg(?:rees)?\s*)?([cf])?\b",
            re.I,
        ),
    ],
    "gcs": [re.compile(r"\bgcs" + _LINK + r"(\d{1,2})\b", re.I)],
    "pain": [
        re.compile(r"\b(?:pain|nrs)(?: score| scale| level)?" + _LINK + r"(\d{1,2})\s*(?:/|out of)\s*10\b", re.I),
        re.compile(r"\b(\d{1,2})\s*(?:/|out of)\s*10\b", re.I),
        re.compile(r"\b(?:nrs|pain score)" + _LINK + r"(\d{1,2})\b", re.I),
    ],
    "age": [
        # "56 years old", "56-year-old", "56 yo", "56 y/o": a bare "3 years" (of back pain) is not an age.
        # "hace 5 años" (five years ago) and "por 2 años" are a time, not an age.
        re.compile(
            r"(?<!hace )(?<!hace como )(?<!hace unos )(?<!desde )(?<!por )(?<!durante )"
            r"\b(\d{1,3})(?:[\s-]*(?:years?|yrs?)[\s-]*old\b|[\s-]*(?:y/o|yo)\b|\s*a[nñ]os\b)",
            re.I,
        ),
        re.compile(r"\b(?:age|aged)" + _LINK + r"(\d{1,3})\b", re.I),
        re.compile(r"\b(\d{1,2})[\s-]*(months?|mos?)[\s-]*old\b", re.I),
        re.compile(r"\b(\d{1,2})[\s-]*(weeks?|wks?|days?)[\s-]*old\b", re.I),
        # "56M", "34F" written together, as crews and nurse lines do (not "3 m" of a fall, not "98.6F").
        re.compile(r"(?<![\d.])\b(\d{1,3})([mf])\b(?!\s*(?:/|out))", re.I),
        re.compile(r"\b(?:newborn|neonate)\b", re.I),
    ],
}


# A transcript's question and answer: "CT: does she have a way to check her oxygen? C: the finger thing, it says 89",
# "CT: and her heart rate? C: 124". The call-taker's turn names the number, the caller's first words give it. The
# question must name the reading itself ("is she on oxygen?" and "how old is she?" name none).
_ASKED_FOR = {
    "spo2": r"sats?|saturation|o2 sat|pulse ?ox(?:imeter)?|oximeter|oxygen (?:level|sat|saturation|reading|number)"
    r"|check (?:his |her |their |your |the )?oxygen|nivel de ox[ií]geno|saturaci[oó]n|ox[ií]metro"
    r"|finger (?:oxygen |pulse |ox )?(?:thing|clip|monitor|meter|gadget|reader|machine)s?",
    "heart_rate": r"heart ?rate|pulse(?: rate)?|heartbeat|pulso|frecuencia card[ií]aca",
    "respiratory_rate": r"breaths? (?:a|per) minute|breathing rate|respiraciones por minuto",
}
_TURN = r"\b(?:" + label_pattern(SPEAKER_LABELS) + r")\s*:"
_CALLER = r"\b(?:" + label_pattern(CALLER_LABELS) + r")\s*:\s*"
_ANSWERED = {
    field: re.compile(
        r"\b(?:"
        + label_pattern(CALL_TAKER_LABELS)
        + r")\s*:(?:(?!"
        + _TURN
        + r").){0,160}?\b(?:"
        + words
        + r")\b(?:(?!"
        + _TURN
        + r").){0,80}?"
        + _CALLER
        + r"(?:(?!"
        + _TURN
        + r")[^\d]){0,60}?(?<![\d/.])(\d{2,3})"
        r"(?![\d/])",
        re.I,
    )
    for field, words in _ASKED_FOR.items()
}


def _answered(text: str, field: str, low: float, high: float) -> Reading | None:
    """The caller's number in answer to a call-taker's question that names the reading."""
    pattern = _ANSWERED.get(field)
    for match in pattern.finditer(text) if pattern else ():
        value = float(match.group(1))
        if low <= value <= high:
            return Reading(value, match.start(1), match.end(1), match.group(1))
    return None


def _reading(match: re.Match[str], value: float) -> Reading:
    return Reading(value=value, start=match.start(), end=match.end(), text=match.group(0))


def _first(
    patterns: list[re.Pattern[str]], text: str, keep: Callable[[re.Match[str]], bool] = lambda _: True
) -> re.Match[str] | None:
    """The earliest match of any pattern that `keep` accepts (each pattern scanned only up to its first one)."""
    found = [match for pattern in patterns if (match := next(filter(keep, pattern.finditer(text)), None))]
    return min(found, key=lambda match: match.start()) if found else None


def _blood_pressure(match: re.Match[str]) -> bool:
    """A pair that can be a blood pressure: systolic 30-300 and above the diastolic (a tyre's "30/32" is none)."""
    return 30 <= float(match.group(1)) <= 300 and float(match.group(2)) < float(match.group(1))


def _age(text: str) -> Reading | None:
    found = []
    for index, pattern in enumerate(_PATTERNS["age"]):
        match = pattern.search(text)
        if not match:
            continue
        if index == 5:
            found.append(_reading(match, 0.02))
            continue
        number = float(match.group(1))
        if index == 2:
            number /= 12.0
        elif index == 3:
            unit = match.group(2).lower()
            number = number / 52.0 if unit.startswith("w") else number / 365.0
        if 0 <= number <= 120:
            found.append(_reading(match, number))
    spoken = spoken_age(text)
    if spoken is not None:
        found.append(Reading(spoken.years, spoken.start, spoken.end, text[spoken.start : spoken.end]))
    return min(found, key=lambda reading: reading.start) if found else None


# Field -> (pattern group, plausible range): a value outside the range is a misreading and is ignored.
_PLAIN_READINGS: dict[str, tuple[str, float, float]] = {
    "heart_rate": ("heart_rate", 10, 300),
    "respiratory_rate": ("respiratory_rate", 2, 90),
    "spo2": ("spo2", 40, 100),
    "gcs": ("gcs", 3, 15),
    "pain_score": ("pain", 0, 10),
}


def _plain(text: str, group: str, low: float, high: float) -> Reading | None:
    """The earliest plausible reading ("on oxygen 2L, sats 84%" skips the 2 and reads the 84)."""
    matches = sorted(
        (match for pattern in _PATTERNS[group] for match in pattern.finditer(text)), key=lambda match: match.start()
    )
    for match in matches:
        if low <= float(match.group(1)) <= high:
            return _reading(match, float(match.group(1)))
    return None


_THERMOMETER = re.compile(
    r"\b(?:rectal(?:ly)?|thermometer|term[oó]metro)\b([^.?!,;]{0,50}?)"
    r"\b(?:it'?s|it is|read|reads|says|said|showed|shows|was|got|came up|marca|marc[oó]|sali[oó]|sale|dice|dio)"
    r"\s+(?:at\s+|en\s+|like\s+|como\s+)?(\d{2,3}[.,]\d|\d{2,3})\s*(?:°\s*|deg(?:rees)?\s*|grados\s*)?([cf])?\b",
    re.I,
)
"""What a thermometer said, later in the same clause: "I did the rectal one and it's 100.8", "le puse el termómetro y
marcó 38,5" (groups: the words between, the number, the unit). Read only when no temperature is named outright, and
checked by `_body_reading`."""

_NOT_A_BODY = re.compile(
    r"\b(?:room|house|car|truck|oven|pool|tank|bath|water|tub|porch|garage|outside|outdoors|weather|thermostat|fridge|"
    r"freezer|cuarto|casa|carro|horno|alberca|pecera|agua|tina|afuera|clima|pulse|heart|rate|sugar|glucose|bp|pressure|"
    r"presi[oó]n|oxygen|sat|monitor|weigh|pounds|az[uú]car)\b",
    re.I,
)
"""Words between "thermometer" and its number that say it measured something else, or another reading followed."""


def _body_reading(match: re.Match[str]) -> bool:
    """A thermometer's number that is a body's temperature: nothing else measured between, and a decimal from 34 to
    43.9 (Celsius) or a number from 95 to 110 (Fahrenheit), or the unit said."""
    if _NOT_A_BODY.search(match.group(1)):
        return False
    number, unit = match.group(2), match.group(3)
    value = float(number.replace(",", "."))
    plausible = (34 <= value < 44 and not number.isdigit()) or 95 <= value <= 110
    return (plausible or unit is not None) and 34 <= _celsius(number, unit) <= 44


def _celsius(number: str, unit: str | None) -> float:
    """A temperature as said ("100.8", "39,2", with "F" or "C" or neither) in degrees Celsius."""
    value = float(number.replace(",", "."))
    if (unit or "").lower() == "f" or (not unit and value > 50):
        return (value - 32) * 5 / 9
    return value


def _temperature(text: str) -> Reading | None:
    """A temperature named outright ("temp 39.2", "fever of 104"); else what a thermometer said later on."""
    if match := _first(_PATTERNS["temperature"], text):
        value = _celsius(match.group(1), match.group(2))
        return _reading(match, round(value, 1)) if 25 <= value <= 45 else None
    if match := _first([_THERMOMETER], text, _body_reading):
        return _reading(match, round(_celsius(match.group(2), match.group(3)), 1))
    return None


def extract_vitals(text: str) -> Vitals:
    """Read the numbers a call-taker or crew would give; implausible values are ignored."""
    vitals = Vitals()
    for name, (group, low, high) in _PLAIN_READINGS.items():
        setattr(vitals, name, _plain(text, group, low, high) or _answered(text, name, low, high))
    match = _first(_PATTERNS["blood_pressure"], text, _blood_pressure)
    if match:
        vitals.systolic_bp = _reading(match, float(match.group(1)))
        vitals.diastolic_bp = _reading(match, float(match.group(2)))
    else:
        vitals.systolic_bp = _plain(text, "systolic_bp", 30, 300)
    vitals.temperature_c = _temperature(text)
    vitals.age_years = _age(text)
    for name in (
        "age_years",
        "heart_rate",
        "respiratory_rate",
        "spo2",
        "systolic_bp",
        "temperature_c",
        "gcs",
        "pain_score",
    ):
        reading = getattr(vitals, name)
        if reading is not None:
            vitals.readings[name] = reading
    return vitals


_AGE_WORDS = (
    (re.compile(r"\b(?:newborn|new born|neonate|infant|baby|babies|recien nacid[oa]|bebe|bebito|bebita)\b", re.I), 0.5),
    (re.compile(r"\b(?:toddler|preschooler|little (?:boy|girl|one)|nene|nena|ninito|ninita)\b", re.I), 3.0),
    (re.compile(r"\b(?:child|kid|nino|nina|chamaco|chamaca)\b", re.I), 8.0),
)


def age_in_years(vitals: Vitals, folded_text: str) -> float | None:
    """The patient's age: the one the message states, else a rough one from the words for a baby, a toddler or a
    child (accent-folded text), else None. For choosing what applies to an age band, never for the danger zones."""
    if vitals.age_years is not None:
        return vitals.age_years.value
    for pattern, years in _AGE_WORDS:
        if pattern.search(folded_text):
            return years
    return None
