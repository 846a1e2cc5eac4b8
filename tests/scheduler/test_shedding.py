"""Overload shedding's decision (`plan_shedding`) and the drain rate it divides by (`DrainMeter`)."""

from __future__ import annotations

import pytest

from scheduler.shedding import (
    OVERLOAD_CALM_S,
    DrainMeter,
    ShedDecision,
    SheddingOptions,
    WaitingCall,
    overloaded,
    plan_shedding,
    projects_miss,
)

DEADLINES = (None, 60.0, 180.0, 600.0, 1200.0)


def call(call_id: str, level: int, est_s: float, waited_s: float = 0.0) -> WaitingCall:
    return WaitingCall(call_id, level, est_s, waited_s)


def test_a_call_of_esi_4_that_would_miss_its_deadline_is_shed_with_its_projection() -> None:
    waiting = [call("a", 3, 500.0), call("b", 4, 200.0, waited_s=10.0)]
    shed = plan_shedding(waiting, in_service_s=0.0, drain_rate=1.0, deadlines_s=DEADLINES, options=SheddingOptions())
    assert shed == [ShedDecision("b", 4, 710.0, 600.0)]


def test_a_call_that_still_makes_its_deadline_is_kept() -> None:
    waiting = [call("a", 3, 300.0), call("b", 4, 200.0, waited_s=99.0)]
    assert plan_shedding(waiting, 0.0, 1.0, DEADLINES, SheddingOptions()) == []  # 599 s <= 600 s


def test_the_drain_rate_and_the_work_in_service_set_the_projection() -> None:
    waiting = [call("b", 4, 200.0)]
    assert plan_shedding(waiting, 1100.0, 2.0, DEADLINES, SheddingOptions()) == [ShedDecision("b", 4, 650.0, 600.0)]
    assert plan_shedding(waiting, 1100.0, 3.0, DEADLINES, SheddingOptions()) == []


def test_esi_1_to_3_are_never_shed_under_the_default_options_however_late() -> None:
    waiting = [call("one", 1, 5000.0), call("two", 2, 5000.0), call("three", 3, 5000.0, waited_s=9999.0)]
    assert plan_shedding(waiting, 0.0, 1.0, DEADLINES, SheddingOptions()) == []


def test_a_shed_call_no_longer_delays_the_calls_behind_it() -> None:
    waiting = [call("a", 4, 700.0), call("b", 5, 600.0)]
    # Without "a" shed, "b" would finish at 1300 s > 1200 s; with it shed, at 600 s.
    assert [d.call_id for d in plan_shedding(waiting, 0.0, 1.0, DEADLINES, SheddingOptions())] == ["a"]


def test_min_level_3_sheds_esi_3_too_and_levels_1_2_can_never_be_asked_for() -> None:
    waiting = [call("three", 3, 200.0, waited_s=0.0)]
    assert plan_shedding(waiting, 0.0, 1.0, DEADLINES, SheddingOptions(min_level=3)) == [
        ShedDecision("three", 3, 200.0, 180.0)
    ]
    with pytest.raises(ValueError, match="never shed"):
        SheddingOptions(min_level=2)


def test_disabled_sheds_nothing_and_a_level_without_deadline_is_never_shed() -> None:
    waiting = [call("b", 4, 5000.0)]
    assert plan_shedding(waiting, 0.0, 1.0, DEADLINES, SheddingOptions(enabled=False)) == []
    assert plan_shedding(waiting, 0.0, 1.0, (None, 60.0, 180.0, None, None), SheddingOptions()) == []


def test_a_drain_rate_of_zero_is_refused() -> None:
    with pytest.raises(ValueError, match="drain_rate"):
        plan_shedding([], 0.0, 0.0, DEADLINES, SheddingOptions())


def test_the_drain_meter_counts_busy_time_only() -> None:
    meter = DrainMeter(window=10)
    assert meter.rate() is None
    meter.in_service(0.0, 2)
    meter.finished(4.0, 6.0)  # 6 s of estimated work in 4 busy seconds
    assert meter.rate() == 1.5
    meter.in_service(4.0, 0)  # idle from 4 s to 100 s: does not count
    meter.in_service(100.0, 1)
    meter.finished(102.0, 3.0)
    assert meter.busy_s(102.0) == 6.0
    assert meter.rate() == 1.5  # (6 + 3) / 6


def test_the_drain_meter_forgets_calls_older_than_its_window() -> None:
    meter = DrainMeter(window=2)
    meter.in_service(0.0, 1)
    meter.finished(1.0, 10.0)
    meter.finished(2.0, 1.0)
    meter.finished(4.0, 1.0)  # the window: the last two, finished over busy seconds 1..4
    assert meter.rate() == pytest.approx(2.0 / 3.0)


def test_a_miss_is_projected_for_any_esi_3_to_5_call_whatever_the_shedding_options() -> None:
    assert projects_miss([call("a", 3, 200.0)], 0.0, 1.0, DEADLINES)  # 200 > 180: ESI 3 is never shed by default
    assert not projects_miss([call("a", 3, 170.0), call("b", 4, 400.0)], 0.0, 1.0, DEADLINES)  # 170, 570
    assert projects_miss([call("a", 3, 170.0), call("b", 4, 400.0)], 40.0, 1.0, DEADLINES)  # 210, 610


def test_esi_1_and_2_alone_never_project_a_miss() -> None:
    assert not projects_miss([call("a", 1, 900.0), call("b", 2, 900.0)], 0.0, 1.0, DEADLINES)


def test_the_overload_mode_holds_until_calm_for_its_calm_time() -> None:
    assert overloaded(True, None, 100.0)
    assert overloaded(False, 100.0, 100.0 + OVERLOAD_CALM_S - 0.1)
    assert not overloaded(False, 100.0, 100.0 + OVERLOAD_CALM_S)
    assert not overloaded(False, None, 100.0)
    assert overloaded(False, 100.0, 104.0, calm_s=5.0) and not overloaded(False, 100.0, 105.0, calm_s=5.0)
