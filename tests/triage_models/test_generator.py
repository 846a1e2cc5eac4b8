"""Tests for the training-data generator: determinism, coverage, the triage-note style, ESI resource levels."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from triage_models.generator import (
    GENERATOR_VERSION,
    RESOURCE_KINDS,
    SCENARIOS,
    STYLES,
    GeneratedMessage,
    Scenario,
    generate,
    level_for_resources,
    resource_count,
)

BY_NAME = {scenario.name: scenario for scenario in SCENARIOS}
RESOURCE_WORDS = re.compile(r"\b(x-?rays?|ct|iv|labs?|stitch(es)?|blood work|cat scan)\b", re.IGNORECASE)
HIGH_RISK_WORDS = re.compile(
    r"unrespons|not breathing|no pulse|confus|disorient|letharg|suicid|\bsi\b|overdos|worst headache|"
    r"blood thinner|warfarin|pregnan|chemo|transplant|(7|8|9|10)/10|(7|8|9|10) out of 10|crushing|stroke",
    re.IGNORECASE,
)
SAID_NOT_PRESENT = re.compile(r"years ago|last year|a long time ago|what to do if|in case of", re.IGNORECASE)
"""How a minor call says a scary word that is no sign of this patient now: history, someone else's, a question."""
PLAN = re.compile(r"\b(anticipate|will need|likely needs) ([^.;]*)", re.IGNORECASE)


@pytest.fixture(scope="module")
def messages() -> list[GeneratedMessage]:
    return list(generate(6000, seed=0))


def _scenario_text(scenario: Scenario) -> str:
    return " ".join((*scenario.complaints, *scenario.details, *scenario.note, *scenario.quotes))


def test_version_is_bumped() -> None:
    assert GENERATOR_VERSION == "gen-2026.11.3"


def test_6000_messages_are_the_same_for_the_same_seed(messages: list[GeneratedMessage]) -> None:
    assert messages == list(generate(6000, seed=0))
    assert messages != list(generate(6000, seed=1))


def test_generate_yields_exactly_the_count_asked() -> None:
    # How fast generation is belongs in a benchmark, not in a test that a loaded machine fails.
    assert sum(1 for _ in generate(6000, seed=5)) == 6000


def test_every_level_style_and_decision_point_is_well_represented(messages: list[GeneratedMessage]) -> None:
    levels = Counter(message.esi_level for message in messages)
    assert set(levels) == {1, 2, 3, 4, 5}
    assert all(levels[level] >= 0.08 * len(messages) for level in (1, 2, 3))
    assert levels[4] >= 0.17 * len(messages) and levels[5] >= 0.14 * len(messages)
    assert {message.style for message in messages} == set(STYLES) == {
        "caller", "transcript", "bystander", "spanish", "interpreter", "crew", "nurse", "triage-note"
    }  # fmt: skip
    assert {message.decision_point for message in messages} == {"A", "B", "C", "D"}
    assert {message.scenario for message in messages} == set(BY_NAME)


def test_triage_notes_chart_vital_signs_as_a_nurse_writes_them(messages: list[GeneratedMessage]) -> None:
    notes = [message.text for message in messages if message.style == "triage-note"]
    charted = [text for text in notes if re.search(r"\b(VS|Vitals|Vital signs):", text, re.IGNORECASE)]
    assert len(charted) > 0.6 * len(notes)
    abbreviated = re.compile(r"VS: BP \d{2,3}/\d{2,3}, HR \d+, RR \d+, SpO2 \d+%( on)? ?(RA)?, T \d{2,3}\.\d ?[CF]")
    spelled = re.compile(r"Vital signs: blood pressure \d{2,3}/\d{2,3}, (pulse|heart rate) \d+, .*temperature \d")
    assert any(abbreviated.search(text) for text in charted)
    assert any(spelled.search(text) for text in charted)
    joined = " ".join(notes)
    assert re.search(r"\bT \d{2}\.\d ?C\b", joined) and re.search(
        r"\bT \d{2,3}\.\d ?F\b", joined
    )  # Celsius, Fahrenheit
    assert re.search(r"\d{2}\.\d C \(\d{2,3}\.\d F\)", joined)
    assert re.search(r"SpO2 \d+% (on )?RA\b|on room air", joined)


