"""Live admission: a call over its limit is remembered until its window has room, and refused from memory."""

from __future__ import annotations

import time
from typing import Any

from fastapi.testclient import TestClient

from app.intake.limits import SourceLimits
from app.live.admission import CallRefusal, LiveAdmission
from tests.app.live.conftest import content, post_twilio


def test_refused_now_remembers_a_call_over_its_limit_until_its_window_has_room() -> None:
    shift = [0.0]
    limits = SourceLimits({}, "10/minute")
    admission = LiveAdmission(limits, "3/minute", None, "test", clock=lambda: time.time() + shift[0])
    assert [admission.admit("cad", "runaway") for _ in range(3)] == [None, None, None]
    assert admission.refused_now("cad", "runaway") is None
    refusal = admission.admit("cad", "runaway")
    assert isinstance(refusal, CallRefusal) and refusal.limit == "3 per 1 minute"
    assert 59 <= refusal.retry_after_s <= 61
    remembered = admission.refused_now("cad", "runaway")
    assert isinstance(remembered, CallRefusal) and remembered.limit == "3 per 1 minute"
    assert remembered.retry_after_s in (refusal.retry_after_s - 1, refusal.retry_after_s)
    assert admission.refused_now("cad", "other") is None  # the source's other calls are not refused
    shift[0] = 61.0
    assert admission.refused_now("cad", "runaway") is None  # the window has room again: Redis decides


def test_a_runaway_calls_later_events_are_refused_without_the_limit_check(live_client: TestClient) -> None:
    admission: LiveAdmission = live_client.app.state.live_admission  # type: ignore[attr-defined]
    checked: list[str] = []
    admit = admission.admit

    def counting(source: str, call_id: str) -> Any:
        checked.append(call_id)
        return admit(source, call_id)

    admission.admit = counting  # type: ignore[method-assign]
    answers = [post_twilio(live_client, content(n, 5, f"again {n}", call_sid="CA-runaway")) for n in range(1, 24)]
    assert [answer.status_code for answer in answers] == [200] * 20 + [429] * 3  # its 20 events a minute
    assert checked == ["CA-runaway"] * 21  # the 22nd and 23rd answered from memory
    waits = [int(answer.headers["retry-after"]) for answer in answers[20:]]
    assert waits == sorted(waits, reverse=True) and 59 <= waits[-1] <= waits[0] <= 61  # the same window's end
    assert answers[22].json()["detail"].startswith("call 'CA-runaway' is over its event limit (20 per 1 minute)")
