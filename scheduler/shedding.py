"""Overload shedding: which waiting calls of the least urgent levels would miss their guidance deadline.

Pure: plain data in, the ids to shed out. The product's reconciler and intake path (`app.incidents.overload`) and the
simulator (`scheduler.sim.simulator`) call the same `plan_shedding`; `DrainMeter` measures the rate the engine
gets through estimated work, which the projection divides by.

The projection: a waiting call finishes once the engine has got through the estimated work of what is in service,
of every call ordered before it and its own (`est_remaining_s`, the same estimate the heap orders by), at the
measured drain rate. A call of a shed level whose time waited plus that projection passes its level's deadline is
shed (it gets template guidance at once); the work it would have needed then no longer delays the calls behind it.
ESI 1-2 are never shed, whatever the options say.

The same projection says when the queue is overloaded (`projects_miss`: some ESI 3-5 call would miss its
deadline); while it is, and `OVERLOAD_CALM_S` after, the policy serves ESI 2 strictly after ESI 1
(`PolicyOptions.when_overloaded`), so short ESI 3 calls no longer go ahead of ESI 2.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

NEVER_SHED_BELOW = 3
"""ESI 1-2 are never shed: the least urgent level that may ever be shed is 3, and only if asked."""


@dataclass(frozen=True, slots=True)
class SheddingOptions:
    """Whether to shed, and from which level down."""

    enabled: bool = True
    min_level: int = 4
    """Calls of this ESI level and less urgent ones may be shed (4: ESI 4-5)."""

    def __post_init__(self) -> None:
        if not NEVER_SHED_BELOW <= self.min_level <= 5:
            raise ValueError(f"min_level must be within {NEVER_SHED_BELOW}..5 (ESI 1-2 are never shed)")

    def may_shed(self, esi_level: int) -> bool:
        return self.enabled and esi_level >= self.min_level


@dataclass(frozen=True, slots=True)
class WaitingCall:
    """A waiting call as the projection needs it, given in the order the engine will take the calls."""

    call_id: str
    esi_level: int
    est_remaining_s: float
    waited_s: float
    """Seconds since it was accepted: its deadline counts from then."""


@dataclass(frozen=True, slots=True)
class ShedDecision:
    """One call to shed, and why: when it would finish and the deadline it would miss."""

    call_id: str
    esi_level: int
    projected_s: float
    """Seconds from acceptance to its projected finished guidance."""
    deadline_s: float


def plan_shedding(
    waiting: Sequence[WaitingCall],
    in_service_s: float,
    drain_rate: float,
    deadlines_s: Sequence[float | None],
    options: SheddingOptions,
) -> list[ShedDecision]:
    """The waiting calls to shed, in queue order.

    `in_service_s`: estimated work still owed to the calls the engines are serving; `drain_rate`: estimated seconds
    of work the engines get through per second (`DrainMeter`, summed over engines); `deadlines_s`: per level 1..5,
    seconds from acceptance to finished guidance (None: no deadline, never shed)."""
    if drain_rate <= 0:
        raise ValueError("drain_rate must be > 0")
    if len(deadlines_s) != 5:
        raise ValueError("deadlines_s needs one entry per ESI level")
    shed: list[ShedDecision] = []
    ahead_s = max(0.0, in_service_s)
    for call in waiting:
        ahead_s += call.est_remaining_s
        deadline = deadlines_s[call.esi_level - 1]
        if deadline is None or not options.may_shed(call.esi_level):
            continue
        projected = call.waited_s + ahead_s / drain_rate
        if projected > deadline:
            shed.append(ShedDecision(call.call_id, call.esi_level, projected, deadline))
            ahead_s -= call.est_remaining_s  # shed: its work no longer delays the calls behind it
    return shed


def projects_miss(
    waiting: Sequence[WaitingCall], in_service_s: float, drain_rate: float, deadlines_s: Sequence[float | None]
) -> bool:
    """Whether some waiting ESI 3-5 call, in queue order, is projected to miss its deadline (the queue is
    overloaded), whatever the shedding options: the signal for the policy's overload mode."""
    everyone = SheddingOptions(enabled=True, min_level=NEVER_SHED_BELOW)
    return bool(plan_shedding(waiting, in_service_s, drain_rate, deadlines_s, everyone))


OVERLOAD_CALM_S = 30.0
"""Overload mode holds until this long has passed without a projected miss, so it does not flap at the edge."""


def overloaded(projected_miss: bool, last_miss_s: float | None, now_s: float, calm_s: float = OVERLOAD_CALM_S) -> bool:
    """Whether the overload mode holds at `now_s`: a miss is projected now, or was less than `calm_s` ago."""
    return projected_miss or (last_miss_s is not None and now_s - last_miss_s < calm_s)


class DrainMeter:
    """The rate an engine gets through estimated work: estimated seconds finished per second it was busy, over
    its last `window` finished calls. Idle time does not count, so a quiet engine keeps its measured rate."""

    def __init__(self, window: int = 50) -> None:
        if window < 1:
            raise ValueError("window must be >= 1")
        self._finished: deque[tuple[float, float]] = deque(maxlen=window)
        """(busy seconds when it finished, its estimated seconds), oldest first."""
        self._busy_s = 0.0
        self._busy_since: float | None = None
        self._window_start_busy_s = 0.0

    def in_service(self, now_s: float, count: int) -> None:
        """Tell the meter how many calls the engine is serving from `now_s` on."""
        if count > 0 and self._busy_since is None:
            self._busy_since = now_s
        elif count == 0 and self._busy_since is not None:
            self._busy_s += max(0.0, now_s - self._busy_since)
            self._busy_since = None

    def busy_s(self, now_s: float) -> float:
        """Seconds the engine has been busy, up to `now_s`."""
        current = 0.0 if self._busy_since is None else max(0.0, now_s - self._busy_since)
        return self._busy_s + current

    def finished(self, now_s: float, est_s: float) -> None:
        """A call the heap estimated at `est_s` seconds of work finished at `now_s`."""
        if len(self._finished) == self._finished.maxlen:
            self._window_start_busy_s = self._finished[0][0]
        self._finished.append((self.busy_s(now_s), max(0.0, est_s)))

    def rate(self) -> float | None:
        """Estimated seconds of work per busy second over the window; None until a call has finished after some
        busy time."""
        if not self._finished:
            return None
        busy = self._finished[-1][0] - self._window_start_busy_s
        if busy <= 0:
            return None
        return sum(est for _, est in self._finished) / busy
