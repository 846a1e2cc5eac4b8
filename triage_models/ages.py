"""Ages as callers say them, in English and Spanish: in words, or after the person they are about.

"my son is two", "he's 5", "looks about 7", "a fourteen-month-old", "tiene dos años", "un bebé de ocho meses".
Number words become numbers with text2num (allo-media's parser of spoken numbers, English and Spanish among its
languages). Which numbers are ages is decided here, by where they stand: after a word for the patient and "is",
after "looks"/"seems", before "years/months/weeks old", after "tiene", "cumplió" or a person "de". A bare number
after those is an age only when the clause ends there or goes on to something else ("he's 5 and he got hit"):
"he's two blocks away", "two kids", "floor two", "hace dos años", "tiene dos meses con tos" and "the 48" are no
age. Months and weeks are a baby's age only when said so ("old", "de nacido") or of a baby, a child or a "he":
"she's 8 months" and "mi esposa tiene 30 semanas" are pregnancies. Years set off by commas ("my daddy, 78, has") and
a bare "de 16" after "mi" and a child or kin ("mi hijo de 16 le picó") are ages; "la señora de 12" may be a flat.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from text_to_num import text2num

from triage_models.transcript import fold_accents

_EN_UNITS = "one|two|three|four|five|six|seven|eight|nine"
_EN_NUMBER = (
    rf"(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[\s-](?:{_EN_UNITS}))?|{_EN_UNITS}|ten|eleven"
    r"|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)"
)
_ES_UNITS = "uno|una|un|dos|tres|cuatro|cinco|seis|siete|ocho|nueve"
_ES_NUMBER = (
    rf"(?:(?:treinta|cuarenta|cincuenta|sesenta|setenta|ochenta|noventa)(?: y (?:{_ES_UNITS}))?|veinti[a-z]{{2,6}}"
    rf"|{_ES_UNITS}|diez|once|doce|trece|catorce|quince|dieci[a-z]{{3,6}}|veinte|cien)"
)
_DIGITS = r"\d{1,3}(?![.,]\d)"
_FILLER = r"(?:(?:uh|um|uhm|er|eh|em|este|pues) )?"
"""A filler between a number and its unit, as speech-to-text writes it ("tiene 12 eh años")."""
_EN_UNIT = r"(?P<unit>years?|yrs?|months?|mos?|weeks?|wks?)"
_ES_UNIT = r"(?P<unit>anos?|anitos?|meses|mes|semanas?|semanitas?|dias?)"
_HEDGE = r"(?:(?:only|just|about|around|maybe|like|probably|almost|nearly|barely) ){0,2}"
_ES_HEDGE = r"(?:(?:como|unos|unas|casi|apenas|ya|solo|nomas|nada mas) ){0,2}"
_EN_END = (
    r"(?=\s*(?:$|[.,;:!?)]|(?:and|but|or|so|now|he|she|they|it|i|we|you|hes|shes|his|her|my|please|maybe|years?"
    r"|yrs?)\b))"
)
_ES_END = r"(?=\s*(?:$|[.,;:!?)]|(?:y|e|pero|o|no|ya|el|ella|esta|se|le|lo|la|mi|su|ahora|por favor|ayer|hoy)\b))"
_EN_PERSON = (
    r"(?:he|she|who|son|daughter|boy|girl|child|kid|baby|toddler|grandson|granddaughter|nephew|niece|brother|sister"
    r"|patient|victim|man|woman|guy|lady|mom|mum|mother|dad|father|husband|wife|grand(?:ma|pa|mother|father)"
    r"|neighbou?r|uncle|aunt|auntie|friend|buddy|roommate|resident|guest|gentleman|client|partner"
    r"|daddy|mommy|momma|mama|mamma|papa|pops|granny|nana|papaw|pawpaw|mamaw|meemaw|gramps|grammy)"
)
_ES_PERSON = (
    r"(?:bebe|bebit[oa]|nin[oa]|ninit[oa]|hij[oa]|hijit[oa]|nene|nena|chamac[oa]|chamaquit[oa]|muchach[oa]|chic[oa]"
    r"|joven|senor|senora|senorita|hombre|mujer|paciente|abuel[oa]|abuelit[oa]|papa|mama|padre|madre|espos[oa]"
    r"|niet[oa]|herman[oa]|sobrin[oa]|persona|varon|criatura|chiquit[oa]|pequen[oa])"
)
_ENGLISH_PATTERNS = (
    # "a two-year-old", "fourteen months old", "three weeks old" (digits: vitals' own patterns).
    re.compile(rf"\b(?P<n>{_EN_NUMBER})[\s-]*{_FILLER}{_EN_UNIT}[\s-]*old\b", re.I),
    # "my son is two", "he's 5", "my daughter is fourteen months", "aged twelve", "I'm 61" (the caller is the patient).
    re.compile(
        rf"\b(?:{_EN_PERSON}(?:'s|s| is)|i'?m|i am|aged?) {_HEDGE}(?P<n>{_EN_NUMBER}|{_DIGITS})"
        rf"(?:[\s-]*{_EN_UNIT}(?:[\s-]*old)?)?" + _EN_END,
        re.I,
    ),
    # "my daddy, 78, has chest pain", "my neighbour, eighty-one, fell" (an age set off by commas after the person).
    re.compile(
        rf"\b{_EN_PERSON}, {_HEDGE}(?P<n>{_EN_NUMBER}|{_DIGITS})(?:[\s-]*(?:years?|yrs?)(?:[\s-]*old)?)?,", re.I
    ),
    # "looks about 7", "looks like maybe nine", "seems around eighty".
    re.compile(
        rf"\b(?:looks?|looked|looking|seems?|appears?)(?: to be| like)? {_HEDGE}(?P<n>{_EN_NUMBER}|{_DIGITS})"
        rf"(?:[\s-]*{_EN_UNIT}(?:[\s-]*old)?)?" + _EN_END,
        re.I,
    ),
)
_ES_KIN = r"(?:hij[oa]|hijit[oa]|niet[oa]|herman[oa]|sobrin[oa]|nin[oa]|chamac[oa]|muchach[oa]|papa|mama|abuel[oa])"
"""The people a bare "de 16" is an age of: kin and children ("la señora de 12" may be an apartment, "mi esposa de 8"
the months of a pregnancy)."""
_ES_BARE_END = r"(?=\s*(?:$|[.,;:!?)]|(?:ya|se|le|lo|la|me|tiene|tenia|esta|estaba)\b))"
"""Where a bare "de 16" may end: a pronoun or verb of the same person follows ("le picó", "tiene dolor"); not "y"
("mi hija de 15 y su bebé de 3 semanas": the baby's age is the one said with its unit)."""
_SPANISH_PATTERNS = (
    # "tiene dos años", "cumplió nueve años", "tiene 2 meses de nacido" (not "tiene dos meses con tos").
    re.compile(
        rf"\b(?:tiene|tenia|cumplio|cumple|va a cumplir) {_ES_HEDGE}(?P<n>{_ES_NUMBER}|{_DIGITS}) {_FILLER}{_ES_UNIT}"
        r"(?: de (?:edad|nacid[oa]|vida))?" + _ES_END,
        re.I,
    ),
    # "un bebé de ocho meses", "un señor de como sesenta y cinco años" (not "embarazada de ocho meses").
    re.compile(
        rf"\b{_ES_PERSON} (?:de|como de|de como) {_ES_HEDGE}(?P<n>{_ES_NUMBER}|{_DIGITS}) {_FILLER}{_ES_UNIT}\b"
        r"(?! de embarazo)",
        re.I,
    ),
    # "mi hijo de 16 le picó un alacrán", "mi papá de 70 tiene dolor" (years left unsaid, the clause going on).
    re.compile(rf"\bmi {_ES_KIN} (?:de|como de|de como) {_ES_HEDGE}(?P<n>{_ES_NUMBER}|{_DIGITS})" + _ES_BARE_END, re.I),
    # "dos semanas de vida", "ocho meses de nacido".
    re.compile(rf"\b(?P<n>{_ES_NUMBER}|{_DIGITS}) {_ES_UNIT} de (?:edad|nacid[oa]|vida)\b", re.I),
)
_PATTERNS = (*(("en", pattern) for pattern in _ENGLISH_PATTERNS), *(("es", pattern) for pattern in _SPANISH_PATTERNS))
"""Each pattern with the language its number words are parsed in."""
_ACCENTED = {"veintidos": "veintidós", "veintitres": "veintitrés", "veintiseis": "veintiséis"}
"""Spanish numbers text2num knows only with their accent, as callers type them without."""
_UNIT_YEARS = {"m": 12.0, "w": 52.0, "s": 52.0, "d": 365.0}
"""A unit's first letter (months, weeks, semanas, días/days) -> how many make a year; years and años are 1."""
_BORN = re.compile(r"\b(?:old|nacid[oa]|vida|edad)\b", re.I)
_BABY_OR_HE = re.compile(
    r"\b(?:he|son|boy|baby|child|kid|toddler|grandson|granddaughter|daughter|nephew|niece|brother|sister|girl|bebe"
    r"|bebit[oa]|nin[oa]|ninit[oa]|hij[oa]|hijit[oa]|nene|nena|niet[oa]|chiquit[oa]|pequen[oa]|criatura|el)\b",
    re.I,
)
_SUBJECT_REACH = 40
"""How many characters before a number of months or weeks the baby, child or "he" it is said of may stand."""
_MOST_WEEKS = 12
"""A baby's age is said in weeks up to about three months; more weeks are a pregnancy ("tiene 30 semanas")."""


def number_value(words: str, language: str) -> int | None:
    """A number in digits or words ("14", "fourteen", "setenta y dos"), or None when it is not one."""
    if words.isdigit():
        return int(words)
    spoken = " ".join(words.lower().replace("-", " ").split())
    try:
        return int(text2num(_ACCENTED.get(spoken, spoken), language))
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class SpokenAge:
    """An age found in a message, in years, and the span of `text` it was said in."""

    years: float
    start: int
    end: int


def _a_babys_age(folded: str, match: re.Match[str], number: int, unit: str) -> bool:
    """Months, weeks or days are a baby's age when said so ("old", "de nacido"), else only of a baby, a child or a
    "he" said just before, and weeks only up to `_MOST_WEEKS`: "she's 8 months" and "mi esposa tiene 30 semanas" are
    pregnancies."""
    if _BORN.search(match.group(0)):
        return True
    if unit[0] in "ws" and number > _MOST_WEEKS:
        return False
    # Searched in place (not in a slice), so that a word cut at the window's start ("t|he") is no "he".
    return _BABY_OR_HE.search(folded, max(0, match.start() - _SUBJECT_REACH), match.end()) is not None


def spoken_age(text: str) -> SpokenAge | None:
    """The earliest age said in words, or after the person it is about; None if none."""
    folded = fold_accents(text)
    found: list[SpokenAge] = []
    for language, pattern in _PATTERNS:
        for match in pattern.finditer(folded):
            number = number_value(match.group("n"), language)
            if number is None:
                continue
            unit = (match.groupdict().get("unit") or "y").lower()
            if unit[0] in _UNIT_YEARS and not _a_babys_age(folded, match, number, unit):
                continue
            years = number / _UNIT_YEARS.get(unit[0], 1.0)
            if 0 < years <= 120:
                found.append(SpokenAge(years, match.start(), match.end()))
                break
    return min(found, key=lambda age: age.start) if found else None
