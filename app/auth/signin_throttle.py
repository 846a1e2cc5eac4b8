"""Sign-in throttling: failed sign-ins counted per account and per client in a sliding window (Redis or memory)."""

from __future__ import annotations

import hashlib
import logging
import math
import threading
import time
import uuid
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis

from app.redis import keys
from app.settings import Settings

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ThrottleConfig:
    """How many failures a window holds before the next attempt is refused."""

    account_failures: int = 10
    """Failed sign-ins to one account name (from anywhere) within the window."""
    client_failures: int = 30
    """Failed sign-ins from one client address (to any account) within the window."""
    window_s: float = 60.0
    """The sliding window: a failure stops counting this long after it happened."""

    def __post_init__(self) -> None:
        if self.account_failures < 1 or self.client_failures < 1:
            raise ValueError("a throttle needs limits of at least 1 failure")
        if self.window_s <= 0:
            raise ValueError("a throttle needs a positive window")


class FailureStore(ABC):
    """Where failures are counted: times per key, older ones forgotten."""

    @abstractmethod
    def failures(self, key: str, since: float) -> list[float]:
        """The times of the key's failures later than `since`, oldest first."""

    @abstractmethod
    def add(self, key: str, at: float, window_s: float) -> None:
        """Record a failure at `at`; failures older than `window_s` before it may be forgotten."""

    @abstractmethod
    def clear(self, key: str) -> None:
        """Forget every failure of the key."""

    @abstractmethod
    def reserve(self, key: str, at: float, window_s: float) -> tuple[str, list[float]]:
        """Atomically: the times of the key's failures within `window_s` before `at` (oldest first), then one more
        recorded at `at`; the new one's id (for `discard`) and the times before it."""

    @abstractmethod
    def discard(self, key: str, entry: str) -> None:
        """Forget one failure recorded by `reserve`."""


class MemoryFailureStore(FailureStore):
    """Failures in this process only (no Redis: one web process)."""

    MAX_KEYS = 10_000
    """Past this many keys, the ones with no failure left in the window are dropped (random names cannot grow it)."""

    def __init__(self) -> None:
        self._times: dict[str, deque[float]] = {}
        self._entries: dict[str, dict[str, float]] = {}
        """Failures recorded by `reserve` that may still be discarded: key -> entry -> time."""
        self._lock = threading.RLock()

    def failures(self, key: str, since: float) -> list[float]:
        with self._lock:
            return [at for at in self._times.get(key, ()) if at > since]

    def add(self, key: str, at: float, window_s: float) -> None:
        with self._lock:
            times = self._times.setdefault(key, deque())
            times.append(at)
            while times and times[0] <= at - window_s:
                times.popleft()
            entries = self._entries.get(key)
            if entries:
                for entry in [e for e, t in entries.items() if t <= at - window_s]:
                    del entries[entry]
            if len(self._times) > self.MAX_KEYS:
                stale = [k for k, v in self._times.items() if not v or v[-1] <= at - window_s]
                for k in stale:
                    del self._times[k]
                    self._entries.pop(k, None)

    def clear(self, key: str) -> None:
        with self._lock:
            self._times.pop(key, None)
            self._entries.pop(key, None)

    def reserve(self, key: str, at: float, window_s: float) -> tuple[str, list[float]]:
        entry = uuid.uuid4().hex
        with self._lock:  # re-entrant: `add` takes it too, and the read and the record are one step
            before = [t for t in self._times.get(key, ()) if t > at - window_s]
            self._entries.setdefault(key, {})[entry] = at
            self.add(key, at, window_s)
        return entry, before

    def discard(self, key: str, entry: str) -> None:
        with self._lock:
            at = self._entries.get(key, {}).pop(entry, None)
            times = self._times.get(key)
            if at is not None and times is not None and at in times:
                times.remove(at)


