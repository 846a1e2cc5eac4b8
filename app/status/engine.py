"""Whether guidance is available: the engine workers' heartbeats read as one status, in an operator's words."""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.engine_worker.builtin_models import is_test_model
from app.redis import keys
from app.redis.shared_value import SharedValue

NO_ENGINE = "no engine worker is running: `triage-dispatch serve` starts one, `triage-dispatch engine run` runs one"


@dataclass(frozen=True, slots=True)
class EngineStatus:
    """Guidance is available when at least one engine worker serves; otherwise why not."""

    available: bool
    state: str
    """serving, loading (a model being loaded), unavailable (it could not be loaded), unhealthy, or absent."""
    reason: str = ""
    engines: int = 0
    test_model: bool = False
    """Every serving engine runs a test model (`is_test_model`): its guidance is never real."""

    def to_check(self) -> str:
        """`/readyz`'s engine check: "ok", "starting: ..." while a model loads (not ready, but nothing is wrong),
        else "error: ..."."""
        if self.available:
            return "ok"
        return f"starting: {self.reason}" if self.state == "loading" else f"error: {self.reason}"


STARTING_STATES = ("loading", "unavailable")
"""A worker whose engine has not started yet beats with one of these: it serves nothing."""


def heartbeats(client: Any, prefix: str) -> list[dict[str, Any]]:
    """Every live engine worker's last heartbeat (a dead worker's expires within 10 s)."""
    found = list(client.scan_iter(match=keys.engine_heartbeat_pattern(prefix), count=1000))
    return [json.loads(raw) for raw in (client.mget(found) if found else []) if raw]


def engine_reports(client: Any, prefix: str) -> list[dict[str, Any]]:
    """Per live engine worker (by its heartbeat key's tail): its engine, model and the scheduling its scheduler
    reports (`scheduler.scheduling_contract`: policy, options, cost model; None until read back), by worker name."""
    pattern = keys.engine_heartbeat(prefix, "")
    found = sorted(client.scan_iter(match=f"{pattern}*", count=1000))
    reports = []
    for key, raw in zip(found, client.mget(found) if found else [], strict=True):
        if not raw:
            continue
        beat = json.loads(raw)
        name = key.decode() if isinstance(key, bytes) else str(key)
        reports.append(
            {
                "worker": name[len(pattern) :],
                "engine": beat.get("engine"),
                "model": beat.get("model"),
                "scheduling": beat.get("scheduling"),
            }
        )
    return reports


def engine_status(client: Any, prefix: str) -> EngineStatus:
    """The engines' state from their heartbeats."""
    beats = heartbeats(client, prefix)
    serving = [beat for beat in beats if beat.get("ok")]
    if serving:
        test_model = all(is_test_model(beat.get("model")) for beat in serving)
        return EngineStatus(True, "serving", engines=len(beats), test_model=test_model)
    if not beats:
        return EngineStatus(False, "absent", NO_ENGINE)
    for state in ("loading", "unavailable", "unhealthy"):
        mine = [beat for beat in beats if beat.get("state", "unhealthy") == state]
        if mine:
            reasons = sorted({str(beat.get("detail") or state) for beat in mine})
            return EngineStatus(False, state, "; ".join(reasons), len(beats))
    return EngineStatus(False, "unhealthy", "; ".join(str(beat.get("detail")) for beat in beats), len(beats))


def engine_status_or_unknown(client: Any, prefix: str) -> EngineStatus:
    """`engine_status`, with Redis not answering as a status of its own (the queue cannot move either)."""
    try:
        return engine_status(client, prefix)
    except Exception as error:
        return EngineStatus(False, "unknown", f"Redis does not answer ({type(error).__name__})")


class EngineStatusCache(SharedValue[EngineStatus]):
    """One read of the heartbeats per `ttl_s` for every caller (each open console asks every second)."""

    def __init__(
        self, client: Any, prefix: str, ttl_s: float = 2.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__(functools.partial(engine_status_or_unknown, client, prefix), ttl_s, clock)
