"""Who may send a live call's event now: a source's limit counts its calls (the first event of each), a call's own
limit counts its events. A busy evening of many calls is never refused; a runaway stream is, alone."""

from __future__ import annotations

import collections
import contextlib
import logging
import math
import threading
import time
from collections.abc import Callable
from typing import Any

import redis
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from app.intake.limits import LimitRefusal, SourceLimits, parse_limit
from app.live.call_windows import CallWindows, WindowFull
from app.redis import keys

log = logging.getLogger(__name__)

KNOWN_CALL_TTL_S = 4 * 3600
"""A call counted against its source is remembered this long (longer than any call)."""
LOCAL_KNOWN_CALLS = 50_000
"""Calls this process remembers having counted, so most events need no Redis read for it."""
LOCAL_REFUSED_CALLS = 10_000
"""Calls over their limit this process remembers until their window has room again."""


class CallRefusal(LimitRefusal):
    """An event refused because its call is over the per-call limit."""

    @property
    def reason(self) -> str:
        return (
            f"call {self.source!r} is over its event limit ({self.limit}): nothing was stored; send the same event "
            f"again after {self.retry_after_s} s"
        )


class LiveAdmission:
    """Counts each new call once against its source (`SourceLimits`, shared with the message webhook) and each event
    against its call's own windows (all of them in one Redis round trip: `CallWindows`)."""

    def __init__(
        self,
        source_limits: SourceLimits,
        call_limit: str,
        redis_client: Any | None,
        prefix: str,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.source_limits = source_limits
        self.windows = parse_limit("(live call)", call_limit)
        self.describe = ", ".join(str(item) for item in self.windows)
        self._client = redis_client
        self._prefix = prefix
        self._clock = clock
        self._shared = None if redis_client is None else CallWindows(redis_client, prefix, self.windows)
        self._local = MovingWindowRateLimiter(MemoryStorage())
        """The windows while Redis is away (and without one): this process's count alone."""
        self._known: collections.OrderedDict[tuple[str, str], None] = collections.OrderedDict()
        self._refused: dict[tuple[str, str], tuple[float, str]] = {}
        """(source, call) -> (when its full window has room again, the window): refused without Redis till then."""
        self._lock = threading.Lock()

    def admit(self, source: str, call_id: str) -> LimitRefusal | None:
        """None if the event may be stored; else why not, and when to send it again."""
        if not self._counted(source, call_id):
            refusal = self.source_limits.hit(source)
            if refusal is not None:
                self._forget(source, call_id)
                return refusal
        return self._hit_call(source, call_id)

    def refused_now(self, source: str, call_id: str) -> LimitRefusal | None:
        """The refusal of a call still over its limit, from this process's memory: no Redis and no thread, so a
        runaway stream is answered 429 at once. A moving window that refused an event refuses every event until its
        oldest entry expires (a refused event is not counted), so this refuses nothing `admit` would accept."""
        refused = self._refused.get((source, call_id))
        if refused is None:
            return None
        until, window = refused
        now = self._clock()
        if now >= until:
            return None
        return CallRefusal(call_id, window, max(1, math.floor(until - now) + 1))

    def _remember_refusal(self, source: str, call_id: str, until: float, window: str) -> None:
        with self._lock:
            if len(self._refused) >= LOCAL_REFUSED_CALLS:
                now = self._clock()
                self._refused = {key: value for key, value in self._refused.items() if value[0] > now}
            if len(self._refused) < LOCAL_REFUSED_CALLS:
                self._refused[(source, call_id)] = (until, window)

    def _counted(self, source: str, call_id: str) -> bool:
        """Whether the call was counted against its source already (here, or by another web process)."""
        key = (source, call_id)
        with self._lock:
            if key in self._known:
                self._known.move_to_end(key)
                return True
            self._known[key] = None
            while len(self._known) > LOCAL_KNOWN_CALLS:
                self._known.popitem(last=False)
        if self._client is None:
            return False
        try:
            first = self._client.set(
                keys.live_known_call(self._prefix, source, call_id), "1", nx=True, ex=KNOWN_CALL_TTL_S
            )
        except redis.RedisError as error:
            log.warning("live_admission=memory reason=%s", type(error).__name__)
            return False
        return not first

    def _forget(self, source: str, call_id: str) -> None:
        """A refused new call was not counted: its retry is a new call again."""
        with self._lock:
            self._known.pop((source, call_id), None)
        if self._client is not None:
            # Should Redis not answer, the mark expires; the retry is then admitted as a call already counted.
            with contextlib.suppress(redis.RedisError):
                self._client.delete(keys.live_known_call(self._prefix, source, call_id))

    def _hit_call(self, source: str, call_id: str) -> LimitRefusal | None:
        identity = f"{source}|{call_id}"
        try:
            full = self._hit_local(identity) if self._shared is None else self._shared.hit(identity, self._clock())
        except redis.RedisError as error:
            log.warning("live_limits=memory reason=%s", type(error).__name__)
            full = self._hit_local(identity)
        if full is None:
            return None
        self._remember_refusal(source, call_id, full.until, str(full.window))
        return CallRefusal(call_id, str(full.window), max(1, math.floor(full.until - self._clock()) + 1))

    def _hit_local(self, identity: str) -> WindowFull | None:
        for item in self.windows:
            if not self._local.hit(item, identity):
                return WindowFull(item, self._local.get_window_stats(item, identity).reset_time)
        return None
