"""The unsorted arrival buffer of Algorithm 1 and top-b extraction over the heap and the buffer."""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Callable, Iterator

from scheduler.indexed_heap import KeyedQueue, SortKey


class ArrivalBuffer:
    """New arrivals wait here, unsorted, until the heap-maintenance loop inserts them (O(1) append)."""

    __slots__ = ("_ids",)

    def __init__(self) -> None:
        self._ids: deque[str] = deque()

    def __len__(self) -> int:
        return len(self._ids)

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __contains__(self, item_id: object) -> bool:
        return item_id in self._ids

    def append(self, item_id: str) -> None:
        """Non-blocking append of a new arrival."""
        self._ids.append(item_id)

    def take(self, max_items: int | None = None) -> list[str]:
        """Remove and return up to `max_items` arrivals, oldest first (all when None)."""
        count = len(self._ids) if max_items is None else min(max_items, len(self._ids))
        return [self._ids.popleft() for _ in range(count)]

    def remove(self, item_id: str) -> None:
        """Remove one arrival by id (O(len): the buffer is short by design)."""
        self._ids.remove(item_id)


def extract_top_b(
    heap: KeyedQueue, buffer: ArrivalBuffer, count: int, key_of: Callable[[str], SortKey]
) -> list[tuple[SortKey, str]]:
    """Pop the `count` best candidates looking at both the heap and the not-yet-inserted arrivals.

    The chosen buffered arrivals leave the buffer; heap entries popped but not chosen are pushed back,
    so nothing is lost and an urgent request still in the buffer is never overlooked.
    """
    if count <= 0:
        return []
    from_heap = [heap.pop() for _ in range(min(count, len(heap)))]
    if not buffer:
        return from_heap
    from_buffer = heapq.nsmallest(count, ((key_of(item_id), item_id) for item_id in buffer))
    chosen = heapq.nsmallest(count, from_heap + from_buffer)
    chosen_ids = {item_id for _, item_id in chosen}
    for key, item_id in from_heap:
        if item_id not in chosen_ids:
            heap.push(item_id, key)
    for _, item_id in from_buffer:
        if item_id in chosen_ids:
            buffer.remove(item_id)
    return chosen
