"""Tests for the indexed min-heap."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scheduler.indexed_heap import IndexedHeap


def test_pop_returns_items_in_key_order() -> None:
    heap = IndexedHeap()
    for item_id, key in [("c", (3.0, 1.0)), ("a", (1.0, 9.0)), ("b", (1.0, 2.0)), ("d", (5.0, 0.0))]:
        heap.push(item_id, key)
    assert [heap.pop()[1] for _ in range(4)] == ["b", "a", "c", "d"]


def test_remove_and_update_reorder_the_heap() -> None:
    heap = IndexedHeap()
    for index in range(6):
        heap.push(f"r{index}", (float(index),))
    heap.remove("r0")
    heap.update("r5", (-1.0,))
    heap.update("r1", (10.0,))
    assert "r0" not in heap
    assert heap.key_of("r5") == (-1.0,)
    assert [heap.pop()[1] for _ in range(len(heap))] == ["r5", "r2", "r3", "r4", "r1"]


def test_push_of_a_present_id_is_an_error() -> None:
    heap = IndexedHeap()
    heap.push("a", (1.0,))
    with pytest.raises(KeyError):
        heap.push("a", (2.0,))


def test_pop_from_empty_heap_raises_index_error() -> None:
    with pytest.raises(IndexError):
        IndexedHeap().pop()


def test_equal_keys_pop_in_id_order() -> None:
    heap = IndexedHeap()
    for item_id in ["z", "m", "a"]:
        heap.push(item_id, (1.0,))
    assert [heap.pop()[1] for _ in range(3)] == ["a", "m", "z"]


operations = st.lists(
    st.tuples(st.sampled_from(["push", "pop", "remove", "update"]), st.integers(0, 30), st.integers(0, 5)),
    max_size=200,
)


@given(operations)
def test_heap_matches_a_sorted_reference(ops: list[tuple[str, int, int]]) -> None:
    heap = IndexedHeap()
    reference: dict[str, tuple[float, ...]] = {}
    for op, number, level in ops:
        item_id = f"r{number}"
        key = (float(level), float(number))
        if op == "push" and item_id not in reference:
            heap.push(item_id, key)
            reference[item_id] = key
        elif op == "pop" and reference:
            expected = min((k, i) for i, k in reference.items())
            assert heap.pop() == expected
            del reference[expected[1]]
        elif op == "remove" and item_id in reference:
            assert heap.remove(item_id) == reference.pop(item_id)
        elif op == "update" and item_id in reference:
            heap.update(item_id, key)
            reference[item_id] = key
        assert len(heap) == len(reference)
    assert sorted(heap) == sorted(reference)
