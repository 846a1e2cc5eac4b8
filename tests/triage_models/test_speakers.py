"""Tests for the speaker labels shared by the dialogue reader and the vital-sign reader."""

from __future__ import annotations

import re

import pytest

from triage_models.speakers import CALL_TAKER_LABELS, CALLER_LABELS, is_call_taker, label_pattern


def test_no_label_is_both_the_call_takers_and_the_callers() -> None:
    assert CALL_TAKER_LABELS.isdisjoint(CALLER_LABELS)


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        *[("CT", True), ("Dispatcher", True), ("911", True), ("Despachadora", True), ("Call-Taker", True)],
        *[("C", False), ("Caller", False), ("Pt", False), ("ciudadano", False), ("llamante", False)],
    ],
)
def test_is_call_taker_by_label_in_any_case(label: str, expected: bool) -> None:
    assert is_call_taker(label) is expected


def test_the_pattern_tries_the_longest_label_first() -> None:
    pattern = re.compile(r"(?:" + label_pattern({"c", "ct", "caller"}) + r"):", re.I)
    assert [match.group(0) for match in pattern.finditer("CT: hi C: yes Caller: no")] == ["CT:", "C:", "Caller:"]
    assert label_pattern({"c", "ct", "caller"}) == "caller|ct|c"
