"""The address and call-back number read from the caller's answers, in a live call's utterances and in a posted
transcript's turns."""

from __future__ import annotations

from app.live.answers import SpokenTurn, posted_turns, read_address, read_callback_number

POSTED = (
    "CT: 911, what is the address of your emergency? C: Um, 4120 West Maple Avenue, apartment 3. "
    "CT: What is the number you are calling from? C: five five five, two one two, four four three nine. "
    "CT: Tell me exactly what happened. C: My dad collapsed in the kitchen."
)


def test_posted_turns_split_a_transcript_by_track_and_trim_each_turn() -> None:
    assert posted_turns(POSTED) == [
        SpokenTurn("call_taker", "911, what is the address of your emergency?"),
        SpokenTurn("caller", "Um, 4120 West Maple Avenue, apartment 3."),
        SpokenTurn("call_taker", "What is the number you are calling from?"),
        SpokenTurn("caller", "five five five, two one two, four four three nine."),
        SpokenTurn("call_taker", "Tell me exactly what happened."),
        SpokenTurn("caller", "My dad collapsed in the kitchen."),
    ]


def test_a_posted_transcript_gives_the_address_and_the_number_its_caller_answered() -> None:
    turns = posted_turns(POSTED)
    address, number = read_address(turns), read_callback_number(turns)
    assert address is not None and (address.value, address.index) == ("4120 West Maple Avenue, apartment 3", 1)
    assert number is not None and (number.value, number.index) == ("+15552124439", 3)


def test_a_spanish_transcript_with_typed_labels_is_read_too() -> None:
    turns = posted_turns(
        "Operadora: ¿Cuál es la dirección de su emergencia? Persona: Estoy en la calle Ocho 215. "
        "Operadora: ¿Su número de teléfono? Persona: 602 555 0142"
    )
    address, number = read_address(turns), read_callback_number(turns)
    assert address is not None and address.value == "la calle Ocho 215"
    assert number is not None and number.value == "+16025550142"


def test_a_transcript_without_the_questions_or_without_labels_gives_nothing() -> None:
    assert posted_turns("my dad collapsed at 12 Elm Street, call me at 602 555 0142") == []
    asked_nothing = posted_turns("CT: 911, what's your emergency? C: my dad collapsed at 12 Elm Street")
    assert (read_address(asked_nothing), read_callback_number(asked_nothing)) == (None, None)
