"""The Redis semantic heap on a real redis-server: same order as the in-memory heap, leases, re-keying."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator

import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler.indexed_heap import IndexedHeap
from scheduler.redis_heap import RedisSemanticHeap, score_of

_prefixes = itertools.count()


@pytest.fixture
def heap(redis_url: str) -> Iterator[RedisSemanticHeap]:
    client = redis.Redis.from_url(redis_url)
    yield RedisSemanticHeap(client, prefix=f"heap-test-{next(_prefixes)}")


def fresh(redis_url: str) -> RedisSemanticHeap:
    return RedisSemanticHeap(redis.Redis.from_url(redis_url), prefix=f"heap-test-{next(_prefixes)}")


operations = st.lists(
    st.one_of(
        st.tuples(
            st.just("push"),
            st.integers(0, 30),
            st.integers(1, 5),
            st.integers(0, 20_000),
            st.integers(0, 50),
        ),
        st.tuples(st.just("pop"), st.just(0), st.just(0), st.just(0), st.just(0)),
        st.tuples(st.just("override"), st.integers(0, 30), st.integers(1, 5), st.integers(0, 20_000), st.just(0)),
        st.tuples(st.just("remove"), st.integers(0, 30), st.just(0), st.just(0), st.just(0)),
    ),
    max_size=60,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(operations)
def test_it_behaves_like_the_in_memory_heap_on_the_same_operations(
    redis_url: str, ops: list[tuple[str, int, int, int, int]]
) -> None:
    shared = fresh(redis_url)
    local = IndexedHeap()
    arrivals: dict[str, int] = {}
    for op, number, level, remaining_ms, arrival in ops:
        incident_id = f"inc-{number}"
        if op == "push":
            added = shared.push(incident_id, level, remaining_ms / 1000, arrival)
            assert added == (incident_id not in local)
            if added:
                arrivals[incident_id] = arrival
                local.push(incident_id, (score_of(level, remaining_ms / 1000), arrival, incident_id))  # type: ignore[arg-type]
        elif op == "pop":
            popped = shared.pop_lease("consumer", lease_s=60)
            if not local:
                assert popped is None
                continue
            _, expected = local.pop()
            assert popped is not None and popped.incident_id == expected
            assert shared.ack(expected, "consumer")
        elif op == "override":
            where = shared.override(incident_id, level, remaining_ms / 1000)
            assert where == ("waiting" if incident_id in local else "absent")
            if incident_id in local:
                local.update(incident_id, (score_of(level, remaining_ms / 1000), arrivals[incident_id], incident_id))  # type: ignore[arg-type]
        else:
            assert shared.remove(incident_id) == (incident_id in local)
            local.discard(incident_id)
        assert shared.waiting() == len(local)
    order = []
    while local:
        order.append(local.pop()[1])
    assert shared.waiting_ids() == order


def test_most_urgent_first_then_least_work_then_arrival(heap: RedisSemanticHeap) -> None:
    heap.push("routine", 4, 1.0, 1)
    heap.push("urgent-long", 1, 9.0, 2)
    heap.push("urgent-short", 1, 2.0, 3)
    heap.push("urgent-short-later", 1, 2.0, 4)
    assert heap.depth_per_level() == {1: 3, 2: 0, 3: 0, 4: 1, 5: 0}
    assert heap.peek_level() == 1
    order = [heap.pop_lease("w", 60).incident_id for _ in range(4)]  # type: ignore[union-attr]
    assert order == ["urgent-short", "urgent-short-later", "urgent-long", "routine"]
    assert heap.pop_lease("w", 60) is None
    assert heap.leased() == 4 and heap.waiting() == 0


def test_an_expired_lease_goes_back_to_the_queue_and_the_old_consumer_cannot_ack(heap: RedisSemanticHeap) -> None:
    heap.push("a", 2, 1.0, 1)
    item = heap.pop_lease("crashed-worker", lease_s=0.2)
    assert item is not None and item.deliveries == 1
    assert heap.push("a", 2, 1.0, 1) is False  # still leased: not queued twice
    time.sleep(0.3)
    again = heap.pop_lease("next-worker", lease_s=60)
    assert again is not None and again.incident_id == "a" and again.deliveries == 2 and again.consumer == "next-worker"
    assert heap.ack("a", "crashed-worker") is False
    assert heap.renew("a", "crashed-worker", 60) is False
    assert heap.ack("a", "next-worker") is True
    assert "a" not in heap and heap.leased() == 0


def test_only_urgent_items_are_taken_when_a_level_limit_is_given(heap: RedisSemanticHeap) -> None:
    heap.push("routine", 3, 1.0, 1)
    assert heap.pop_lease("w", 60, max_level=2) is None
    heap.push("critical", 1, 5.0, 2)
    taken = heap.pop_lease("w", 60, max_level=2)
    assert taken is not None and taken.incident_id == "critical"


def test_an_override_reorders_a_waiting_item_and_a_leased_one_returns_at_its_new_level(heap: RedisSemanticHeap) -> None:
    heap.push("first", 3, 1.0, 1)
    heap.push("second", 3, 1.0, 2)
    assert heap.override("second", 1) == "waiting"
    assert heap.waiting_ids() == ["second", "first"]
    leased = heap.pop_lease("w", lease_s=0.2)
    assert leased is not None and leased.incident_id == "second"
    assert heap.override("second", 5) == "leased"
    assert heap.override("nobody", 1) == "absent"
    assert heap.release("second", "w") is True
    assert heap.waiting_ids() == ["first", "second"]
    assert heap.depth_per_level() == {1: 0, 2: 0, 3: 1, 4: 0, 5: 1}


def test_bad_keys_are_refused(heap: RedisSemanticHeap) -> None:
    with pytest.raises(ValueError, match="esi_level"):
        heap.push("x", 6, 1.0, 1)
    with pytest.raises(ValueError, match="'\\|'"):
        heap.push("a|b", 1, 1.0, 1)
    with pytest.raises(ValueError, match="est_remaining_s"):
        heap.push("x", 1, -1.0, 1)


def test_a_consumer_can_recreate_an_item_it_serves_under_its_own_lease(heap: RedisSemanticHeap) -> None:
    heap.push("lost", 1, 1.0, 1_731_234_567_890_123)
    item = heap.pop_lease("w", 60)
    assert item is not None and item.arrival_us == 1_731_234_567_890_123  # all digits kept through Lua
    heap.client.delete(*heap.keys)  # Redis restarted empty
    assert heap.renew("lost", "w", 60) is False
    assert heap.push_leased(item, "w", 60) is True
    assert heap.waiting() == 0 and heap.leased() == 1
    assert heap.push("lost", 1, 1.0, 1) is False  # the reconciler's push finds it and adds nothing
    assert heap.ack("lost", "w") is True


def test_take_waiting_removes_a_waiting_item_but_never_a_leased_one(heap: RedisSemanticHeap) -> None:
    heap.push("waiting", 4, 10.0, 1)
    heap.push("leased", 4, 5.0, 2)
    assert heap.pop_lease("engine", 60.0) is not None  # "leased": least work first
    taken = heap.take_waiting("waiting")
    assert taken is not None and (taken.incident_id, taken.esi_level, taken.est_remaining_s) == ("waiting", 4, 10.0)
    assert heap.take_waiting("leased") is None and heap.take_waiting("absent") is None
    assert heap.waiting() == 0 and heap.leased() == 1 and "leased" in heap and "waiting" not in heap


def test_a_snapshot_lists_the_waiting_in_the_order_they_will_be_taken_and_the_leased(heap: RedisSemanticHeap) -> None:
    heap.push("five", 5, 1.0, 1)
    heap.push("one", 1, 9.0, 2)
    heap.push("three", 3, 2.0, 3)
    heap.push("two", 2, 3.0, 4)
    leased = heap.pop_lease("engine", 60.0)
    assert leased is not None and leased.incident_id == "one"
    waiting, in_service = heap.snapshot()
    assert [item.incident_id for item in waiting] == heap.waiting_ids() == ["two", "three", "five"]
    assert [(item.incident_id, item.consumer) for item in in_service] == [("one", "engine")]


def test_a_release_uncounted_gives_the_delivery_back(heap: RedisSemanticHeap) -> None:
    heap.push("a", 3, 1.0, 1)
    first = heap.pop_lease("engine", 60.0)
    assert first is not None and first.deliveries == 1
    assert heap.release("a", "engine", uncount=True)
    again = heap.pop_lease("engine", 60.0)
    assert again is not None and again.deliveries == 1  # the outage's delivery did not count
    assert heap.release("a", "engine")
    third = heap.pop_lease("engine", 60.0)
    assert third is not None and third.deliveries == 2


def test_the_overload_mode_rescores_the_waiting_and_scores_new_and_released_items_by_it(
    heap: RedisSemanticHeap,
) -> None:
    heap.push("chest-pain-long", 2, 400.0, 1)  # 400 / 4 = 100
    heap.push("abdominal-short", 3, 100.0, 2)  # 100 / 2 = 50
    assert heap.waiting_ids() == ["abdominal-short", "chest-pain-long"]
    assert heap.last_miss_s() is None
    assert heap.set_overloaded(True, 1000.5) is True
    assert heap.waiting_ids() == ["chest-pain-long", "abdominal-short"]
    assert heap.last_miss_s() == 1000.5
    assert heap.set_overloaded(True, 1002.5) is False and heap.last_miss_s() == 1002.5  # still on: no re-score
    heap.push("breathing-long", 2, 800.0, 3)  # pushed during the mode: by its overload score
    assert heap.waiting_ids() == ["chest-pain-long", "breathing-long", "abdominal-short"]
    leased = heap.pop_lease("w", 60)
    assert leased is not None and leased.incident_id == "chest-pain-long"
    assert heap.override("abdominal-short", 2) == "waiting"  # 100 s at ESI 2 now, strictly before 800 s
    assert heap.waiting_ids() == ["abdominal-short", "breathing-long"]
    assert heap.set_overloaded(False) is True and heap.last_miss_s() is None
    assert heap.release("chest-pain-long", "w") is True  # back by its weighted score: 100 after 25, before 200
    assert heap.waiting_ids() == ["abdominal-short", "chest-pain-long", "breathing-long"]
    assert heap.peek_level() == 2


def test_an_item_queued_before_the_overload_score_existed_keeps_its_score(heap: RedisSemanticHeap) -> None:
    heap.client.hset(
        heap.keys[2],
        "old",
        '{"id": "old", "esi_level": 3, "est_remaining_s": 1.0, "arrival_us": "1", '
        f'"score": "{score_of(3, 1.0)}", "member": "{1:020d}|old", "deliveries": 0, "consumer": ""}}',
    )
    heap.client.zadd(heap.keys[0], {f"{1:020d}|old": score_of(3, 1.0)})
    assert heap.set_overloaded(True, 1.0) is True
    assert heap.client.zscore(heap.keys[0], f"{1:020d}|old") == score_of(3, 1.0)


def pop_all(heap: RedisSemanticHeap) -> list[str]:
    order = []
    while (item := heap.pop_lease("w", 60)) is not None:
        order.append(item.incident_id)
    return order


def test_two_sources_bursts_interleave_within_a_level(heap: RedisSemanticHeap) -> None:
    """A flood's burst of short ESI 1 calls no longer pushes another source's ESI 1 call behind all of it: the
    sources take turns within the level, each in its own policy order; other levels keep their place."""
    for n in range(4):
        heap.push(f"flood-{n}", 1, 1.0 + n, 10 + n, source="flood")
    heap.push("cad-arrest", 1, 9.0, 20, source="cad")
    heap.push("cad-stroke", 1, 8.0, 21, source="cad")
    heap.push("cad-sprain", 4, 0.5, 22, source="cad")
    heap.push("flood-esi2", 2, 0.5, 23, source="flood")
    expected = ["flood-0", "cad-stroke", "flood-1", "cad-arrest", "flood-2", "flood-3", "flood-esi2", "cad-sprain"]
    assert heap.waiting_ids() == expected
    assert pop_all(heap) == expected


def test_a_source_that_starts_sending_starts_at_the_levels_clock(heap: RedisSemanticHeap) -> None:
    """Ten flood calls served before another source's first call: that source gets one turn, not ten in a row."""
    for n in range(10):
        heap.push(f"early-{n}", 1, 1.0, n, source="flood")
    assert pop_all(heap) == [f"early-{n}" for n in range(10)]
    for n in range(3):
        heap.push(f"late-flood-{n}", 1, 1.0, 100 + n, source="flood")
    heap.push("cad-1", 1, 5.0, 200, source="cad")
    heap.push("cad-2", 1, 5.0, 201, source="cad")
    # cad starts one turn behind flood's count, not ten: one call first, then turns.
    assert pop_all(heap) == ["cad-1", "late-flood-0", "cad-2", "late-flood-1", "late-flood-2"]


