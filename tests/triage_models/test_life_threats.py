"""Each immediate threat to life is a concept, not a phrase: found in other word orders, verb forms, misspellings and in
Spanish, and not when denied, over, hypothetical or someone else's. Written apart from the protocols' own examples."""

from __future__ import annotations

import pytest

from triage_models.rules import evaluate_rules

FIRES: dict[str, list[str]] = {
    "A-NOT-BREATHING": [
        "my wife has stopped breathing",
        "breathing has stopped, he's blue",
        "she isnt breathing at all",
        "my son... he's not breething",
        "mi hija dejó de respirar",
        "ya no respira mi papá",
        # An animal in the call, a person the patient.
        "our dog found grandpa on the floor, he isn't breathing",
        "while walking the dog he collapsed and isn't breathing",
        "the dog kept barking, he's on the floor and not breathing",
        "our dog found him in the yard, he's not breathing",
        "the horse came back alone, he's not breathing",
    ],
    "A-NOT-BREATHING-NORMALLY": [
        "he dropped in the hallway, he's making a snoring noise and won't answer",
        "unconscious and gurgling",
        "she wont wake up and her breathing is really strange",
        "found my brother out cold, breathing funny",
        "no despierta y hace como un ronquido",
        "se desmayó y respira muy raro",
    ],
    "A-NO-PULSE": ["i cant feel a pulse", "no heartbeat", "no le encuentro el pulso"],
    "A-RESUSCITATION": ["we're doing CPR right now", "compressions started", "le estamos haciendo RCP"],
    "A-CHOKING": [
        "my baby is choking on a grape and can't cry",
        "he choked on meat and can't talk or cough",
        "something is stuck in her throat, she can't breathe",
        "mi niño se está ahogando con un dulce",
        "se atragantó con un pedazo de carne y no puede hablar",
    ],
    "A-ARTERIAL-BLEEDING": ["blood is spurting out of his leg", "la sangre le sale a chorros, salpica"],
    "B-BLEEDING-HEAVY": [
        "the bleeding won't stop, it's soaked through three towels",
        "he is bleeding really heavily from the arm",
        "le sale mucha sangre y no para",
    ],
    "A-ANAPHYLAXIS": [
        "after the bee sting my throat feels like it's closing",
        "his tongue and lips are swelling up after peanuts",
        "se me está cerrando la garganta",
        "se me cierra la garganta después de una picadura de abeja",
        "se le hinchó la lengua después de comer camarón",
    ],
    "A-SEIZURE-ONGOING": [
        "she's been seizing for ten minutes and won't stop",
        "he keeps having one seizure after another",
        "lleva diez minutos convulsionando",
    ],
    "A-SEVERE-RESPIRATORY-DISTRESS": [
        "she can only get one word out at a time",
        "his lips are turning blue, he's struggling to breathe",
        "the baby's ribs are pulling in with every breath",
        "solo puede decir palabras sueltas",
        "tiene los labios morados y no puede respirar",
    ],
    "A-SHOCK": [
        "he's cold and clammy and grey",
        "está pálido, frío y sudoroso",
    ],
    "A-SHOCK-SKIN": ["she's pale, sweaty and really cold", "se puso pálida, suda y está helada"],
    "A-UNRESPONSIVE": ["she won't respond to anything", "he is unconscious", "no reacciona a nada"],
}

DOES_NOT_FIRE: dict[str, list[str]] = {
    "A-NOT-BREATHING": [
        "I can't breathe, my asthma is bad",
        "he is breathing normally now",
        "what should I do if my baby stops breathing",
        "no puedo respirar bien por la gripa",
        "my dog isn't breathing, what vet is open?",
        "mi perro no respira, se comio veneno de ratas",
    ],
    "A-NOT-BREATHING-NORMALLY": [
        "he snores every night",
        "she fainted but she's awake now and breathing normally",
        "se desmayó pero ya despertó y respira bien",
    ],
    "A-NO-PULSE": ["my dad died of a heart attack years ago", "no pulse in his left foot"],
    "A-RESUSCITATION": ["I want to take a CPR class", "quiero tomar un curso de RCP"],
    "A-CHOKING": [
        "he choked on a grape but coughed it out and is talking normally",
        "what do you do when a baby chokes",
        "se atragantó pero ya lo tosió y está bien",
    ],
    "B-BLEEDING-HEAVY": ["small cut on my finger, bleeding a little", "the bleeding stopped", "ya no sangra"],
    "A-ANAPHYLAXIS": ["no swelling, no trouble breathing, just itchy", "no tiene hinchazón en la garganta"],
    "A-SEIZURE-ONGOING": ["he had a seizure last year", "tuvo una convulsión hace años"],
    "A-SEVERE-RESPIRATORY-DISTRESS": ["she has a blue shirt on", "his lips are fine, he is talking normally"],
    "A-SHOCK": ["it's cold outside and I'm shivering a bit", "hace frío y tengo escalofríos"],
    "A-UNRESPONSIVE": [
        "she's awake and answering me",
        "está despierto y me contesta",
        "our cat won't wake up, she's fifteen",
    ],
}


def fired(text: str) -> set[str]:
    """The determinants that set a floor on the call."""
    return {hit.rule_id for hit in evaluate_rules(text) if hit.floor}


@pytest.mark.parametrize(("rule_id", "text"), [(rule, text) for rule, texts in FIRES.items() for text in texts])
def test_a_life_threat_is_found_in_other_words_orders_forms_and_spanish(rule_id: str, text: str) -> None:
    assert rule_id in fired(text)


@pytest.mark.parametrize(("rule_id", "text"), [(rule, text) for rule, texts in DOES_NOT_FIRE.items() for text in texts])
def test_a_life_threat_denied_over_hypothetical_or_past_is_not_found(rule_id: str, text: str) -> None:
    assert rule_id not in fired(text)
