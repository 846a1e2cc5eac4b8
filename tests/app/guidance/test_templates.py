"""Template guidance: the kind of complaint picked from the call's words, and the four sections."""

from __future__ import annotations

import pytest

from app.guidance.templates import GENERAL, TEMPLATE_VERSION, complaint_template, template_guidance


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("I twisted my ankle stepping off the curb, it is swollen", "minor-injury"),
        ("My daughter has a cough and a runny nose since Monday", "minor-illness"),
        ("Bad toothache since last night, no swelling", "pain"),
        ("Itchy rash on both arms after gardening", "skin-or-urinary"),
        ("I ran out of my blood pressure pills and need a refill", "medication-or-admin"),
        ("My neighbour wants someone to check on him", "general"),
        # The first complaint named wins: a rash first, then a mention of a fall.
        ("A rash on his leg since he fell last week", "skin-or-urinary"),
    ],
)
def test_the_complaint_kind_comes_from_the_first_words_that_name_one(text: str, kind: str) -> None:
    assert complaint_template(text).kind == kind


def test_words_inside_other_words_do_not_pick_a_kind() -> None:
    assert complaint_template("The caller is cutting vegetables and scolds the toddler") is GENERAL


def test_the_guidance_has_the_engine_sections_the_version_and_the_call_back_advice() -> None:
    text, template = template_guidance("I twisted my ankle", 4, "I twisted my ankle", 600.0)
    assert template.kind == "minor-injury"
    assert text.startswith(f"TEMPLATE GUIDANCE (minor injury; {TEMPLATE_VERSION})")
    assert "600 s deadline" in text
    for heading in ("SUMMARY: ESI 4 call: I twisted my ankle.", "KEY FACTS:", "SUGGESTED RESOURCES:", "PRE-ARRIVAL"):
        assert heading in text
    last_step = text.rsplit("\n", 1)[1]
    assert last_step.startswith("5. Call back at once if the patient gets worse")
