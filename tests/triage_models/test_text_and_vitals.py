"""Tests for message cleaning and vital-sign reading (negation scope: test_context.py)."""

from __future__ import annotations

import pytest

from triage_models.text import InvalidMessageError, coerce_text, truncate
from triage_models.vitals import extract_vitals


def test_non_utf8_bytes_are_decoded_with_replacement() -> None:
    assert coerce_text(b"chest pain \xff\xfe since noon") == "chest pain \ufffd\ufffd since noon"


@pytest.mark.parametrize("message", ["", "   ", "\x00\x01", b""])
def test_empty_messages_are_refused_with_a_reason(message: str | bytes) -> None:
    with pytest.raises(InvalidMessageError, match="empty"):
        coerce_text(message)


def test_control_characters_are_dropped_and_long_text_is_truncated() -> None:
    assert coerce_text("a\x07b") == "a b"
    text, cut = truncate("x" * 100_000, 8_000)
    assert (len(text), cut) == (8_000, True)


def test_vitals_are_read_with_units_and_ages() -> None:
    vitals = extract_vitals("72 yo male, HR 130, BP 82/50, RR 28, SpO2 86%, temp 102.2 F")
    assert {name: reading.value for name, reading in vitals.readings.items()} == {
        "age_years": 72.0,
        "heart_rate": 130.0,
        "respiratory_rate": 28.0,
        "spo2": 86.0,
        "systolic_bp": 82.0,
        "temperature_c": 39.0,
    }
    assert extract_vitals("3 month old with a fever").age_years is not None
    assert extract_vitals("3 month old with a fever").age_years.value == 0.25  # type: ignore[union-attr]
    assert extract_vitals("sats are 91 percent").spo2.value == 91.0  # type: ignore[union-attr]