def test_triage_notes_use_ed_wording_abbreviations_and_quotes(messages: list[GeneratedMessage]) -> None:
    notes = " ".join(message.text for message in messages if message.style == "triage-note")
    for wording in (
        r"\d+ y/o [MF] c/o ",
        r"\bA \d+-year-old (female|male|woman|man) presents to the emergency department complaining of ",
        r"\bPt\b",
        r"\bs/p\b",
        r"\bhx\b",
        r"\bPMH\b",
        r"\bNKDA\b",
        r"\bLOC\b",
        r"\bx \d days\b",
        r"\bx \d hrs\b",
        r"\d+ d/o [MF]\b",  # a neonate
        r"brought in by (his|her) (mother|father|parents|grandmother)",
    ):
        assert re.search(wording, notes), wording
    assert re.search(r'"[A-Z][^"]+," (he|she) says\.', notes)  # the patient's own words
    assert re.search(r'Pt states, "[A-Z][^"]+\."', notes)


def test_resource_levels_follow_the_esi_handbook() -> None:
    assert resource_count(("labs", "urine test")) == 1  # one kind, however many tests
    assert resource_count(("X-ray", "CT")) == 1
    assert resource_count(("X-ray", "reduction under sedation")) == 3  # a complex procedure counts two
    assert [level_for_resources(resources) for resources in ((), ("sutures",), ("labs", "ECG"))] == [5, 4, 3]
    resource_scenarios = [scenario for scenario in SCENARIOS if scenario.decision_point == "C"]
    assert {scenario.esi_level for scenario in resource_scenarios} == {3, 4, 5}
    for scenario in resource_scenarios:
        assert scenario.esi_level == level_for_resources(scenario.resources), scenario.name
        assert not set(scenario.non_resources) & set(RESOURCE_KINDS), scenario.name
        # stable, no high-risk signs: those would make it ESI 2 whatever the resources
        assert scenario.vitals in ("normal", "none"), scenario.name
        for said in (*scenario.complaints, *scenario.details, *scenario.note, *scenario.quotes):
            assert not HIGH_RISK_WORDS.search(said) or SAID_NOT_PRESENT.search(said), (scenario.name, said)
    for scenario in SCENARIOS:
        if scenario.decision_point != "C":
            assert not scenario.resources, scenario.name


def test_resource_scenarios_cover_children_and_older_adults() -> None:
    for level in (3, 4, 5):
        ages = [scenario.ages for scenario in SCENARIOS if scenario.esi_level == level]
        assert any(low < 12 for low, _ in ages), level
        assert any(high >= 70 for _, high in ages), level
        assert len(ages) >= 8, level


def test_esi5_messages_never_mention_a_resource(messages: list[GeneratedMessage]) -> None:
    esi5 = [message for message in messages if message.esi_level == 5]
    assert len(esi5) > 500
    for message in esi5:
        assert not RESOURCE_WORDS.search(message.text), message.text
    for scenario in SCENARIOS:
        if scenario.esi_level == 5:
            assert not RESOURCE_WORDS.search(_scenario_text(scenario)), scenario.name


def test_esi3_resource_cases_need_two_kinds_and_plans_name_them(messages: list[GeneratedMessage]) -> None:
    for scenario in SCENARIOS:
        if scenario.esi_level == 3 and scenario.decision_point == "C":
            kinds = {RESOURCE_KINDS[resource] for resource in scenario.resources}
            assert len(kinds) >= 2, scenario.name
    named_kinds: dict[int, list[int]] = {3: [], 4: []}
    for message in messages:
        if message.decision_point != "C" or message.style != "triage-note":
            continue
        plan = PLAN.search(message.text)
        if plan is None:
            continue
        named = plan.group(2).lower()
        kinds = {kind for resource, kind in RESOURCE_KINDS.items() if resource.lower() in named}
        assert message.esi_level != 5, message.text
        named_kinds[message.esi_level].append(len(kinds))
    # a typo may hide a resource's name, so: (nearly) every ESI 3 plan names two kinds, no ESI 4 plan two
    assert len(named_kinds[3]) > 20 and len(named_kinds[4]) > 20
    assert sum(count >= 2 for count in named_kinds[3]) >= 0.9 * len(named_kinds[3])
    assert max(named_kinds[4]) == 1 and sum(named_kinds[4]) >= 0.9 * len(named_kinds[4])


