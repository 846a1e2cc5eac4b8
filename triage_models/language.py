"""The language of a call: English or Spanish (supported), or another one a person must read (interpreter needed).

`lingua-language-detector` (its models ship in the wheel, no download) names the language; it is accurate on
sentences but guesses on a few words ("chest pain" can come out as Somali), so a second, independent reading
guards it: the share of the call's words that are common English or Spanish words. A call is read as another
language only when both agree that it is not English or Spanish, or when most of its letters are in a script
neither uses. Triage never guesses a calm level for a call it cannot read (see `esi.decide`).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from triage_models.transcript import fold_accents

SUPPORTED_LANGUAGES = ("en", "es")
DETECTION_CHARS = 400
"""lingua reads the head of the call: enough for a sure answer, bounded in time."""
FOREIGN_SCRIPT_SHARE = 0.3
"""A call whose letters are this much outside the Latin script is neither English nor Spanish."""
KNOWN_WORD_SHARE = 0.3
"""With at least this share of common English or Spanish words a call is read as one of them, whatever lingua says."""
LINGUA_SURE = 0.5
"""lingua's confidence above which its answer is taken for a call with few common words."""
LINGUA_CERTAIN = 0.8
OWN_WORDS_CERTAIN = 0.5
"""lingua this sure of another language overrules the word reading unless half the words are common English or
Spanish ones: Portuguese shares many words with Spanish, yet the Spanish rules cannot read it."""

# Common words of each language, as callers and transcription systems write them (lower case, accents folded as
# `transcript.fold_accents` folds them).
# Words both languages share ("no", "a", "me", "son"...) are in neither list. Not a dictionary: a guard on lingua.
_ENGLISH_WORDS = frozenset(
    """
    the and he she his her him is are was were not my i it in on of with for has have had can cant can't wont
    won't dont don't isnt isn't aint ain't hes he's shes she's im i'm its it's at to from this that there
    theres there's they them their we our you your what when where why how who just like um uh so but or if
    then now out up down off over about very really some any all been being be do does did get got go going
    went come came back fell fall fallen hurt hurts pain help please breathing breathe breath bleeding blood
    chest head arm leg hand foot back stomach wife husband son daughter mom mother dad father baby child kid
    guy man woman lady old year years yo minutes hours hour ago day days today yesterday night morning home
    floor bed car house work ambulance send need needs needed call called think thought looks look looking
    seems feel feels felt sick face lips blue turning passed waking wake awake conscious responding answer
    talk talking says said patient pt denies presents history states reports per ems biba vs bp hr rr pulse
    temp since after before while also still again an by one been right left side weak dizzy vomiting throwing
    fever cough cut broke broken swollen swelling ankle knee wrist finger toe neighbor neighbour friend
    brother sister grandma grandpa grandmother grandfather street sidewalk store outside inside kitchen
    bathroom stairs ok okay yes yeah hello hi sos hey sir maam
    """.split()  # noqa: SIM905
)
_SPANISH_WORDS = frozenset(
    """
    el la los las un una unos unas y o de del en con por para que mi mis su sus se le lo les es esta estan
    esto este eso ese esa muy mas pero porque cuando donde como quien ya tiene tengo tenia hay fue era estaba
    esta estoy puede pueden ayuda ayudenme ayudeme favor respira respirar respirando despierta responde dolor
    pecho cabeza sangre sangrando cayo esposo esposa hijo hija mama papa nino nina bebe senor senora abuela
    abuelo hermano hermana vecino vecina amigo hombre mujer anos ano minutos horas hace ahora ayer hoy noche
    manana casa piso suelo cama carro calle tienda trabajo ambulancia manden necesito necesita creo parece
    siente sentia mal malo enfermo cara labios morado azul desmayo desmayado inconsciente despertar hablar
    habla dice dijo paciente tambien todavia otra otro vez poco mucho nada algo todo todos bien brazo pierna
    mano pie espalda estomago barriga garganta vomitando vomito fiebre tos corte roto hinchado tobillo rodilla
    muneca dedo ahogando ahoga convulsion convulsionando pastillas aqui alli alla ella ellos nosotros usted
    ustedes yo tu sin parar nadie ningun ninguna desde hasta sobre entre tiempo
    """.split()  # noqa: SIM905
)
_HAITIAN_CREOLE_WORDS = frozenset(
    """
    mwen li nou pa ka tanpri souple vini vit tonbe respire reponn byen malad lopital anbilans dokte manman pitit
    timoun granmoun bezwen ede konnen kounye kounyea genyen gen pou ak yon sa ki kote kay isit tet vant pwatrin dlo
    lafyev vomi touse soufle pale kapab pwoblem fanm mari fre ap pral toujou anpil anko chita kouche leve mache sou
    kwizin twalet legliz lekol machin aksidan frape blese rele rive fini
    """.split()  # noqa: SIM905
)
"""Common Haitian Creole words (accents folded), none of them a common English or Spanish word. lingua has no model
of Haitian Creole, one of the languages most heard at US centres (Miami, New York, Boston): without these a Creole
call came out as Spanish, read by the Spanish rules and the model's vocabulary ("papa", "respire", "route")."""
HAITIAN_CREOLE_SHARE = 0.25
"""A call with this share of Haitian Creole words (and more of them than English and Spanish ones) is read as it."""
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