def test_implausible_numbers_are_ignored() -> None:
    vitals = extract_vitals("HR 900, SpO2 5%")
    assert vitals.heart_rate is None and vitals.spo2 is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("B/P 80/40, HR 120", {"systolic_bp": 80.0, "heart_rate": 120.0}),
        # A pressure told by how it moved: "dropped to", "came back up to", "le bajó a".
        ("Dialysis unit calling, patient's pressure dropped to 78/40 in the chair", {"systolic_bp": 78.0}),
        ("her pressure came back up to 104/60", {"systolic_bp": 104.0}),
        ("la presión le bajó a 80/50", {"systolic_bp": 80.0}),
        ("the pressure washer does 3000 psi", {}),
        ("her pressure's dropped all the way down to 64/30", {"systolic_bp": 64.0}),
        ("le bajó la presión a 64/30 en la diálisis", {"systolic_bp": 64.0}),
        # A tyre's, a pipe's, a tank's or an eye's pressure is no blood pressure; nor a pair whose second is higher.
        ("my tire pressure was 30/32 and the car slid into the ditch", {}),
        ("the water pressure came back up to 60/80 and the pipe burst", {}),
        ("the tank pressure came up to 80/90 and the valve blew", {}),
        ("his eye pressure was 45/40 at the eye doctor", {}),
        ("la llanta tiene la presión en 30/35", {}),
        ("on oxygen 2L, sats 84%", {"spo2": 84.0}),
        ("the little finger thing says 89", {"spo2": 89.0}),
        ("our finger oxygen thing says 88", {"spo2": 88.0}),
        ("el aparatito del dedo marca 88", {"spo2": 88.0}),
        ("her pulse oximeter reads 90 percent", {"spo2": 90.0}),
        ("fell 3 m from a ladder, RR 44", {"respiratory_rate": 44.0}),
        ("back pain for 3 years, RR 44", {"respiratory_rate": 44.0}),
        ("temp 98.6F", {"temperature_c": 37.0}),
        # What the thermometer said, later in the sentence: a decimal or a unit, never a time or a count.
        ("I did the rectal one like the nurse showed me and it's 100.8", {"temperature_c": 38.2}),
        ("le puse el termómetro y marcó 38.5", {"temperature_c": 38.5}),
        ("I did the rectal one and it's 3 o'clock now", {}),
        ("le puse el termometro y le salio 39,2", {"temperature_c": 39.2}),
        ("the thermometer said 98.6 this morning, tonight her fever is 104", {"temperature_c": 40.0}),
        ("the thermometer said 30 degrees outside, I slipped on ice and hurt my wrist", {}),
        ("the thermometer in the car said 110 outside and I'm a little sweaty", {}),
        ("I checked his temp and it was normal but his pulse was 112", {"heart_rate": 112.0}),
        ("the pool thermometer said 28.5, my son has a little earache", {}),
        ("el termometro de la casa marca 30.5 y mi abuelita tiene tos", {}),
        ("the thermometer on the porch said 110, he's fine just thirsty", {}),
        ("el termómetro marca 39.4 grados", {"temperature_c": 39.4}),
        ("56M with chest pain", {"age_years": 56.0}),
        ("my buddy's an EMT and he got his pulse at like 150", {"heart_rate": 150.0}),
        ("HR is about 120 and sats around 90", {"heart_rate": 120.0, "spo2": 90.0}),
        ("el pulso como de 140", {"heart_rate": 140.0}),
        ("a pulse, like, you know, 150 times he told me", {}),
        # The caller's number in answer to the call-taker's question naming it, never across the next question.
        (
            "CT: can she check her oxygen C: the finger thing, it says 89, now 90 CT: and her heart rate C: 124",
            {"spo2": 89.0, "heart_rate": 124.0},
        ),
        ("operador: cual es su pulso? persona: como 140", {"heart_rate": 140.0}),
        (
            "CT: you got one of those finger oxygen things? C: hold on... it says 87, and the heart number's 112.",
            {"spo2": 87.0, "heart_rate": 112.0},
        ),
        ("CT: is she on oxygen at home? C: yes, 84 years old", {"age_years": 84.0}),
        ("CT: what does the oximeter say C: I don't have one CT: how old is she C: 91", {}),
        # Every speaker label the dialogue reader knows opens a turn here too (one vocabulary, `speakers.py`).
        ("Dispatcher: and what is his pulse right now? Patient: uh I think like 130", {"heart_rate": 130.0}),
        ("Despachadora: cuanto le marca el oximetro? Ciudadano: ahorita marca 86", {"spo2": 86.0}),
        ("Operator: can you check her oxygen? Caller: I can't find it Dispatch: how old is she? Caller: 88", {}),
    ],
)
def test_vitals_misreadings_found_in_review(text: str, expected: dict[str, float]) -> None:
    assert {name: reading.value for name, reading in extract_vitals(text).readings.items()} == expected


def test_typographic_apostrophes_soft_hyphens_and_utf16_are_normalised() -> None:
    assert coerce_text("he won\u2019t wake up") == "he won't wake up"
    assert coerce_text("unre\u00adsponsive") == "unresponsive"
    assert coerce_text("not breathing".encode("utf-16")) == "not breathing"
    assert coerce_text("a    b") == "a b"


def test_age_in_years_from_the_stated_age_or_the_words_for_a_child() -> None:
    from triage_models.vitals import age_in_years

    assert age_in_years(extract_vitals("my 4 year old is choking"), "my 4 year old is choking") == 4.0
    assert age_in_years(extract_vitals("my baby is choking"), "my baby is choking") == 0.5
    assert age_in_years(extract_vitals("el nino no respira"), "el nino no respira") == 8.0
    assert age_in_years(extract_vitals("my husband collapsed"), "my husband collapsed") is None


def test_spanish_vital_signs_are_read() -> None:
    vitals = extract_vitals("mi papá tiene 70 años, la presión está en 80 sobre 50, pulso 130, saturación 85%")
    assert {name: reading.value for name, reading in vitals.readings.items()} == {
        "age_years": 70.0,
        "heart_rate": 130.0,
        "spo2": 85.0,
        "systolic_bp": 80.0,
    }
