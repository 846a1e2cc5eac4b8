"""A value many callers share: read at most once per `ttl_s`, whatever the number of callers."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class SharedValue(Generic[T]):
    """`read()`'s last answer, read again once it is `ttl_s` old (by the first caller to ask; the others wait for
    that read rather than start their own)."""

    def __init__(self, read: Callable[[], T], ttl_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._read = read
        self._ttl_s = ttl_s
        self._clock = clock
        self._lock = threading.Lock()
        self._value: T | None = None
        self._at = -float("inf")
        self._fresh: tuple[T, float] | None = None

    def get(self) -> T:
        with self._lock:
            if self._value is None or self._clock() - self._at >= self._ttl_s:
                value = self._read()
                self._value, self._at = value, self._clock()
                self._fresh = (value, self._at)
            return self._value

    def peek(self) -> T | None:
        """The last answer while it is younger than `ttl_s`, without blocking (None: `get()` must read it again),
        so that an event loop takes a fresh value itself and sends only a stale one to a thread."""
        fresh = self._fresh  # one tuple, read at once: never one read's value with another's time
        if fresh is None or self._clock() - fresh[1] >= self._ttl_s:
            return None
        return fresh[0]
