"""The chief complaint a queue line shows: the red flags kept, cut at words, from evidence as triage stores it."""

from __future__ import annotations

from app.incidents.complaint import complaint_from_evidence, first_sentence, shorten

LONG_CALL = (
    "Hi, this is about my father, he is 82 and has been feeling unwell since this morning, he is sweating a lot and "
    "now says he has crushing chest pain going to his left arm for maybe an hour"
)


def flag(text: str, phrase: str, esi_level: int, resolved: bool = False) -> dict[str, object]:
    start = text.index(phrase)
    return {
        "rule_id": phrase,
        "esi_level": esi_level,
        "span": [start, start + len(phrase)],
        "text": phrase,
        "resolved": resolved,
    }


def test_a_long_first_sentence_is_cut_at_a_word_not_mid_word() -> None:
    assert first_sentence(LONG_CALL) == (
        "Hi, this is about my father, he is 82 and has been feeling unwell since this morning, he is sweating a lot "
        "and now…"
    )
    assert shorten("short enough") == "short enough"


def test_the_complaint_keeps_the_red_flag_the_first_characters_would_cut() -> None:
    complaint = complaint_from_evidence(LONG_CALL, [flag(LONG_CALL, "crushing chest pain", 2)])
    assert complaint == (
        "…sweating a lot and now says he has crushing chest pain going to his left arm for maybe an hour"
    )
    assert len(complaint) <= 120


def test_the_most_urgent_flag_leads_and_other_flags_follow_once() -> None:
    text = "I called before about the rash. Now my son is not breathing properly. He also has a fever of 40."
    evidence = [flag(text, "fever", 3), flag(text, "not breathing", 1), flag(text, "rash", 4)]
    assert complaint_from_evidence(text, evidence) == "Now my son is not breathing properly · fever · rash"


def test_a_resolved_episode_ranks_after_a_live_flag_and_no_evidence_gives_the_first_sentence() -> None:
    text = "The baby choked on a grape. She coughed it out and is talking now. Her lips were blue and she is limp."
    evidence = [flag(text, "choked", 1, resolved=True), flag(text, "limp", 2)]
    assert complaint_from_evidence(text, evidence) == "Her lips were blue and she is limp · choked"
    assert complaint_from_evidence("Twisted ankle. Can walk.", []) == "Twisted ankle"


def test_a_shout_for_help_is_skipped_for_the_sentence_that_says_what_happened() -> None:
    assert first_sentence("EMERGENCY!! my son got a splinter in his finger") == "my son got a splinter in his finger"
    assert first_sentence("Help me please! Hello?? He fell off the roof.") == "He fell off the roof."
    assert first_sentence("¡¡EMERGENCIA!! mi hijo tiene una astilla") == "mi hijo tiene una astilla"
    assert first_sentence("Help! Help!") == "Help! Help!"  # nothing else said: the words as they are
    assert first_sentence("Dr. Smith here. Patient bleeding") == "Dr. Smith here"
    assert complaint_from_evidence("EMERGENCY!! splinter in the finger", []) == "splinter in the finger"


TRANSCRIPT = (
    "CT: 911, what is the address of your emergency?\nC: 88 Birch Road.\n"
    "C: My husband just collapsed, he's not breathing.\nCT: Is he awake?\nC: No, he doesn't answer."
)


def test_a_transcript_s_complaint_is_the_caller_s_words_without_the_speaker_label() -> None:
    assert complaint_from_evidence(TRANSCRIPT, [flag(TRANSCRIPT, "not breathing", 1)]) == (
        "My husband just collapsed, he's not breathing"
    )
    assert first_sentence(TRANSCRIPT) == "88 Birch Road"  # the call-taker's question is skipped, the label dropped
    spanish = "Operadora: ¿Cuál es su emergencia? Persona: Mi mamá se cayó en la cocina."
    assert first_sentence(spanish) == "Mi mamá se cayó en la cocina."
