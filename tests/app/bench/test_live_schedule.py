"""`bench live`'s schedule: the calls' clock sped up, and the rate it offers."""

from __future__ import annotations

from app.bench.live import events_of, offered_span_s
from app.bench.live_calls import SCRIPTS


def test_events_of_a_sped_up_call_are_due_sooner_in_the_same_order() -> None:
    script = SCRIPTS[4]  # arrest-pulse-es: six utterances, the last at 17 s
    real, fast = events_of(script, "c", 1.0), events_of(script, "c", 1 / 3)
    assert [body for _, body, _ in real] == [body for _, body, _ in events_of(script, "c", 1.0)]
    assert [body["sequence"] for _, body, _ in fast] == list(range(1, len(real) + 1))
    assert [when for when, _, _ in real][-2:] == [17.0, 18.0]  # the last final, then the stop a second later
    assert [round(when, 3) for when, _, _ in fast][-2:] == [5.667, 6.667]
    assert [decisive for _, _, decisive in fast].count(True) == 1


def test_offered_span_is_the_last_calls_end_after_the_ramp() -> None:
    assert offered_span_s(1, 0.0, 1.0) == 41.0  # arrest-asked-en: last utterance at 40 s, stopped at 41 s
    assert offered_span_s(2, 10.0, 1.0) == 41.0  # the second call (ends at 25 s) starts at 5 s: 30 s
    assert offered_span_s(11, 11.0, 0.5) == 21.0
