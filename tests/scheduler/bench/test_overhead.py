"""Tests for the overhead benchmark harness (structure only: timings are never asserted)."""

from __future__ import annotations

from scheduler.bench.overhead import run_overhead
from scheduler.bench.sorted_list import SortedListQueue
from scheduler.indexed_heap import IndexedHeap


def test_overhead_reports_both_queues_for_each_size() -> None:
    results = run_overhead(sizes=(50, 200), decisions=5)
    assert [result.waiting for result in results] == [50, 200]
    assert all(result.semantic_us > 0 and result.baseline_us > 0 for result in results)


def test_sorted_list_baseline_behaves_like_the_heap() -> None:
    heap, baseline = IndexedHeap(), SortedListQueue()
    for queue in (heap, baseline):
        for index in range(10):
            queue.push(f"r{index}", (float(index % 3), float(-index)))
        queue.update("r4", (-1.0,))
        queue.remove("r9")
    assert [heap.pop() for _ in range(len(heap))] == [baseline.pop() for _ in range(len(baseline))]