@dataclass(frozen=True, slots=True)
class CallLanguage:
    """What triage knows of a call's language."""

    code: str
    """ISO 639-1 code ("en", "es", "vi"...), or "und" when the language cannot be named."""
    supported: bool
    confidence: float
    """lingua's confidence in `code`; when the common words decided alone, their share of the call's words (0 for a
    call of a few words)."""
    reason: str = ""
    """Why a call is not read as English or Spanish, for the dispatcher ("interpreter needed")."""

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "supported": self.supported,
            "confidence": round(self.confidence, 3),
            "reason": self.reason,
        }


def _latin_share(text: str) -> float:
    """The share of letters in the Latin script (1.0 for a call with no letters)."""
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return 1.0
    latin = sum(1 for ch in letters if ord(ch) < 0x250 or 0x1E00 <= ord(ch) <= 0x1EFF)
    return latin / len(letters)


_LANGUAGE_NAMES = (  # noqa: SIM905
    "ENGLISH SPANISH CHINESE VIETNAMESE ARABIC TAGALOG KOREAN RUSSIAN FRENCH PORTUGUESE SOMALI "
    "POLISH HINDI JAPANESE PERSIAN ITALIAN GERMAN UKRAINIAN URDU BENGALI YORUBA SWAHILI TURKISH "
    "ROMANIAN DUTCH INDONESIAN THAI GREEK HEBREW PUNJABI GUJARATI TAMIL ALBANIAN"
).split()
"""The languages most often heard at US and European dispatch centres."""


def _build() -> Any:
    from lingua import Language, LanguageDetectorBuilder

    builder = LanguageDetectorBuilder.from_languages(*(getattr(Language, name) for name in _LANGUAGE_NAMES))
    return builder.with_preloaded_language_models().build()


class _Detectors:
    """lingua's detector with every language model loaded (several seconds and about 600 MB), built once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.precise: Any = None

    def precise_detector(self) -> Any:
        with self.lock:  # one build, however many threads ask at once
            if self.precise is None:
                self.precise = _build()
            return self.precise

    def now(self) -> Any:
        """The detector, built now if it is not yet."""
        return self.precise if self.precise is not None else self.precise_detector()


_DETECTORS = _Detectors()


def load_language_models() -> None:
    """Load the language detector's models at a process's start (otherwise the first call whose language is unclear
    loads them, and every call queued behind it waits). A process that will fork (a classify worker) loads them
    before it forks: lingua builds on a Rust thread pool that a forked child inherits without its threads, so a child
    must never build."""
    _DETECTORS.precise_detector()


def precise_models_loaded() -> bool:
    """Whether the precise language models are loaded (what `/readyz` and the warm-up log report)."""
    return _DETECTORS.precise is not None


def _lingua(text: str) -> tuple[str, float]:
    """lingua's most likely language (ISO 639-1, lower case) and its confidence."""
    values = _DETECTORS.now().compute_language_confidence_values(text[:DETECTION_CHARS])
    if not values:
        return "und", 0.0
    best = values[0]
    return str(best.language.iso_code_639_1.name).lower(), float(best.value)


