"""The context reader with the shipped trigger lists: denial with list scope in both languages, history, hypotheses,
episodes over, other people's findings; a finding worded as a denial denies nothing else."""

from __future__ import annotations

import pytest

from triage_models.context import FindingContext
from triage_models.knowledge_base import load_knowledge
from triage_models.lexicon import tokenize


def context_of(sentence: str, finding: str, language: str = "en") -> FindingContext:
    """The context of the (first) words `finding` in `sentence`, as the product's reader gives it."""
    lowered = sentence.lower()
    start = lowered.index(finding)
    tokens = tokenize(lowered, (language,))
    inside = [t.index for t in tokens if t.start < start + len(finding) and start < t.end]
    reader = load_knowledge().context
    return reader.read(lowered, tokens, (language,)).of(inside[0], inside[-1])


@pytest.mark.parametrize(
    ("sentence", "finding", "negated"),
    [
        ("no fever, chills, or cough", "cough", True),
        ("denies cough, fever, chills", "chills", True),
        ("denies chest pain and shortness of breath", "shortness of breath", True),
        ("no wheezes, rales, or rhonchi", "rales", True),
        ("no fever, chest pain", "chest pain", False),
        ("he's not breathing, turning blue", "turning blue", False),
        ("not sure what happened, he's bleeding", "bleeding", False),
        ("it won't stop bleeding", "bleeding", False),
        ("my breathing and throat are fine", "breathing", True),
        ("never had chest pain like this before", "chest pain", False),
        ("it's not a big deal, I think I broke a rib or two", "broke", False),
        ("denies fever, she says her chest hurts", "chest hurts", False),
        ("deaf can't call chest hurts bad going down left arm", "chest hurts", False),
        ("a little hook in his cheek, nowhere near his eye", "eye", True),
        ("no fever, my husband is coughing", "coughing", False),
    ],
)
def test_english_denials_reach_their_list_and_stop_where_a_caller_moves_on(
    sentence: str, finding: str, negated: bool
) -> None:
    assert context_of(sentence, finding).negated is negated


@pytest.mark.parametrize(
    ("sentence", "finding", "negated"),
    [
        ("no tiene fiebre, tos ni vomito", "vomito", True),
        ("niega dolor de pecho, fiebre, nausea", "nausea", True),
        ("no respira, esta morado", "morado", False),
        ("no se que paso, esta sangrando", "sangrando", False),
        ("no para de sangrar", "sangrar", False),
        ("no esta embarazada", "embarazada", True),
        ("no es nada grave, yo creo que se quebro una costilla o dos", "quebro", False),
        ("no puedo hablar el me pego y tengo sangre en la boca", "me pego", False),
        ("soy sorda no puedo llamar me duele el pecho", "duele el pecho", False),
        ("no tiene el ojo hinchado", "hinchado", True),
        ("ya no camina esta confundido habla cosas raras", "confundido", False),
        ("no respira esta morado", "morado", False),
        ("no esta confundido", "confundido", True),
        ("no se esta moviendo", "moviendo", True),
        ("no esta respirando ni esta consciente", "consciente", True),
    ],
)
def test_spanish_denials_reach_their_list_and_stop_where_a_caller_moves_on(
    sentence: str, finding: str, negated: bool
) -> None:
    assert context_of(sentence, finding, "es").negated is negated


@pytest.mark.parametrize(
    ("sentence", "finding", "language", "expected"),
    [
        ("he had a stroke three years ago", "stroke", "en", "historical"),
        ("history of seizures, now chest pain", "chest pain", "en", ""),
        ("history of seizures, now chest pain", "seizures", "en", "historical"),
        ("what do I do if someone is choking", "choking", "en", "hypothetical"),
        ("I want to sign up for a CPR class", "cpr", "en", "hypothetical"),
        ("he choked on a grape but coughed it out and is talking normally", "choked", "en", "resolved"),
        ("my father died of a heart attack", "heart attack", "en", "other_person"),
        ("tuvo un derrame hace anos", "derrame", "es", "historical"),
        ("que hago si alguien se ahoga", "ahoga", "es", "hypothetical"),
        ("se atraganto pero ya lo tosio", "atraganto", "es", "resolved"),
        ("I just didn't want somebody to spot it and think someone drowned", "drowned", "en", "hypothetical"),
        ("no quiero que nadie piense que se ahogo alguien", "ahogo", "es", "hypothetical"),
        ("do you know if the shelters are open, my husband can't breathe", "breathe", "en", ""),
        ("do you know if the shelters are open, he can't breathe", "breathe", "en", ""),
        ("sabe si ya abrieron los refugios, mi esposo no puede respirar", "respirar", "es", ""),
        ("what do I do if my husband can't breathe", "breathe", "en", "hypothetical"),
    ],
)
def test_context_tells_history_hypotheses_episodes_over_and_other_people(
    sentence: str, finding: str, language: str, expected: str
) -> None:
    context = context_of(sentence, finding, language)
    found = [name for name in ("historical", "hypothetical", "resolved", "other_person") if getattr(context, name)]
    assert found == ([expected] if expected else [])


def test_a_finding_worded_as_a_denial_denies_nothing_else() -> None:
    from triage_models.protocols import read_call

    kb = load_knowledge()
    reading = read_call(kb, "he ain't waking up, he's breathing weird", ("en",), kb.context)
    assert {hit.finding for hit in reading.hits if hit.context.present} >= {"unresponsive", "breathing_abnormal"}


