"""The baseline queue for the overhead benchmark: a plain sorted list (bisect), O(n) insert and remove."""

from __future__ import annotations

import bisect
from collections.abc import Iterator

from scheduler.indexed_heap import SortKey


class SortedListQueue:
    """Same interface as `IndexedHeap`, kept as a list sorted by (key, id): what a first version would write."""

    __slots__ = ("_entries", "_keys")

    def __init__(self) -> None:
        self._entries: list[tuple[SortKey, str]] = []
        self._keys: dict[str, SortKey] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, item_id: object) -> bool:
        return item_id in self._keys

    def __iter__(self) -> Iterator[str]:
        return (item_id for _, item_id in self._entries)

    def push(self, item_id: str, key: SortKey) -> None:
        if item_id in self._keys:
            raise KeyError(f"{item_id} is already queued")
        bisect.insort(self._entries, (key, item_id))
        self._keys[item_id] = key

    def pop(self) -> tuple[SortKey, str]:
        if not self._entries:
            raise IndexError("pop from an empty queue")
        key, item_id = self._entries.pop(0)
        del self._keys[item_id]
        return key, item_id

    def remove(self, item_id: str) -> SortKey:
        key = self._keys.pop(item_id)
        del self._entries[bisect.bisect_left(self._entries, (key, item_id))]
        return key

    def discard(self, item_id: str) -> None:
        if item_id in self._keys:
            self.remove(item_id)

    def update(self, item_id: str, key: SortKey) -> None:
        self.remove(item_id)
        self.push(item_id, key)

    def upsert(self, item_id: str, key: SortKey) -> None:
        self.discard(item_id)
        self.push(item_id, key)
