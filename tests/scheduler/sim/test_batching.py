"""Tests for stage-aware batch selection (Algorithm 2)."""

from __future__ import annotations

from scheduler.sim.batching import BatchEntry, select_batch


def entry(request_id: str, level: float, remaining: float, prefill: bool, pinned: bool = False) -> BatchEntry:
    return BatchEntry(key=(level, remaining, 0), request_id=request_id, needs_prefill=prefill, pinned=pinned)


def ids(entries: list[BatchEntry]) -> list[str]:
    return [item.request_id for item in entries]


def test_priority_inversion_less_urgent_prefills_stay_out_while_the_most_urgent_decodes() -> None:
    ongoing = [entry("esi1-decoding", 1, 5.0, prefill=False)]
    candidates = [entry("esi3-new", 3, 1.0, prefill=True), entry("esi2-resumed", 2, 2.0, prefill=False)]
    selection = select_batch(candidates, ongoing, 4, stage_aware=True, waiting_preempts_running=True)
    assert ids(selection.batch) == ["esi1-decoding", "esi2-resumed"]
    assert ids(selection.returned) == ["esi3-new"]
    assert selection.held_for_stage == ["esi3-new"]
    assert selection.stage_hold_level == 1


def test_without_stage_awareness_the_prefill_joins_the_decode() -> None:
    ongoing = [entry("esi1-decoding", 1, 5.0, prefill=False)]
    candidates = [entry("esi3-new", 3, 1.0, prefill=True)]
    selection = select_batch(candidates, ongoing, 4, stage_aware=False, waiting_preempts_running=True)
    assert ids(selection.batch) == ["esi1-decoding", "esi3-new"]
    assert selection.held_for_stage == []


def test_prefills_of_the_same_level_as_the_decoding_leader_are_merged() -> None:
    ongoing = [entry("a-decoding", 1, 1.0, prefill=False)]
    candidates = [entry("b-new", 1, 3.0, prefill=True), entry("c-new", 2, 0.5, prefill=True)]
    selection = select_batch(candidates, ongoing, 4, stage_aware=True, waiting_preempts_running=True)
    assert ids(selection.batch) == ["a-decoding", "b-new"]
    assert selection.held_for_stage == ["c-new"]


def test_most_urgent_prefilling_merges_everything_and_cuts_at_batch_size() -> None:
    ongoing = [entry("o3", 3, 1.0, prefill=False), entry("o4", 4, 1.0, prefill=False)]
    candidates = [
        entry("c1", 1, 9.0, prefill=True),
        entry("c2", 2, 1.0, prefill=True),
        entry("c5", 5, 0.1, prefill=True),
    ]
    selection = select_batch(candidates, ongoing, 3, stage_aware=True, waiting_preempts_running=True)
    assert ids(selection.batch) == ["c1", "c2", "o3"]
    assert ids(selection.returned) == ["o4", "c5"]


def test_pinned_ongoing_requests_keep_their_slots() -> None:
    ongoing = [entry("late-esi5", 5, 0.1, prefill=False, pinned=True), entry("esi4", 4, 1.0, prefill=False)]
    candidates = [entry("u1", 1, 1.0, prefill=True), entry("u2", 1, 2.0, prefill=True)]
    selection = select_batch(candidates, ongoing, 2, stage_aware=True, waiting_preempts_running=True)
    assert ids(selection.batch) == ["u1", "late-esi5"]
    assert ids(selection.returned) == ["u2", "esi4"]


def test_stock_priority_never_lets_waiting_requests_take_running_slots() -> None:
    ongoing = [entry("r5", 5, 1.0, prefill=False), entry("r4", 4, 1.0, prefill=False)]
    candidates = [entry("u1", 1, 1.0, prefill=True), entry("u2", 2, 1.0, prefill=True)]
    full = select_batch(candidates, ongoing, 2, stage_aware=False, waiting_preempts_running=False)
    assert ids(full.batch) == ["r4", "r5"]
    assert ids(full.returned) == ["u1", "u2"]
    room = select_batch(candidates, ongoing, 3, stage_aware=False, waiting_preempts_running=False)
    assert ids(room.batch) == ["r4", "r5", "u1"]
    assert ids(room.returned) == ["u2"]
