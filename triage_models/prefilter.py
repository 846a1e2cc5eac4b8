"""A literal keyword prefilter for the red-flag rules: the words one of which any match must contain.

Most rules match nothing in most calls, yet a regular expression still walks the whole message to learn so. Each
pattern is parsed (Python's own regular-expression parser) and reduced to a set of literal strings, one of which
every match contains ("not breathing|stopped breathing" -> {"breathing"}); a rule is scanned only when one of its
literals is in the message (a substring test, lower case). Where a pattern has no such literal, its rule is always
scanned: the prefilter can skip work, never a match (a test checks this on every rule's examples).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from re import _constants as sre_constants  # type: ignore[attr-defined]
from re import _parser as sre_parser  # type: ignore[attr-defined]
from typing import Any

MIN_LITERAL = 2
"""A literal shorter than this is no filter (one letter is in every message)."""

_REPEATS = (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, sre_constants.POSSESSIVE_REPEAT)


def _best(candidates: list[frozenset[str]]) -> frozenset[str] | None:
    """The most selective set: the longest shortest literal, then the fewest literals."""
    usable = [found for found in candidates if min(len(literal) for literal in found) >= MIN_LITERAL]
    if not usable:
        return None
    return max(usable, key=lambda found: (min(len(literal) for literal in found), -len(found)))


def _node(op: Any, av: Any) -> frozenset[str] | None:
    """The literals one of which a match of this node must contain, or None."""
    if op is sre_constants.SUBPATTERN:
        return _sequence(av[3])
    if op is sre_constants.ATOMIC_GROUP:
        return _sequence(av)
    if op is sre_constants.BRANCH:
        branches = [_sequence(branch) for branch in av[1]]
        if any(branch is None for branch in branches):
            return None
        return frozenset().union(*(branch for branch in branches if branch is not None))
    if op in _REPEATS and av[0] >= 1:
        return _sequence(av[2])
    return None


def _sequence(items: Iterable[tuple[Any, Any]]) -> frozenset[str] | None:
    """The best literal set of a sequence: a run of literal characters, or the best of its nodes'."""
    candidates: list[frozenset[str]] = []
    run = ""
    for op, av in items:
        if op is sre_constants.LITERAL:
            run += chr(av).lower()
            continue
        if run:
            candidates.append(frozenset({run}))
            run = ""
        found = _node(op, av)
        if found:
            candidates.append(found)
    if run:
        candidates.append(frozenset({run}))
    return _best(candidates)


def necessary_literals(pattern: re.Pattern[str]) -> frozenset[str] | None:
    """Lower-case literals one of which every match of `pattern` contains, or None when there is no such set."""
    return _sequence(sre_parser.parse(pattern.pattern, pattern.flags))


def rule_literals(patterns: Iterable[re.Pattern[str]]) -> frozenset[str] | None:
    """The literals of a rule: one of them is in every text any of its patterns matches (None: always scan)."""
    literals: set[str] = set()
    for pattern in patterns:
        found = necessary_literals(pattern)
        if found is None:
            return None
        literals |= found
    return frozenset(literals)


def may_match(literals: frozenset[str] | None, lowered: str) -> bool:
    """Whether a rule with these literals can match the (lower-cased) text."""
    return literals is None or any(literal in lowered for literal in literals)
