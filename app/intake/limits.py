"""Per-source intake limits: moving windows (the `limits` library) kept in Redis for every web process, counted in
this process without Redis or while it does not answer; the refusals of the last minute, for the supervisors."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import redis
from limits import RateLimitItem, RateLimitItemPerMinute, parse_many
from limits.storage import MemoryStorage, RedisStorage, Storage
from limits.strategies import MovingWindowRateLimiter

from app.redis import keys

log = logging.getLogger(__name__)

DEFAULT_INTAKE_LIMIT = "120/minute;30/10 seconds"
"""Per source: 2 calls a second sustained, bursts of 30 in 10 s (docs/intake.md#per-source-limits says why)."""
DEFAULT_LIVE_CALL_LIMIT = "600/minute;120/10 seconds"
"""Per live call: its events (final utterances and partials of both tracks) at up to 10 a second sustained, 12 in a
10 s burst; a real call sends one to three utterances a second and a few partials each (docs/intake.md#live-calls)."""
REFUSALS_SEEN = RateLimitItemPerMinute(100_000)
"""A window that never refuses, counting each source's refusals of the last minute (what the banner shows)."""


class IntakeLimitError(ValueError):
    """A limit that `limits` cannot read (named with the source)."""


def parse_limit(source: str, limit: str) -> list[RateLimitItem]:
    """`limit` in `limits` notation ("120/minute;30/10 seconds"): every window must hold."""
    try:
        items = parse_many(limit)
    except ValueError as error:
        raise IntakeLimitError(f"intake limit of source {source!r}: {error}") from None
    if not items:
        raise IntakeLimitError(f"intake limit of source {source!r} is empty")
    return items


@dataclass(frozen=True, slots=True)
class LimitRefusal:
    """A call refused because its source is over a window: which one, and when a retry will be accepted."""

    source: str
    limit: str
    retry_after_s: int

    @property
    def reason(self) -> str:
        return (
            f"source {self.source!r} is over its intake limit ({self.limit}): nothing was stored; "
            f"send the same message again after {self.retry_after_s} s"
        )


@dataclass(frozen=True, slots=True)
class SourceCounts:
    """A source's calls let through and refused in the last minute (its first window's count when that is not a
    minute)."""

    limit: str
    calls: int
    refused: int


class SourceLimits:
    """Each source's windows, hit once per authenticated call; a refused call is not counted in them."""

    def __init__(
        self,
        limits: Mapping[str, str],
        default: str = DEFAULT_INTAKE_LIMIT,
        storage: Storage | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self._default = parse_limit("(default)", default)
        self._limits = {source: parse_limit(source, limit) for source, limit in limits.items()}
        self._shared = MovingWindowRateLimiter(storage) if storage is not None else None
        self._local = MovingWindowRateLimiter(MemoryStorage())
        self._clock = clock or (lambda: time.time())  # read at each call: the windows' storage reads the same

    def windows(self, source: str) -> list[RateLimitItem]:
        return self._limits.get(source, self._default)

    def describe(self, source: str) -> str:
        return ", ".join(str(item) for item in self.windows(source))

    def hit(self, source: str) -> LimitRefusal | None:
        """Count one call of `source`, or refuse it (uncounted) when a window is full: tested first, then hit, so a
        refused call uses no window's room; a hit lost to a concurrent call refuses this one."""
        windows = self.windows(source)
        for item in windows:
            if not self._has_room(item, source):
                return self._refused(source, item)
        for item in windows:
            if not self._take(item, source):
                return self._refused(source, item)
        return None

    def _has_room(self, item: RateLimitItem, source: str) -> bool:
        return bool(self._run(lambda limiter: limiter.test(item, source)))

    def _take(self, item: RateLimitItem, source: str) -> bool:
        return bool(self._run(lambda limiter: limiter.hit(item, source)))

    def _refused(self, source: str, item: RateLimitItem) -> LimitRefusal:
        self._run(lambda limiter: limiter.hit(REFUSALS_SEEN, "refused", source))
        reset_s = self._run(lambda limiter: limiter.get_window_stats(item, source)).reset_time
        # The window still holds its oldest call at `reset_s` itself: a retry must come strictly after it.
        return LimitRefusal(source, str(item), max(1, math.floor(reset_s - self._clock()) + 1))

    def counts(self, source: str) -> SourceCounts:
        """The source's calls in its first window and refusals in the last minute."""
        first = self.windows(source)[0]
        calls = first.amount - self._run(lambda limiter: limiter.get_window_stats(first, source)).remaining
        refused = (
            REFUSALS_SEEN.amount
            - self._run(lambda limiter: limiter.get_window_stats(REFUSALS_SEEN, "refused", source)).remaining
        )
        return SourceCounts(self.describe(source), calls, refused)

    def over_limit(self, sources: Iterable[str]) -> dict[str, SourceCounts]:
        """The sources with a refusal in the last minute."""
        counts = {source: self.counts(source) for source in sources}
        return {source: count for source, count in counts.items() if count.refused}

    def _run(self, step: Callable[[MovingWindowRateLimiter], Any]) -> Any:
        """On the shared windows; in this process's while Redis does not answer (intake never waits on Redis, and
        a Redis outage must not stop calls)."""
        if self._shared is not None:
            try:
                return step(self._shared)
            except redis.RedisError as error:
                log.warning("intake_limits=memory reason=%s", type(error).__name__)
        return step(self._local)


def source_limits_for(limits: Mapping[str, str], default: str, redis_client: Any | None, prefix: str) -> SourceLimits:
    """The limits in `redis_client`'s Redis (shared by every web process) under `prefix`, else in this process."""
    storage = None
    if redis_client is not None:
        storage = RedisStorage(
            "redis://", connection_pool=redis_client.connection_pool, key_prefix=keys.intake_limits_prefix(prefix)
        )
    return SourceLimits(limits, default, storage)