@pytest.mark.parametrize(
    ("text", "hypothetical"),
    [
        ("if a person isn't breathing you do compressions, right?", True),
        ("what do you do if someone is not breathing", True),
        ("si una persona no respira, cuantas compresiones se hacen", True),
        ("he isn't breathing", False),
        ("no respira ni responde", False),
    ],
)
def test_a_finding_worded_as_a_denial_is_still_hypothetical_after_if(text: str, hypothetical: bool) -> None:
    from triage_models.protocols import read_call

    kb = load_knowledge()
    language = "es" if "respira" in text else "en"
    reading = read_call(kb, text, (language,), kb.context)
    absent = [hit for hit in reading.hits if hit.finding == "breathing_absent"]
    assert absent and all(hit.context.hypothetical is hypothetical for hit in absent)


@pytest.mark.parametrize(
    ("sentence", "finding", "language", "historical"),
    [
        ("he gets agitated in the evenings, and tonight's no different", "agitated", "en", True),
        ("she's confused, that's usual for her", "confused", "en", True),
        ("he's agitated and confused tonight", "agitated", "en", False),
        ("se pone agitado en la tarde, como todas las tardes", "agitado", "es", True),
    ],
)
def test_a_finding_the_caller_calls_usual_for_the_patient_is_long_standing(
    sentence: str, finding: str, language: str, historical: bool
) -> None:
    assert context_of(sentence, finding, language).historical is historical


@pytest.mark.parametrize(
    ("text", "hypothetical"),
    [
        ("hola si mi esposo se cayo y no me contesta", False),  # "sí" without its accent: a yes
        ("bueno si, mi hijo no me contesta", False),
        ("si mi hijo se cae y no me contesta, que hago?", True),  # an "if"
    ],
)
def test_a_spanish_si_without_its_accent_is_a_yes_where_it_answers(text: str, hypothetical: bool) -> None:
    from triage_models.protocols import read_call

    kb = load_knowledge()
    reading = read_call(kb, text, ("es",), kb.context)
    unresponsive = [hit for hit in reading.hits if hit.finding == "unresponsive"]
    assert unresponsive and all(hit.context.hypothetical is hypothetical for hit in unresponsive)


@pytest.mark.parametrize(
    ("sentence", "finding", "language", "category", "expected"),
    [
        ("la sangre no para, ya esta bien blanco", "sangre", "es", "resolved", False),
        ("se le salio sangre pero ya esta bien", "sangre", "es", "resolved", True),
        ("she nearly passed out in the shower and she's spotting", "spotting", "en", "resolved", False),
        ("hace un mes mi ex me apreto el cuello", "apreto el cuello", "es", "historical", True),
        # When it began is no episode over (set AC: an asthma attack read as over).
        ("my asthma inhaler is not helping, i used it six times since i woke up", "asthma", "en", "resolved", False),
        ("she fainted but she woke up and she's talking", "fainted", "en", "resolved", True),
        ("tiene asma y el inhalador no le sirve desde que se desperto", "asma", "es", "resolved", False),
        ("se desmayo pero ya desperto", "desmayo", "es", "resolved", True),
        # Doubt about what happened is no hypothetical "if"; a question about what to do is one.
        ("i don't know if he took my pills, the bottle is empty", "bottle is empty", "en", "hypothetical", False),
        ("what do i do if he stops breathing", "stops breathing", "en", "hypothetical", True),
    ],
)
def test_words_that_look_like_a_trigger_but_say_something_else(
    sentence: str, finding: str, language: str, category: str, expected: bool
) -> None:
    assert getattr(context_of(sentence, finding, language), category) is expected


@pytest.mark.parametrize(
    ("sentence", "finding", "language", "animal"),
    [
        ("my dog isn't breathing, he ate something in the yard and now he won't wake up", "wake", "en", True),
        ("my dog isn't breathing", "breathing", "en", True),
        ("oh my god, um, our cat is having a seizure", "seizure", "en", True),
        ("the horse is down in the stall and isn't breathing, I think he's dead", "dead", "en", True),
        ("mi perro no respira. se comio algo y ahora no despierta", "despierta", "es", True),
        # A person named after the animal ends what is said of it.
        ("our dog found grandpa on the floor, he isn't breathing", "breathing", "en", False),
        ("my dog ran off and I chased him, now I can't breathe", "breathe", "en", False),
        ("the dog kept barking, he's on the floor and not breathing", "breathing", "en", False),
        ("the horse threw him and he's not breathing", "breathing", "en", False),
        ("mi perro lo mordio y esta sangrando mucho", "sangrando", "es", False),
        # An animal that does not open its clause is not who the clause is about.
        ("while walking the dog he collapsed and isn't breathing", "breathing", "en", False),
        ("I was walking the dog and my husband collapsed", "collapsed", "en", False),
        # A person in the finding's own words ("my head") is that person's.
        ("I tripped over my dog and hit my head", "hit my head", "en", False),
    ],
)
def test_what_is_said_of_an_animal_is_the_animals_until_a_person_is_named(
    sentence: str, finding: str, language: str, animal: bool
) -> None:
    context = context_of(sentence, finding, language)
    assert context.animal is animal
    assert context.current is not animal


def test_a_trigger_written_with_alternatives_stands_for_every_phrase() -> None:
    from triage_models.knowledge_base import _alternatives

    assert _alternatives("my|our dog|cat") == ["my dog", "my cat", "our dog", "our cat"]
    assert _alternatives("no longer") == ["no longer"]
