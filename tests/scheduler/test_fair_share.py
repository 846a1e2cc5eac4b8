"""Fair share by source inside an ESI level, as a pure function: the order the Redis heap takes calls in."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler.fair_share import Waiting, next_call, take_order
from scheduler.redis_heap import score_of


def call(incident_id: str, source: str, esi_level: int, est_s: float, arrival: int) -> Waiting:
    return Waiting(score_of(esi_level, est_s), f"{arrival:020d}|{incident_id}", incident_id, source)


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
    assert next_call(sorted(calls), {"1|flood": 100}).incident_id == "f0"


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 5), st.integers(0, 3000), st.sampled_from(["cad", "flood", "pager"])),
        max_size=40,
    ),
    st.dictionaries(st.sampled_from(["1|cad", "1|flood", "3|pager", "2|flood"]), st.integers(0, 5)),
)
def test_take_order_is_next_call_again_and_again(calls: list[tuple[int, int, str]], served: dict[str, int]) -> None:
    waiting = [call(f"c{n}", source, level, ms / 1000, n) for n, (level, ms, source) in enumerate(calls)]
    left, counts, expected = sorted(waiting), dict(served), []
    while left:
        chosen = next_call(left, counts)
        left.remove(chosen)
        key = f"{chosen.level}|{chosen.source}"
        counts[key] = counts.get(key, 0) + 1
        expected.append(chosen.incident_id)
    assert take_order(waiting, served) == expected


def test_three_thousand_waiting_calls_keep_the_band_order() -> None:
    waiting = [
        call(f"c{n}", ("cad", "flood", "pager")[n % 3], 1 + n % 5, (n * 7919 % 1000) / 10, n) for n in range(3000)
    ]
    order = take_order(waiting, {})
    assert sorted(order) == sorted(c.incident_id for c in waiting)
    bands = [waiting[int(incident_id[1:])].band for incident_id in order]
    assert bands == sorted(bands)  # no band ever goes before a more urgent one
