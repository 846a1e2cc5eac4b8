"""Cardiac arrest recognised as dispatch protocols do: a patient who does not respond and whose breathing is absent,
abnormal or unknown; an awake patient gasping or short of breath is not in arrest."""

from __future__ import annotations

import pytest

from triage_models.rules import evaluate_rules

ARREST_RULES = frozenset({"A-NOT-BREATHING", "A-NOT-BREATHING-NORMALLY", "A-NO-PULSE", "A-RESUSCITATION"})


def fired(text: str) -> set[str]:
    return {hit.rule_id for hit in evaluate_rules(text) if hit.floor}


@pytest.mark.parametrize(
    "text",
    [
        "my dad collapsed, he won't answer me and I can't tell if he's breathing",
        "she's unconscious, i'm not sure if she is breathing",
        "he is out cold on the kitchen floor, I don't know whether he's breathing",
        "um my wife passed out and uh i cant tell if shes still breathing",
        "hes unconsious i dont no if hes breathing",
        "she's unconcsious on the couch and we're not sure she's breathing at all",
        "my brother is lying there unconscious, no idea if he's breathing",
    ],
)
def test_unresponsive_with_breathing_unknown_is_an_arrest_in_english(text: str) -> None:
    assert "A-NOT-BREATHING-NORMALLY" in fired(text)


@pytest.mark.parametrize(
    "text",
    [
        "mi esposo se cayó, no me contesta y no sé si respira",
        "mi mamá está tirada en el piso, no se mueve, no sabemos si está respirando",
        "no reacciona y no estoy segura si respira",
        "se desmayo mi tio no contesta no se si esta respirando",
        "mi papá se ha desplomado en la cocina y no me contesta, hace un ronquido bien raro",
        "mi abuelo no nos contesta y no respira bien, hace ruidos raros",
        "se desplomó en la calle, se puso todo morado y no responde",
    ],
)
def test_unresponsive_with_breathing_abnormal_or_unknown_is_an_arrest_in_spanish(text: str) -> None:
    assert "A-NOT-BREATHING-NORMALLY" in fired(text)


@pytest.mark.parametrize(
    "text",
    [
        "he's unconscious but he's breathing fine",
        "she fainted, she is breathing normally now and talking to me",
        "I can't breathe well, my chest is tight",
        "I don't know if he's breathing right, he's talking to me but wheezing",
        "no sé si respira bien, pero me está hablando",
        "respira normal pero no me contesta",
        "my mom can't tell if her inhaler is working, she's breathing fast",
    ],
)
def test_breathing_known_normal_or_a_patient_awake_is_no_arrest(text: str) -> None:
    assert fired(text) & ARREST_RULES == set()


@pytest.mark.parametrize(
    "text",
    [
        "my husband woke up gasping and can't catch his breath, he's sitting up on the edge of the bed",
        "she keeps waking up gasping at night and coughing pink froth",
        "he wakes up gasping, he's awake and talking but really short of breath",
        "mi esposo se despertó boqueando, está sentado y me habla",
    ],
)
def test_an_awake_patient_gasping_is_no_arrest(text: str) -> None:
    assert fired(text) & ARREST_RULES == set()


@pytest.mark.parametrize(
    ("text", "rule_id"),
    [
        ("he collapsed and he's gasping", "A-NOT-BREATHING"),
        ("my dad is on the floor gasping every few seconds", "A-NOT-BREATHING"),
        ("he woke up gasping and now he won't respond", "A-NOT-BREATHING-NORMALLY"),
        ("she is gasping, agonal breaths", "A-NOT-BREATHING"),
        ("está tirado en el piso boqueando", "A-NOT-BREATHING"),
    ],
)
def test_gasping_in_a_patient_not_said_to_be_awake_stays_an_arrest(text: str, rule_id: str) -> None:
    assert rule_id in fired(text)


@pytest.mark.parametrize(
    ("text", "rule_id"),
    [
        ("my wife woke up gasping, she's sitting on the side of the bed", "B-RESPIRATORY-DISTRESS"),
        ("he keeps gasping, he says his chest feels tight", "B-RESPIRATORY-DISTRESS"),
        ("my dad has to sit up on the edge of the bed to breathe", "B-RESPIRATORY-DISTRESS"),
        ("she can't lie flat, she can't breathe lying down", "B-RESPIRATORY-DISTRESS"),
        ("se despertó boqueando y está sentado en la cama", "B-RESPIRATORY-DISTRESS"),
        ("tiene que estar sentada para poder respirar", "B-RESPIRATORY-DISTRESS"),
        ("she's coughing up pink foamy spit and can't get her breath", "A-SEVERE-RESPIRATORY-DISTRESS"),
        ("pink frothy sputum, coughing, sats dropping", "A-SEVERE-RESPIRATORY-DISTRESS"),
        ("está tosiendo una espuma rosada y le falta el aire", "A-SEVERE-RESPIRATORY-DISTRESS"),
        ("tose flemas rosadas con espuma, no puede acostarse", "A-SEVERE-RESPIRATORY-DISTRESS"),
    ],
)
def test_an_awake_patient_short_of_breath_is_respiratory_distress(text: str, rule_id: str) -> None:
    assert rule_id in fired(text)


@pytest.mark.parametrize(
    "text",
    [
        "she has pink eye and a cough",
        "he bought a pink foam mattress and now his back hurts",
        "the baby spit up some milk, she's fine",
        "echa espuma por la boca después de la convulsión",
    ],
)
def test_pink_or_foam_without_a_cough_of_it_is_no_severe_distress(text: str) -> None:
    assert "A-SEVERE-RESPIRATORY-DISTRESS" not in fired(text)
