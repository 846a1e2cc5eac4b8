"""The ESI resource counter (decision point C) on hand-built cases, with the words that suggest each resource."""

from __future__ import annotations

import pytest

from triage_models.resources import level_for_resources, predict_resources, resource_count


def kinds(text: str) -> list[str]:
    return sorted(item.kind for item in predict_resources(text))


def test_a_simple_laceration_is_one_resource() -> None:
    text = "22 y/o M with a 3 cm laceration to the forearm from a kitchen knife, bleeding controlled"
    resources = predict_resources(text)
    assert [item.kind for item in resources] == ["simple_procedure"]
    assert resource_count(resources) == 1 and level_for_resources(1) == 4
    item = resources[0]
    assert text[item.start : item.end] == item.text == "laceration"


def test_abdominal_pain_needing_labs_and_ct_is_two_or_more() -> None:
    resources = predict_resources("45 year old woman with right lower quadrant abdominal pain, needs labs and a CT")
    assert sorted(item.kind for item in resources) == ["imaging", "labs"]
    assert resource_count(resources) == 2 and level_for_resources(resource_count(resources)) == 3


def test_a_refill_needs_no_resource() -> None:
    resources = predict_resources("I ran out of my blood pressure pills and need a refill, I feel fine")
    assert resources == () and resource_count(resources) == 0 and level_for_resources(0) == 5


def test_a_complex_procedure_counts_two() -> None:
    resources = predict_resources("shoulder dislocation after a fall, will need reduction under procedural sedation")
    assert kinds("shoulder dislocation after a fall, will need reduction under procedural sedation") == [
        "complex_procedure",
        "imaging",
    ]
    assert resource_count(resources) == 3


@pytest.mark.parametrize(
    "text",
    [
        "she denies fever, chills, abdominal pain, or vaginal discharge",
        "no x-ray needed, just a sprain",
        "needs a tetanus shot and a dressing change",
    ],
)
def test_negated_mentions_and_non_resources_count_nothing(text: str) -> None:
    assert [item.kind for item in predict_resources(text) if item.kind != "parenteral_medication"] == []


def test_each_kind_counts_once_however_many_tests() -> None:
    resources = predict_resources("needs a CBC, a BMP, a urinalysis, an x-ray and a CT scan")
    assert sorted(item.kind for item in resources) == ["imaging", "labs"]


def test_a_call_takers_turn_prefix_is_no_ct_scan() -> None:
    assert predict_resources("CT: Is he breathing? C: No, he's not") == ()
    assert [item.kind for item in predict_resources("she needs a CT of the head")] == ["imaging"]
