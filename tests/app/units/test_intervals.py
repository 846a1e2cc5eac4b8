"""A unit's status changes (pure) and the NFPA 1225 intervals of a call from its units' times."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import pytest

from app.units.intervals import answered_at, floor_times
from app.units.statuses import UnitStatusError, check_change, next_statuses

T0 = dt.datetime(2026, 11, 28, 8, 0, tzinfo=dt.UTC)


def at(seconds: float) -> dt.datetime:
    return T0 + dt.timedelta(seconds=seconds)


@dataclass(frozen=True)
class Times:
    dispatched_at: dt.datetime
    en_route_at: dt.datetime | None = None
    on_scene_at: dt.datetime | None = None


def test_a_unit_moves_forward_on_its_call_or_back_in_service() -> None:
    assert next_statuses("available") == ()
    assert next_statuses("dispatched") == ("en route", "on scene", "transporting", "at hospital", "back in service")
    assert next_statuses("transporting") == ("at hospital", "back in service")
    assert next_statuses("at hospital") == ("back in service",)
    check_change("M1", "dispatched", "on scene")  # already at the door: en route skipped
    refusals = [
        (("M1", "available", "en route"), "M1 is available: dispatch it to a call first"),
        (("M1", "on scene", "en route"), "M1 is on scene: it cannot go back to en route"),
        (("M1", "en route", "dispatched"), "choose a status: en route, on scene, transporting, at hospital, back in"),
        (("M1", "en route", "parked"), "choose a status"),
    ]
    for args, message in refusals:
        with pytest.raises(UnitStatusError, match=message):
            check_change(*args)


def test_the_intervals_are_the_first_unit_s_from_the_answer() -> None:
    units = [
        Times(at(50), at(140), at(500)),  # dispatched second, first on scene
        Times(at(42), at(150), None),  # dispatched first, still en route
    ]
    times = floor_times(at(0), units)
    assert (times.dispatched_at, times.en_route_at, times.on_scene_at) == (at(42), at(140), at(500))
    assert times.intervals() == (42.0, 98.0, 360.0)
    assert floor_times(at(0), [Times(at(30))]).intervals() == (30.0, None, None)
    assert floor_times(at(0), []).intervals() == (None, None, None)


def test_the_answer_is_the_sender_s_time_only_when_plausible() -> None:
    accepted = at(3600)
    assert answered_at(at(3590), accepted) == at(3590)
    assert answered_at(at(0), accepted) == at(0)  # an hour before: still the call
    assert answered_at(at(-1), accepted) == accepted  # a clock far off
    assert answered_at(at(3700), accepted) == accepted  # after intake: impossible
    assert answered_at(None, accepted) == accepted
