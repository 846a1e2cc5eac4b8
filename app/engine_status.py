"""Whether guidance is available: the engine workers' heartbeats read as one status, in an operator's words."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

ENGINE_HEARTBEAT = "engine:heartbeat"
"""The Redis key (after the queue prefix, before the consumer) where each engine worker writes its health."""
NO_ENGINE = "no engine worker is running: `triage-dispatch serve` starts one, `triage-dispatch engine run` runs one"


@dataclass(frozen=True, slots=True)
class EngineStatus:
    """Guidance is available when at least one engine worker serves; otherwise why not."""

    available: bool
    state: str
    """serving, loading (a model being loaded), unavailable (it could not be loaded), unhealthy, or absent."""
    reason: str = ""
    engines: int = 0

    def to_check(self) -> str:
        """`/readyz`'s engine check."""
        return "ok" if self.available else f"error: {self.reason}"


def engine_status(client: Any, prefix: str) -> EngineStatus:
    """The engines' state from their heartbeats (a dead worker's expires within 10 s)."""
    keys = list(client.scan_iter(match=f"{prefix}:{ENGINE_HEARTBEAT}:*", count=1000))
    beats = [json.loads(raw) for raw in (client.mget(keys) if keys else []) if raw]
    if any(beat.get("ok") for beat in beats):
        return EngineStatus(True, "serving", engines=len(beats))
    if not beats:
        return EngineStatus(False, "absent", NO_ENGINE)
    for state in ("loading", "unavailable", "unhealthy"):
        mine = [beat for beat in beats if beat.get("state", "unhealthy") == state]
        if mine:
            reasons = sorted({str(beat.get("detail") or state) for beat in mine})
            return EngineStatus(False, state, "; ".join(reasons), len(beats))
    return EngineStatus(False, "unhealthy", "; ".join(str(beat.get("detail")) for beat in beats), len(beats))


class EngineStatusCache:
    """One read of the heartbeats per `ttl_s` for every caller (each open console asks every second); Redis not
    answering is a status too."""

    def __init__(
        self, client: Any, prefix: str, ttl_s: float = 2.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._client = client
        self._prefix = prefix
        self._ttl_s = ttl_s
        self._clock = clock
        self._lock = threading.Lock()
        self._status: EngineStatus | None = None
        self._at = -float("inf")

    def get(self) -> EngineStatus:
        with self._lock:
            if self._status is None or self._clock() - self._at >= self._ttl_s:
                try:
                    self._status = engine_status(self._client, self._prefix)
                except Exception as error:  # Redis away: the queue cannot move either
                    self._status = EngineStatus(False, "unknown", f"Redis does not answer ({type(error).__name__})")
                self._at = self._clock()
            return self._status
