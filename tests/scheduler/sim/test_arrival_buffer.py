"""Tests for the arrival buffer and top-b extraction over heap and buffer."""

from __future__ import annotations

from scheduler.indexed_heap import IndexedHeap
from scheduler.sim.arrival_buffer import ArrivalBuffer, extract_top_b


def test_extract_top_b_sees_urgent_arrivals_still_in_the_buffer() -> None:
    heap = IndexedHeap()
    keys = {"h1": (2.0,), "h2": (3.0,), "h3": (4.0,), "u1": (1.0,), "u2": (5.0,)}
    for item_id in ("h1", "h2", "h3"):
        heap.push(item_id, keys[item_id])
    buffer = ArrivalBuffer()
    buffer.append("u2")
    buffer.append("u1")

    chosen = extract_top_b(heap, buffer, 2, keys.__getitem__)

    assert [item_id for _, item_id in chosen] == ["u1", "h1"]
    assert list(buffer) == ["u2"]
    assert sorted(heap) == ["h2", "h3"]


def test_extract_top_b_with_empty_buffer_pops_from_the_heap() -> None:
    heap = IndexedHeap()
    for index in range(5):
        heap.push(f"r{index}", (float(5 - index),))
    chosen = extract_top_b(heap, ArrivalBuffer(), 3, lambda item_id: (0.0,))
    assert [item_id for _, item_id in chosen] == ["r4", "r3", "r2"]
    assert len(heap) == 2


def test_buffer_take_is_oldest_first_and_bounded() -> None:
    buffer = ArrivalBuffer()
    for item_id in "abcd":
        buffer.append(item_id)
    assert buffer.take(3) == ["a", "b", "c"]
    assert buffer.take() == ["d"]
    assert len(buffer) == 0
