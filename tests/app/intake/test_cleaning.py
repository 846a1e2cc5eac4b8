"""Intake's cleaning: NUL and lone surrogates removed, triageable exactly as the classifier's cleaning decides."""

from __future__ import annotations

import pytest

from app.intake.cleaning import is_triageable, storable


def test_storable_removes_nul_and_lone_surrogates_only() -> None:
    assert storable("a\u0000b\ud800c\udfff\u200b\x07 d\u0000") == "abc\u200b\x07 d"
    assert storable("\u0000\u0000") == ""


@pytest.mark.parametrize(
    ("text", "expected"),
    [("\u0000", False), ("\u200b\u2060\ufeff", False), (" \x07\x1b ", False), ("", False), ("x\u0000", True)],
)
def test_is_triageable_follows_the_classifiers_cleaning(text: str, expected: bool) -> None:
    assert is_triageable(text) is expected
