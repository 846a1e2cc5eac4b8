"""The rules' keyword prefilter: the literals every match contains, read from the patterns themselves."""

from __future__ import annotations

import re

from triage_models.prefilter import may_match, necessary_literals, rule_literals


def literals(pattern: str) -> frozenset[str] | None:
    return necessary_literals(re.compile(pattern, re.IGNORECASE))


def test_literals_come_from_runs_branches_and_required_groups() -> None:
    assert literals(r"\bnot breathing\b") == {"not breathing"}
    assert literals(r"\b(?:not|stopped) breathing\b") == {" breathing"}
    assert literals(r"\b(?:Choking|choked on)\b") == {"choking", "choked on"}
    assert literals(r"\bno (?:pulse|heartbeat)\b") == {"pulse", "heartbeat"}


def test_a_pattern_without_a_required_literal_has_no_filter() -> None:
    assert literals(r"\b(?:\d{2,3}) ?mph\b") == {"mph"}
    assert literals(r"\b\d+ ?(?:x|times)?\b") is None
    assert rule_literals([re.compile(r"\bgasping\b"), re.compile(r"\w+ \d+")]) is None


def test_may_match_tests_substrings_of_lower_case_text() -> None:
    assert may_match(frozenset({"breathing"}), "he is not breathing")
    assert not may_match(frozenset({"breathing"}), "sprained ankle")
    assert may_match(None, "anything")