class RedisFailureStore(FailureStore):
    """Failures in Redis sorted sets (score: the time), shared by every web process; counted in memory while
    Redis does not answer, so a Redis outage neither opens the door nor locks dispatchers out."""

    def __init__(self, client: redis.Redis) -> None:
        self._client = client
        self._fallback = MemoryFailureStore()

    def failures(self, key: str, since: float) -> list[float]:
        try:
            rows: Any = self._client.zrangebyscore(key, f"({since}", "+inf", withscores=True)
        except redis.RedisError as error:
            log.warning("signin_throttle=memory reason=%s", type(error).__name__)
            return self._fallback.failures(key, since)
        return [float(score) for _, score in rows]

    def add(self, key: str, at: float, window_s: float) -> None:
        try:
            pipe = self._client.pipeline()
            pipe.zadd(key, {uuid.uuid4().hex: at})
            pipe.zremrangebyscore(key, "-inf", at - window_s)
            pipe.expire(key, math.ceil(window_s) + 1)
            pipe.execute()
        except redis.RedisError as error:
            log.warning("signin_throttle=memory reason=%s", type(error).__name__)
            self._fallback.add(key, at, window_s)

    def clear(self, key: str) -> None:
        try:
            self._client.delete(key)
        except redis.RedisError as error:
            log.warning("signin_throttle=memory reason=%s", type(error).__name__)
        self._fallback.clear(key)

    def reserve(self, key: str, at: float, window_s: float) -> tuple[str, list[float]]:
        entry = uuid.uuid4().hex
        try:
            pipe = self._client.pipeline(transaction=True)  # MULTI/EXEC: concurrent reservations are serialized
            pipe.zremrangebyscore(key, "-inf", at - window_s)
            pipe.zrangebyscore(key, f"({at - window_s}", "+inf", withscores=True)
            pipe.zadd(key, {entry: at})
            pipe.expire(key, math.ceil(window_s) + 1)
            rows: Any = pipe.execute()[1]
        except redis.RedisError as error:
            log.warning("signin_throttle=memory reason=%s", type(error).__name__)
            return self._fallback.reserve(key, at, window_s)
        return entry, [float(score) for _, score in rows]

    def discard(self, key: str, entry: str) -> None:
        try:
            self._client.zrem(key, entry)
        except redis.RedisError as error:
            log.warning("signin_throttle=memory reason=%s", type(error).__name__)
        self._fallback.discard(key, entry)


def retry_after_s(times: list[float], limit: int, window_s: float, now: float) -> int:
    """Whole seconds until one more attempt is allowed (0: allowed now), given the failures in the window, oldest
    first: allowed again once fewer than `limit` of them are left."""
    if len(times) < limit:
        return 0
    frees_at = times[len(times) - limit] + window_s
    return max(1, math.ceil(frees_at - now))


@dataclass(frozen=True, slots=True)
class Attempt:
    """A sign-in attempt let through or refused by `SignInThrottle.begin`."""

    retry_after_s: int
    """0: go ahead (already counted as a failure until `succeeded`); else refused, seconds to wait."""
    entries: tuple[tuple[str, str], ...] = ()
    """(key, entry) of the failures recorded for it."""


class SignInThrottle:
    """Refuses an attempt while its account or its client has too many recent failures; a success clears the
    account's failures (not the client's)."""

    def __init__(
        self,
        store: FailureStore,
        config: ThrottleConfig,
        prefix: str = "triage",
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._store = store
        self._config = config
        self._prefix = prefix
        self._clock = clock

    def retry_after(self, account: str, client: str) -> int:
        """Seconds until this account may be tried from this client (0: now)."""
        now = self._clock()
        since = now - self._config.window_s
        waits = (
            retry_after_s(self._store.failures(key, since), limit, self._config.window_s, now)
            for key, limit in (
                (self._account_key(account), self._config.account_failures),
                (self._client_key(client), self._config.client_failures),
            )
        )
        return max(waits)

    def begin(self, account: str, client: str) -> Attempt:
        """Count the attempt as a failure first, atomically per key, and refuse it (uncounted) if the failures
        before it already reach a limit: parallel attempts never get past a limit, as checking then recording
        would let them."""
        now = self._clock()
        window_s = self._config.window_s
        entries, waits = [], []
        for key, limit in (
            (self._account_key(account), self._config.account_failures),
            (self._client_key(client), self._config.client_failures),
        ):
            entry, before = self._store.reserve(key, now, window_s)
            entries.append((key, entry))
            waits.append(retry_after_s(before, limit, window_s, now))
        wait = max(waits)
        if wait:
            for key, entry in entries:
                self._store.discard(key, entry)
            return Attempt(wait)
        return Attempt(0, tuple(entries))

    def failed(self, account: str, client: str) -> None:
        now = self._clock()
        self._store.add(self._account_key(account), now, self._config.window_s)
        self._store.add(self._client_key(client), now, self._config.window_s)

    def succeeded(self, account: str, attempt: Attempt | None = None) -> None:
        """Clear the account's failures, and the client's failure `begin` recorded for this attempt."""
        self._store.clear(self._account_key(account))
        for key, entry in attempt.entries if attempt is not None else ():
            if key != self._account_key(account):
                self._store.discard(key, entry)

    def _account_key(self, account: str) -> str:
        # Hashed: any name a visitor types makes a short key of safe characters.
        return keys.signin_account(self._prefix, hashlib.sha256(account.encode()).hexdigest()[:32])

    def _client_key(self, client: str) -> str:
        return keys.signin_client(self._prefix, hashlib.sha256(client.encode()).hexdigest()[:32])


def throttle_for(settings: Settings, clock: Callable[[], float] = time.time) -> SignInThrottle:
    """The throttle the settings describe: in their Redis when there is one (shared by every web process), else in
    this process."""
    config = ThrottleConfig(settings.signin_account_failures, settings.signin_client_failures, settings.signin_window_s)
    store: FailureStore = MemoryFailureStore()
    if settings.redis_url is not None:
        from app.redis.queueing import redis_client

        store = RedisFailureStore(redis_client(settings.redis_url))
    return SignInThrottle(store, config, settings.queue_prefix, clock)
