"""Fair share by source inside an ESI level, as a pure function: the order the Redis heap takes calls in."""

from __future__ import annotations

from scheduler.fair_share import Waiting, next_call, take_order
from scheduler.redis_heap import score_of


def call(item_id: str, source: str, esi_level: int, est_s: float, arrival: int) -> Waiting:
    return Waiting(score_of(esi_level, est_s), f"{arrival:020d}|{item_id}", item_id, source)


def test_one_source_is_taken_in_the_policys_order() -> None:
    calls = [call("c", "cad", 3, 9.0, 1), call("a", "cad", 1, 5.0, 2), call("b", "cad", 1, 2.0, 3)]
    assert take_order(calls, {}) == ["b", "a", "c"]


def test_sources_take_turns_within_a_level_and_the_least_served_goes_first() -> None:
    calls = [call(f"f{n}", "flood", 1, 1.0, n) for n in range(3)] + [call("c0", "cad", 1, 7.0, 9)]
    assert take_order(calls, {}) == ["f0", "c0", "f1", "f2"]
    assert take_order(calls, {"1|flood": 5, "1|cad": 5}) == ["f0", "c0", "f1", "f2"]
    assert take_order(calls, {"1|flood": 3}) == ["c0", "f0", "f1", "f2"]


def test_a_less_urgent_level_never_goes_first_however_little_its_source_was_served() -> None:
    calls = [call("f0", "flood", 1, 1.0, 0), call("c0", "cad", 2, 0.1, 1)]
    assert next_call(sorted(calls), {"1|flood": 100}).item_id == "f0"
