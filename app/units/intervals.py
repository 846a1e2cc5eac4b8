"""The NFPA 1225 intervals of a call (pure): answer to dispatch (alarm processing), dispatch to en route (turnout)
and en route to on scene (travel), from the call's answer and its units' times."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

RECEIVED_AT_TRUSTED = dt.timedelta(hours=1)
"""A sender's `received_at` is the call's answer only when it lies within this long before intake accepted the call
(and not after it); otherwise intake's own time is (a sender's clock can be wrong)."""
INTERVALS = ("answer to dispatch", "dispatch to en route", "en route to on scene")
PROCESSING_TARGET_S = 60.0
"""NFPA 1225's alarm-processing target, as the queue's clocks use it: 90 % of calls dispatched within 60 s of answer."""


class UnitTimes(Protocol):
    """What the intervals read of a unit's assignment (`app.db.models.UnitAssignment`)."""

    @property
    def dispatched_at(self) -> dt.datetime: ...
    @property
    def en_route_at(self) -> dt.datetime | None: ...
    @property
    def on_scene_at(self) -> dt.datetime | None: ...


def answered_at(received_at: dt.datetime | None, accepted_at: dt.datetime) -> dt.datetime:
    """When the call was answered: its sender's `received_at` when plausible, else intake's acceptance."""
    if received_at is not None and dt.timedelta(0) <= accepted_at - received_at <= RECEIVED_AT_TRUSTED:
        return received_at
    return accepted_at


@dataclass(frozen=True, slots=True)
class FloorTimes:
    """A call's answer and the first unit's dispatch, en route and on scene (None: not yet)."""

    answered_at: dt.datetime
    dispatched_at: dt.datetime | None = None
    en_route_at: dt.datetime | None = None
    on_scene_at: dt.datetime | None = None

    def intervals(self) -> tuple[float | None, float | None, float | None]:
        """(answer to dispatch, dispatch to en route, en route to on scene) in seconds; None where a time is
        missing."""
        return (
            _seconds(self.answered_at, self.dispatched_at),
            _seconds(self.dispatched_at, self.en_route_at),
            _seconds(self.en_route_at, self.on_scene_at),
        )


def _seconds(start: dt.datetime | None, end: dt.datetime | None) -> float | None:
    if start is None or end is None:
        return None
    return max(0.0, (end - start).total_seconds())


def floor_times(answered: dt.datetime, assignments: Iterable[UnitTimes]) -> FloorTimes:
    """The call's times: its answer and, over its units, the first dispatch, the first en route and the first on
    scene (NFPA 1225 measures the first unit)."""
    items = list(assignments)

    def first(times: Iterable[dt.datetime | None]) -> dt.datetime | None:
        present = [time for time in times if time is not None]
        return min(present) if present else None

    return FloorTimes(
        answered_at=answered,
        dispatched_at=first(item.dispatched_at for item in items),
        en_route_at=first(item.en_route_at for item in items),
        on_scene_at=first(item.on_scene_at for item in items),
    )
