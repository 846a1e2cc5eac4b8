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


class MemoryFailureStore(FailureStore):
    """Failures in this process only (no Redis: one web process)."""

    MAX_KEYS = 10_000
    """Past this many keys, the ones with no failure left in the window are dropped (random names cannot grow it)."""

    def __init__(self) -> None:
        self._times: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def failures(self, key: str, since: float) -> list[float]:
        with self._lock:
            return [at for at in self._times.get(key, ()) if at > since]

    def add(self, key: str, at: float, window_s: float) -> None:
        with self._lock:
            times = self._times.setdefault(key, deque())
            times.append(at)
            while times and times[0] <= at - window_s:
                times.popleft()
            if len(self._times) > self.MAX_KEYS:
                stale = [k for k, v in self._times.items() if not v or v[-1] <= at - window_s]
                for k in stale:
                    del self._times[k]

    def clear(self, key: str) -> None:
        with self._lock:
            self._times.pop(key, None)


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


def retry_after_s(times: list[float], limit: int, window_s: float, now: float) -> int:
    """Whole seconds until one more attempt is allowed (0: allowed now), given the failures in the window, oldest
    first: allowed again once fewer than `limit` of them are left."""
    if len(times) < limit:
        return 0
    frees_at = times[len(times) - limit] + window_s
    return max(1, math.ceil(frees_at - now))


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

    def failed(self, account: str, client: str) -> None:
        now = self._clock()
        self._store.add(self._account_key(account), now, self._config.window_s)
        self._store.add(self._client_key(client), now, self._config.window_s)

    def succeeded(self, account: str) -> None:
        self._store.clear(self._account_key(account))

    def _account_key(self, account: str) -> str:
        # Hashed: any name a visitor types makes a short key of safe characters.
        return f"{self._prefix}:signin:account:{hashlib.sha256(account.encode()).hexdigest()[:32]}"

    def _client_key(self, client: str) -> str:
        return f"{self._prefix}:signin:client:{hashlib.sha256(client.encode()).hexdigest()[:32]}"


def throttle_for(settings: Settings, clock: Callable[[], float] = time.time) -> SignInThrottle:
    """The throttle the settings describe: in their Redis when there is one (shared by every web process), else in
    this process."""
    config = ThrottleConfig(settings.signin_account_failures, settings.signin_client_failures, settings.signin_window_s)
    store: FailureStore = MemoryFailureStore()
    if settings.redis_url is not None:
        from app.queueing import redis_client

        store = RedisFailureStore(redis_client(settings.redis_url))
    return SignInThrottle(store, config, settings.queue_prefix, clock)
