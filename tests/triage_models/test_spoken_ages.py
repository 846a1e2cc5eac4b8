"""Ages as callers say them, in words or after "he's", in English and Spanish; other numbers are no age."""

from __future__ import annotations

import pytest

from triage_models.ages import spoken_age
from triage_models.transcript import fold_accents
from triage_models.vitals import age_in_years, extract_vitals


@pytest.mark.parametrize(
    ("text", "years"),
    [
        ("my boy is three and he fell off the bunk bed", 3.0),
        ("she's four, she swallowed a coin", 4.0),
        ("hes 6 he got hit by a car hes not moving", 6.0),
        ("a kid, looks like maybe 9, came off his bike", 9.0),
        ("the girl looks about eleven", 11.0),
        ("my grandma is eighty-six and she fell", 86.0),
        ("he's seventy one. he has chest pain", 71.0),
        ("a twenty-three year old with a cut hand", 23.0),
        ("my daughter is eighteen months and she has a fever", 1.5),
        ("my son is ten months old and hot", 10 / 12),
        ("a nine-month-old baby with a rash", 0.75),
        ("she is three weeks old and not feeding", 3 / 52),
        ("my granddaughter, aged twelve, fainted", 12.0),
        ("mi hija tiene tres años y se cayó", 3.0),
        ("mi nieto tiene diecinueve meses, tiene fiebre", 19 / 12),
        ("una bebita de siete meses que no deja de llorar", 7 / 12),
        ("un señor de como sesenta y cinco años está tirado", 65.0),
        ("el niño de cuatro años se tragó una moneda", 4.0),
        ("tiene veintidós años y le duele el pecho", 22.0),
        ("cumplió nueve años ayer y ahora tiene fiebre", 9.0),
        ("tiene 2 meses de nacido", 2 / 12),
        ("el bebe tiene dos semanas de vida", 2 / 52),
        ("a mi niño lo golpeó un carro tiene 12 eh años", 12.0),
        ("uh a two uh year old fell down the stairs", 2.0),
        ("my neighbor's eighty-four, she went down on her lanai", 84.0),
        ("our guest is seventy and he fell by the pool", 70.0),
        ("My daddy's 78 and he says he's got some indigestion", 78.0),
        ("my momma, 81, fell in the tub", 81.0),
        ("mi hijo de 16 le picó un alacrán en el pie", 16.0),
        ("mi papá de 70 tiene dolor en el pecho", 70.0),
        ("mi hija de 15 y su bebé de 3 semanas están aquí", 3 / 52),
        ("la señora de 12 se cayó, tiene 85 años", 85.0),
    ],
)
def test_an_age_said_in_words_or_after_a_subject_is_read(text: str, years: float) -> None:
    reading = extract_vitals(text).age_years
    assert reading is not None
    assert reading.value == pytest.approx(years)


@pytest.mark.parametrize(
    "text",
    [
        "he's been throwing up for two hours",
        "she fell about five minutes ago",
        "i have two kids here with me",
        "we are on floor two, apartment three",
        "she fell two floors",
        "he's two blocks from the station",
        "we are at 48 maple road",
        "the pain is two out of ten",
        "he has had a cough for two months",
        "she's five months pregnant and bleeding",
        "he's 98.6 degrees",
        "she is 5 foot 2",
        "hace dos años tuvo un infarto",
        "hace 5 años le operaron del corazón",
        "tiene dos meses con tos",
        "tiene dos hijos y está embarazada",
        "estamos en el piso dos",
        "se cayó hace cinco minutos",
        "está embarazada de ocho meses",
        "son las dos de la mañana",
        "she's 8 months and her water just broke",
        "mi esposa tiene 30 semanas y le duele la panza",
        "my daughter is 32 weeks and bleeding",
        "we got the bed from the store, she's 7 months and the baby kicks a lot",
        "el señor de la 3 se cayó",
        "la señora del 4 no abre",
        "mi mamá de 5 pies no alcanza",
        "my daddy, 5 minutes ago, fell",
        "he pops 2, sometimes 3 of his oxys",
        "mi hijo tiene 3 dias tiene fiebre",
        "mi vecino de 3 no abre",
    ],
)
def test_other_numbers_are_no_age(text: str) -> None:
    assert extract_vitals(text).age_years is None


def test_the_spoken_age_keeps_the_callers_words_as_its_span() -> None:
    text = "My son is two and he's not breathing"
    reading = spoken_age(text)
    assert reading is not None
    assert (reading.years, text[reading.start : reading.end]) == (2.0, "son is two")


def test_a_stated_age_in_words_wins_over_the_word_baby() -> None:
    text = "my baby is fourteen months and she's choking on a grape"
    assert age_in_years(extract_vitals(text), fold_accents(text)) == pytest.approx(14 / 12)
