"""The call's language: English and Spanish read, anything else flagged for an interpreter, never a calm guess."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from triage_models.language import _Detectors, detect_language


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("uh my dad he um fell down an he aint waking up uh hes like breathing weird", "en"),
        ("Caller states my husband, 67: he collapsed and is not breathing. CPR in progress.", "en"),
        ("chest pain", "en"),
        ("mi esposo no respira, por favor ayúdenme, está en el suelo y no responde", "es"),
        ("mi esposo no respira por favor ayudenme esta en el suelo y no responde", "es"),
        ("mi mama se cayo y le duele la cadera, she can't get up", "es"),
    ],
)
def test_english_and_spanish_calls_are_read(text: str, code: str) -> None:
    language = detect_language(text)
    assert (language.code, language.supported, language.reason) == (code, True, "")


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Chồng tôi không thở được, xin hãy giúp", "vi"),
        ("我丈夫不呼吸了", "zh"),
        ("زوجي لا يتنفس", "ar"),
        ("meu marido não está respirando, ele caiu no chão", "pt"),
        ("mój mąż nie oddycha", "pl"),
        ("zanmi mwen pa ka respire, li tonbe atè a", "ht"),
        ("Tanpri vini vit! Papa m tonbe nan kwizin nan, li pa reponn mwen epi li pa respire byen", "ht"),
    ],
)
def test_other_languages_need_an_interpreter(text: str, code: str) -> None:
    language = detect_language(text)
    assert (language.code, language.supported) == (code, False)
    assert language.reason.endswith("interpreter needed")


def test_haitian_creole_is_not_read_as_spanish_whatever_words_the_model_knows() -> None:
    """lingua knows no Haitian Creole; the model's vocabulary holds "papa", "pa", "la", "respire" and "route", and a
    Creole call once passed as Spanish on them (set AB: "Papa m tonbe ... li pa respire byen", ESI 3)."""
    call = (
        "Tanpri, vini vit! Papa m tonbe atè nan kwizin nan, li pa reponn mwen epi li pa respire byen. Nou sou Route 9."
    )
    known = {"papa", "pa", "la", "respire", "route", "ate", "epi"}
    language = detect_language(call, known.__contains__)
    assert (language.code, language.supported) == ("ht", False)
    spanish = "mi papa se cayo, dile que respire, no me contesta, estamos en la ruta 10"
    assert detect_language(spanish, known.__contains__).code == "es"


def test_a_triage_note_in_abbreviations_is_read_when_the_model_knows_its_words() -> None:
    note = "72F w/ R flank pain 10/10, writhing. Hx of HTN. NKA."
    known = {"flank", "writhing", "hx", "htn", "nka"}
    assert detect_language(note, known.__contains__).supported


def test_the_precise_detector_is_built_once_however_many_threads_ask_at_once() -> None:
    detectors = _Detectors()
    with ThreadPoolExecutor(4) as pool:
        built = list(pool.map(lambda _: detectors.precise_detector(), range(4)))
    assert {id(detector) for detector in built} == {id(detectors.precise)}
