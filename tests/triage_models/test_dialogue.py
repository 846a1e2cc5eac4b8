"""Both sides of a live call: the call-taker's questions are not findings; a key question makes the answer one."""

from __future__ import annotations

from triage_models.dialogue import turns
from triage_models.knowledge_base import load_knowledge
from triage_models.protocols import read_call


def present(text: str, language: str = "en") -> set[str]:
    kb = load_knowledge()
    return read_call(kb, text, (language,), kb.context).present()


def test_turns_split_a_labelled_transcript_by_speaker() -> None:
    text = "CT: 911, what is the address of the emergency?\nC: 12 Elm Street, my dad collapsed"
    assert [(turn.speaker, text[turn.start : turn.end].strip()) for turn in turns(text)] == [
        ("call_taker", "911, what is the address of the emergency?"),
        ("caller", "12 Elm Street, my dad collapsed"),
    ]


def test_a_text_without_a_call_taker_is_no_dialogue() -> None:
    assert turns("Caller: my dad collapsed") == []


def test_the_call_takers_words_are_not_findings() -> None:
    assert "respiratory_distress" not in present("CT: is he having trouble breathing?\nC: I don't think so")


def test_an_answer_to_a_key_question_is_a_finding() -> None:
    call = "CT: is he awake?\nC: no\nCT: is he breathing normally?\nC: no, kind of snoring"
    assert {"unresponsive", "breathing_abnormal"} <= present(call)


def test_an_answer_that_opens_with_a_filler_is_the_caller_s() -> None:
    # The filler and its comma go; the caller's label stays a label ("C:, he" was read as the call-taker's words).
    call = "CT: Is he awake, is he breathing?\nC: Um, no, he won't wake up, and he's kind of snoring"
    assert {"unresponsive", "breathing_abnormal"} <= present(call)
    assert "unresponsive" in present("CT: Is he breathing?\nC: Uh, yeah. CT: Is he awake?\nC: Um, no")


def test_an_answer_that_opens_with_an_interjection_is_still_the_answer() -> None:
    call = "C: my dad fell over\nCT: is he awake?\nC: oh no\nCT: is he breathing normally?\nC: well, no"
    assert {"unresponsive", "breathing_not_normal"} <= present(call)
    assert "breathing_not_normal" in present("CT: ¿respira normalmente?\nC: ay, no", "es")
    assert "breathing_not_normal" not in present("CT: is he breathing normally?\nC: oh, yes, he's breathing fine")


def test_i_dont_know_to_the_breathing_question_is_breathing_not_known() -> None:
    assert "breathing_unknown" in present("CT: is she breathing normally?\nC: I don't know, I can't tell")


def test_a_spanish_answer_to_a_key_question_is_a_finding() -> None:
    call = "CT: ¿está despierto?\nC: no\nCT: ¿respira normalmente?\nC: no sé"
    assert {"unresponsive", "breathing_unknown"} <= present(call, "es")


def test_the_answers_fire_the_arrest_determinant() -> None:
    kb = load_knowledge()
    call = "C: my husband just fell over\nCT: is he awake?\nC: no\nCT: is he breathing normally?\nC: no"
    reading = read_call(kb, call, ("en",), kb.context)
    assert [item.rule_id for item in reading.evidence] == ["A-UNRESPONSIVE", "A-NOT-BREATHING-NORMALLY", "B-COLLAPSE"]
    assert {"awake", "breathing_normally"} <= set(reading.answered)


def test_a_relayed_answer_and_a_yes_to_a_degree_are_answers() -> None:
    assert "breathing_unknown" in present("CT: is she breathing normally?\nC: he says he doesn't know")
    assert "breathing_not_normal" in present("CT: is he breathing normally?\nC: she says no")
    call = "CT: is she having trouble breathing?\nC: a little"
    assert "respiratory_distress" in present(call)


def test_a_question_that_takes_its_finding_for_granted_is_confirmed_by_a_content_answer() -> None:
    assert "gunshot_wound" in present("CT: where was he shot?\nC: in the chest")
    assert "gunshot_wound" not in present("CT: was he shot?\nC: no, he fell")


def test_a_question_asked_as_a_difficulty_is_not_the_can_he_question() -> None:
    # "any problems talking?" "no" is speech that is fine, not a patient who cannot speak (severe distress)
    assert {"severe_respiratory_distress", "choking_complete_obstruction"}.isdisjoint(
        present("CT: ¿Tiene debilidad o problemas para hablar?\nC: No, nada de eso.", "es")
    )
    assert "severe_respiratory_distress" not in present("CT: is he having any trouble talking?\nC: no")
    assert "severe_respiratory_distress" in present("CT: can he talk to you?\nC: no")


def test_a_yes_to_trouble_breathing_or_swallowing_is_no_allergy_by_itself() -> None:
    kb = load_knowledge()
    plain = read_call(kb, "CT: is she having trouble breathing?\nC: yes", ("en",), kb.context)
    stung_call = "she got stung by a bee\nCT: any trouble breathing or swallowing?\nC: yes"
    stung = read_call(kb, stung_call, ("en",), kb.context)
    assert "A-ANAPHYLAXIS" not in {item.rule_id for item in plain.evidence}
    assert "A-ANAPHYLAXIS" in {item.rule_id for item in stung.evidence}
