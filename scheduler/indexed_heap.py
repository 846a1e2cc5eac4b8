"""An indexed binary min-heap: O(log n) push, pop, remove-by-id and re-key."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

SortKey = tuple[float, ...]


class KeyedQueue(Protocol):
    """What the scheduler needs of a priority queue of ids; `IndexedHeap` is the one it uses."""

    def __len__(self) -> int: ...
    def __contains__(self, item_id: object) -> bool: ...
    def __iter__(self) -> Iterator[str]: ...
    def push(self, item_id: str, key: SortKey) -> None: ...
    def pop(self) -> tuple[SortKey, str]: ...
    def remove(self, item_id: str) -> SortKey: ...
    def discard(self, item_id: str) -> None: ...
    def update(self, item_id: str, key: SortKey) -> None: ...
    def upsert(self, item_id: str, key: SortKey) -> None: ...


class IndexedHeap:
    """Min-heap of item ids ordered by a tuple key, with a position index for removal and re-keying.

    Keys are plain tuples computed by the caller when an item is inserted or re-keyed; nothing here
    reads a clock or calls back into the item, so ordering is stable between updates. Ties on the key
    are broken by the id, so the order is total and deterministic.
    """

    __slots__ = ("_entries", "_position")

    def __init__(self) -> None:
        self._entries: list[tuple[SortKey, str]] = []
        self._position: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, item_id: object) -> bool:
        return item_id in self._position

    def __iter__(self) -> Iterator[str]:
        """Ids in heap-array order (not sorted)."""
        return (item_id for _, item_id in self._entries)

    def key_of(self, item_id: str) -> SortKey:
        """The key an item is currently stored under."""
        return self._entries[self._position[item_id]][0]

    def push(self, item_id: str, key: SortKey) -> None:
        """Insert a new item; an id already present is an error (use `update`)."""
        if item_id in self._position:
            raise KeyError(f"{item_id} is already in the heap")
        self._entries.append((key, item_id))
        self._position[item_id] = len(self._entries) - 1
        self._sift_up(len(self._entries) - 1)

    def peek(self) -> tuple[SortKey, str]:
        """The smallest (key, id) without removing it."""
        if not self._entries:
            raise IndexError("peek from an empty heap")
        return self._entries[0]

    def pop(self) -> tuple[SortKey, str]:
        """Remove and return the smallest (key, id)."""
        if not self._entries:
            raise IndexError("pop from an empty heap")
        top = self._entries[0]
        self._remove_at(0)
        return top

    def remove(self, item_id: str) -> SortKey:
        """Remove an item by id and return its key."""
        index = self._position[item_id]
        key = self._entries[index][0]
        self._remove_at(index)
        return key

    def discard(self, item_id: str) -> None:
        """Remove an item if present."""
        if item_id in self._position:
            self.remove(item_id)

    def update(self, item_id: str, key: SortKey) -> None:
        """Change an item's key and restore the heap order."""
        index = self._position[item_id]
        old_key = self._entries[index][0]
        self._entries[index] = (key, item_id)
        if key < old_key:
            self._sift_up(index)
        else:
            self._sift_down(index)

    def upsert(self, item_id: str, key: SortKey) -> None:
        """Insert, or re-key if already present."""
        if item_id in self._position:
            self.update(item_id, key)
        else:
            self.push(item_id, key)

    def _remove_at(self, index: int) -> None:
        del self._position[self._entries[index][1]]
        last = self._entries.pop()
        if index == len(self._entries):
            return
        self._entries[index] = last
        self._position[last[1]] = index
        self._sift_up(index)
        self._sift_down(self._position[last[1]])

    def _sift_up(self, index: int) -> None:
        entries, position = self._entries, self._position
        entry = entries[index]
        while index > 0:
            parent = (index - 1) >> 1
            if entries[parent] <= entry:
                break
            entries[index] = entries[parent]
            position[entries[index][1]] = index
            index = parent
        entries[index] = entry
        position[entry[1]] = index

    def _sift_down(self, index: int) -> None:
        entries, position = self._entries, self._position
        size = len(entries)
        entry = entries[index]
        while True:
            child = 2 * index + 1
            if child >= size:
                break
            if child + 1 < size and entries[child + 1] < entries[child]:
                child += 1
            if entry <= entries[child]:
                break
            entries[index] = entries[child]
            position[entries[index][1]] = index
            index = child
        entries[index] = entry
        position[entry[1]] = index