@pytest.mark.parametrize(
    ("name", "level"),
    [
        ("cpr-in-progress", 1),
        ("child-struck-unresponsive", 1),
        ("child-struck-lethargic", 2),
        ("overdose-no-symptoms", 2),
        ("sexual-assault", 2),
        ("infant-fever", 2),
        ("si-with-plan", 2),
        ("testicular-pain", 2),
        ("pregnancy-bleeding", 2),
        ("immunocompromised-fever", 2),
    ],
)
def test_hard_high_acuity_cases_are_present(name: str, level: int, messages: list[GeneratedMessage]) -> None:
    scenario = BY_NAME[name]
    assert scenario.esi_level == level
    assert scenario.decision_point == ("A" if level == 1 else "B")
    assert sum(message.scenario == name for message in messages) >= 20


def test_hard_case_details() -> None:
    assert BY_NAME["infant-fever"].ages == (0, 0) and BY_NAME["infant-fever"].fever
    assert BY_NAME["immunocompromised-fever"].fever
    assert BY_NAME["testicular-pain"].male_only and BY_NAME["pregnancy-bleeding"].female_only
    assert any("took 40 of" in complaint for complaint in BY_NAME["overdose-no-symptoms"].complaints)
    assert BY_NAME["overdose-no-symptoms"].vitals == "normal"  # high risk with nothing abnormal yet


def test_sex_specific_scenarios_use_the_right_pronouns(messages: list[GeneratedMessage]) -> None:
    for message in messages:
        words = set(re.findall(r"[a-z]+", message.text.lower()))
        if message.scenario == "testicular-pain":
            assert not words & {"she", "her"}, message.text
        if message.scenario in ("pregnancy-bleeding", "urinary"):
            assert not words & {"he", "his", "him"}, message.text


def test_distractors_never_contradict_the_scenario(messages: list[GeneratedMessage]) -> None:
    contradictions = {
        "infant-fever": ("no fever", "denies fever"),
        "immunocompromised-fever": ("no fever", "denies fever"),
        "respiratory-distress": ("no trouble breathing", "breathing normally", "denies sob", "no distress"),
        "altered-mental-status": ("not confused", "alert and talking", "a&o x 4"),
        "pregnancy-bleeding": ("not pregnant", "not bleeding"),
        "chest-pain-acs": ("denies chest pain", "denies cp"),
        "cpr-in-progress": ("no loss of consciousness", "no loc", "ambulatory", "no distress"),
        "head-injury-anticoag": ("no head injury", "denies head strike"),
    }
    for message in messages:
        for phrase in contradictions.get(message.scenario, ()):
            assert phrase not in message.text.lower(), message.text


def test_resource_cases_chart_no_severe_pain(messages: list[GeneratedMessage]) -> None:
    scores = Counter[int]()
    for message in messages:
        if message.decision_point == "C":
            for score in re.findall(r"\b(\d+)(?:/| out of )10\b", message.text):
                assert int(score) <= 6, message.text
                scores[message.esi_level] += 1
    assert all(scores[level] > 20 for level in (3, 4, 5))


def test_arrival_mode_is_no_exclusive_cue_to_the_level(messages: list[GeneratedMessage]) -> None:
    notes = [message for message in messages if message.style == "triage-note"]
    for cue in (r"\bBIBA\b|by ambulance|via EMS|by EMS", r"private car|came by car|walk-in|walks in"):
        levels = {message.esi_level for message in notes if re.search(cue, message.text, re.IGNORECASE)}
        assert levels >= {2, 3, 4, 5}, cue