def _common_words(words: list[str]) -> tuple[int, int]:
    """How many of the (folded) words are common English words, and how many common Spanish ones. One-letter words
    ("y", "o", "f", "l") are as often abbreviations as words: they count for neither."""
    english = sum(1 for word in words if len(word) > 1 and word in _ENGLISH_WORDS)
    spanish = sum(1 for word in words if len(word) > 1 and word in _SPANISH_WORDS)
    return english, spanish


def _haitian_creole(words: list[str], ours: int) -> CallLanguage | None:
    """The call read as Haitian Creole (not supported), when its words say so: at least three distinct common Creole
    words, a share of `HAITIAN_CREOLE_SHARE`, more of them than common English and Spanish ones."""
    found = [word for word in words if word in _HAITIAN_CREOLE_WORDS]
    share = len(found) / len(words)
    if len(set(found)) < 3 or share < HAITIAN_CREOLE_SHARE or len(found) <= ours:
        return None
    return CallLanguage("ht", False, round(share, 3), "language not supported (ht): Haitian Creole; interpreter needed")


def rule_languages(text: str) -> tuple[str, ...]:
    """The wordings the red-flag rules read a call in: English, Spanish, or both when the call mixes them (two common
    words of the other language are enough: Spanglish is read both ways), names no common word of either, or is in
    another language (its rule floors still count). Words alone decide: the
    same text is always read the same way, in training and in service."""
    english, spanish = _common_words([fold_accents(word.lower()) for word in _WORD.findall(text)])
    if english and spanish < 2:
        return ("en",)
    if spanish and english < 2:
        return ("es",)
    return SUPPORTED_LANGUAGES


def _foreign(code: str, confidence: float, why: str) -> CallLanguage:
    named = code if confidence >= LINGUA_SURE else "und"
    label = f"language not supported ({named})" if named != "und" else "language not recognised"
    return CallLanguage(named, False, confidence, f"{label}: {why}; interpreter needed")


def detect_language(text: str, known: Callable[[str], bool] | None = None) -> CallLanguage:
    """English, Spanish, or another language (flagged: the call needs an interpreter and a person's reading).

    `known` tells a word the triage model was trained on (its vocabulary): such words count as readable too, so an
    abbreviated triage note ("72F w/ R flank pain, hx HTN") is not mistaken for a foreign language.
    """
    if _latin_share(text) < 1 - FOREIGN_SCRIPT_SHARE:
        code, confidence = _lingua(text)
        return _foreign(code, confidence, "written in another script")
    words = [fold_accents(word.lower()) for word in _WORD.findall(text)]
    if not words:
        return CallLanguage("en", True, 0.0)  # numbers and signs only: the rules read what there is
    # One-letter words ("y", "o", "f", "l") are as often abbreviations as words: they choose no language.
    english, spanish = _common_words(words)
    creole = _haitian_creole(words, english + spanish)
    if creole is not None:
        return creole
    ours = (english + spanish) / len(words)
    if ours >= OWN_WORDS_CERTAIN and max(english, spanish) >= 3 * min(english, spanish):
        # Plainly English or plainly Spanish: lingua (the slowest step of triage) has nothing to add.
        return CallLanguage("en" if english > spanish else "es", True, round(ours, 3))
    readable = sum(1 for word in words if word in _ENGLISH_WORDS or word in _SPANISH_WORDS or (known and known(word)))
    code, confidence = _lingua(text)
    if code not in SUPPORTED_LANGUAGES and confidence >= LINGUA_CERTAIN and ours < OWN_WORDS_CERTAIN:
        return _foreign(code, confidence, "the words are not English or Spanish")
    if readable / len(words) >= KNOWN_WORD_SHARE:
        if code in SUPPORTED_LANGUAGES and confidence >= LINGUA_SURE:
            return CallLanguage(code, True, confidence)
        return CallLanguage("en" if english >= spanish else "es", True, 0.0)
    if code in SUPPORTED_LANGUAGES and confidence >= LINGUA_SURE:
        return CallLanguage(code, True, confidence)
    if len(words) <= 3 and english + spanish > 0:  # a few words, some of them ours ("chest pain"): not foreign
        return CallLanguage("en" if english >= spanish else "es", True, 0.0)
    return _foreign(code, confidence, "few English or Spanish words")