def test_fair_share_holds_in_the_overload_mode_and_after_an_override(heap: RedisSemanticHeap) -> None:
    heap.push("flood-a", 2, 10.0, 1, source="flood")
    heap.push("flood-b", 2, 20.0, 2, source="flood")
    heap.push("cad-a", 2, 30.0, 3, source="cad")
    heap.push("cad-esi3", 3, 1.0, 4, source="cad")
    assert heap.waiting_ids() == ["cad-esi3", "flood-a", "cad-a", "flood-b"]  # ESI 2 by weighted work, band 3
    heap.set_overloaded(True, 1.0)  # ESI 2 strictly first: its band moves, the interleaving with it
    assert heap.waiting_ids() == ["flood-a", "cad-a", "flood-b", "cad-esi3"]
    assert heap.override("cad-esi3", 2) == "waiting"
    # Now ESI 2 with the least work: first, then the sources take turns (a tie goes by the key).
    assert heap.waiting_ids() == ["cad-esi3", "flood-a", "flood-b", "cad-a"]
    assert pop_all(heap) == ["cad-esi3", "flood-a", "flood-b", "cad-a"]


sourced_operations = st.lists(
    st.tuples(
        st.sampled_from(["push", "push", "pop", "release"]),
        st.integers(0, 20),
        st.integers(1, 3),
        st.integers(0, 5_000),
        st.sampled_from(["cad", "flood", "pager"]),
    ),
    max_size=50,
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sourced_operations)
def test_the_snapshot_order_is_the_order_pops_take_with_several_sources(
    redis_url: str, ops: list[tuple[str, int, int, int, str]]
) -> None:
    shared = fresh(redis_url)
    for op, number, level, remaining_ms, source in ops:
        if op == "push":
            shared.push(f"inc-{number}", level, remaining_ms / 1000, number, source=source)
        elif op == "pop":
            expected = shared.waiting_ids()
            taken = shared.pop_lease("w", 60)
            assert (taken.incident_id if taken else None) == (expected[0] if expected else None)
        else:
            _, leased = shared.snapshot()
            if leased:
                shared.release(leased[0].incident_id, "w")
    expected = shared.waiting_ids()
    assert pop_all(shared) == expected


def test_the_lease_carries_the_call_s_facts_and_a_new_reading_replaces_them(heap: RedisSemanticHeap) -> None:
    from scheduler.redis_heap import CallFacts

    first = CallFacts(flags=(), card_id=None, card_language=None, language="es", predicted_output_tokens=90)
    heap.push("a", 3, 5.0, 1, "cad", first)
    assert heap.get("a") is not None and heap.get("a").facts == first  # type: ignore[union-attr]
    raised = CallFacts(("A-NOT-BREATHING",), "cpr-adult", "es", "es", 120)
    assert heap.override("a", 1, 6.0, raised) == "waiting"
    leased = heap.pop_lease("engine-1", 30.0)
    assert leased is not None and (leased.esi_level, leased.facts) == (1, raised)
    assert heap.override("a", 1) == "leased" and heap.get("a").facts == raised  # type: ignore[union-attr]
    heap.push("b", 4, 5.0, 2)
    assert heap.get("b").facts is None  # type: ignore[union-attr]
