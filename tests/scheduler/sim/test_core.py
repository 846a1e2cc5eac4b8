"""Hand-built cases for the scheduler: exact batch composition, victim order, overrides, options."""

from __future__ import annotations

import pytest

from scheduler.sim.core import RequestTooLargeError
from scheduler.sim.eviction import EvictionKind
from scheduler.sim.request import Stage
from tests.scheduler.factories import make_request, make_scheduler, run_step


def test_first_step_orders_by_esi_then_estimated_remaining() -> None:
    scheduler = make_scheduler(max_batch_size=4)
    for request in [
        make_request("a", esi_level=3, predicted_output_tokens=10),
        make_request("b", esi_level=1, predicted_output_tokens=50),
        make_request("c", esi_level=1, predicted_output_tokens=5),
        make_request("d", esi_level=2, predicted_output_tokens=5),
        make_request("e", esi_level=5, predicted_output_tokens=1),
    ]:
        scheduler.add_request(request)
    assert run_step(scheduler) == ["c", "b", "d", "a"]
    assert scheduler.waiting_ids() == ["e"]


def test_urgent_request_still_in_the_arrival_buffer_is_not_overlooked() -> None:
    scheduler = make_scheduler(max_batch_size=1)
    scheduler.add_request(make_request("routine", esi_level=4))
    scheduler.drain_buffer()
    scheduler.add_request(make_request("cardiac-arrest", esi_level=1))
    plan = scheduler.schedule()  # no drain: the urgent one is only in the buffer
    assert plan.request_ids == ["cardiac-arrest"]


def test_victims_are_least_urgent_then_longest_remaining() -> None:
    scheduler = make_scheduler(kv_capacity_tokens=60, max_batch_size=3)
    scheduler.add_request(make_request("x", esi_level=4, prompt_tokens=10, predicted_output_tokens=20))
    scheduler.add_request(make_request("y", esi_level=4, prompt_tokens=10, predicted_output_tokens=5))
    scheduler.add_request(make_request("z", esi_level=5, prompt_tokens=10, predicted_output_tokens=5))
    assert run_step(scheduler) == ["y", "x", "z"]
    assert scheduler.kv_used_tokens == 30

    scheduler.add_request(make_request("u", esi_level=1, prompt_tokens=45, predicted_output_tokens=5))
    scheduler.drain_buffer()
    plan = scheduler.schedule()

    assert plan.request_ids == ["u", "y"]
    assert [(e.request_id, e.kind, e.offloaded_tokens) for e in plan.evictions] == [
        ("z", EvictionKind.OFFLOAD, 10),
        ("x", EvictionKind.OFFLOAD, 10),
    ]
    assert scheduler.kv_used_tokens == 56
    assert scheduler.requests["x"].preemption_count == 1
    assert scheduler.requests["z"].kv_offloaded_tokens == 10
    assert sorted(scheduler.waiting_ids()) == ["x", "z"]


def test_without_host_memory_victims_are_recomputed() -> None:
    scheduler = make_scheduler(kv_capacity_tokens=30, max_batch_size=2, offload_enabled=False)
    scheduler.add_request(make_request("low", esi_level=5, prompt_tokens=20))
    run_step(scheduler)
    scheduler.add_request(make_request("high", esi_level=1, prompt_tokens=20))
    scheduler.drain_buffer()
    plan = scheduler.schedule()
    assert plan.request_ids == ["high"]
    assert [(e.request_id, e.kind, e.recomputed_tokens) for e in plan.evictions] == [
        ("low", EvictionKind.RECOMPUTE, 20)
    ]
    assert scheduler.requests["low"].tokens_to_compute == 21  # prompt + the sampled token


def test_priority_inversion_less_urgent_prefill_waits_while_urgent_decodes() -> None:
    for policy, expected in [("semantic", ["u1"]), ("hpjf", ["u1", "low"])]:
        scheduler = make_scheduler(policy)
        scheduler.add_request(make_request("u1", esi_level=1))
        run_step(scheduler)  # u1 prefilled, now decoding
        scheduler.add_request(make_request("low", esi_level=4))
        scheduler.drain_buffer()
        plan = scheduler.schedule()
        assert plan.request_ids == expected, policy
        assert plan.held_for_stage == (["low"] if policy == "semantic" else [])


def test_ongoing_chunked_prefill_of_a_less_urgent_level_waits_while_the_urgent_decodes() -> None:
    scheduler = make_scheduler(max_batch_size=2, max_step_tokens=4, mixed_steps=False)
    scheduler.add_request(make_request("urgent", esi_level=1, prompt_tokens=2))
    scheduler.add_request(make_request("low", esi_level=5, prompt_tokens=40))
    assert run_step(scheduler) == ["urgent", "low"]  # 2 + 2 prompt tokens: low is mid-prefill
    scheduler.drain_buffer()
    plan = scheduler.schedule()
    assert (plan.request_ids, plan.held_for_stage, plan.preempted) == (["urgent"], ["low"], [])
    assert scheduler.requests["low"].kv_device_tokens == 2


def test_abort_and_readd_of_the_same_id_mid_step_ignores_the_old_plan() -> None:
    scheduler = make_scheduler()
    scheduler.add_request(make_request("a", prompt_tokens=10))
    scheduler.drain_buffer()
    plan = scheduler.schedule()
    scheduler.abort("a")
    scheduler.add_request(make_request("a", prompt_tokens=30))
    assert scheduler.update_from_step(plan, {"a"}) == []
    assert scheduler.requests["a"].tokens_generated == 0
    assert scheduler.kv_used_tokens == 0


def test_engine_without_mixed_steps_stalls_decoders_during_a_prefill() -> None:
    scheduler = make_scheduler(mixed_steps=False)
    scheduler.add_request(make_request("a", esi_level=2))
    run_step(scheduler)
    scheduler.add_request(make_request("b", esi_level=1))
    scheduler.drain_buffer()
    plan = scheduler.schedule()
    assert (plan.request_ids, plan.stalled, plan.preempted) == (["b"], ["a"], [])
    scheduler.update_from_step(plan)
    assert run_step(scheduler) == ["b", "a"]


def test_vllm_priority_keeps_running_requests_and_evicts_latest_least_urgent() -> None:
    scheduler = make_scheduler("vllm-priority", kv_capacity_tokens=24, max_batch_size=2)
    scheduler.add_request(make_request("a", esi_level=3, prompt_tokens=10, predicted_output_tokens=14))
    scheduler.add_request(make_request("b", esi_level=3, prompt_tokens=10, predicted_output_tokens=14))
    assert run_step(scheduler) == ["a", "b"]
    scheduler.add_request(make_request("urgent", esi_level=1))
    assert run_step(scheduler) == ["a", "b"]  # vllm#40004: the waiting ESI 1 cannot get in
    assert run_step(scheduler) == ["a", "b"]
    scheduler.drain_buffer()
    plan = scheduler.schedule()
    assert plan.request_ids == ["a"]
    assert [(e.request_id, e.kind, e.recomputed_tokens) for e in plan.evictions] == [("b", EvictionKind.RECOMPUTE, 12)]


def test_override_takes_effect_at_the_next_step() -> None:
    scheduler = make_scheduler(max_batch_size=1)
    scheduler.add_request(make_request("a", esi_level=3))
    scheduler.add_request(make_request("b", esi_level=4))
    assert run_step(scheduler) == ["a"]
    scheduler.override("b", 1)
    scheduler.drain_buffer()
    plan = scheduler.schedule()
    assert (plan.request_ids, plan.preempted) == (["b"], ["a"])


def test_override_to_an_invalid_level_or_of_an_unknown_request_is_refused() -> None:
    scheduler = make_scheduler()
    scheduler.add_request(make_request("a"))
    with pytest.raises(ValueError, match=r"1\.\.5"):
        scheduler.override("a", 0)
    with pytest.raises(KeyError, match="not queued or running"):
        scheduler.override("gone", 2)


def test_override_to_a_routine_level_never_strands_a_large_request() -> None:
    scheduler = make_scheduler(kv_capacity_tokens=100, reserved_kv_share=0.1)
    scheduler.add_request(make_request("a", esi_level=1, prompt_tokens=80, predicted_output_tokens=15))
    scheduler.override("a", 3)
    for _ in range(16):
        run_step(scheduler)
    assert scheduler.requests == {}


def test_override_restarts_aging_at_the_new_level() -> None:
    scheduler = make_scheduler(max_batch_size=1, aging_interval_s=10.0)
    scheduler.add_request(make_request("busy", esi_level=1, predicted_output_tokens=400))
    scheduler.add_request(make_request("x", esi_level=3))
    run_step(scheduler, now_s=0.0)
    scheduler.override("x", 5, now_s=5.0)
    run_step(scheduler, now_s=14.0)
    assert scheduler.requests["x"].effective_level == 5.0
    run_step(scheduler, now_s=15.0)
    assert scheduler.requests["x"].effective_level == 4.5


def test_aging_lifts_esi_4_and_5_half_a_level_per_interval_up_to_the_ceiling() -> None:
    scheduler = make_scheduler(max_batch_size=3, aging_interval_s=10.0)
    scheduler.add_request(make_request("g3", esi_level=3, predicted_output_tokens=400))
    scheduler.add_request(make_request("f4", esi_level=4, predicted_output_tokens=20))
    scheduler.add_request(make_request("e5", esi_level=5, predicted_output_tokens=5))
    assert run_step(scheduler, now_s=10.0) == ["g3", "f4", "e5"]
    assert (scheduler.requests["f4"].effective_level, scheduler.requests["e5"].effective_level) == (3.5, 4.5)
    assert run_step(scheduler, now_s=100.0)[0] == "g3"  # never above a genuine ESI 3
    assert (scheduler.requests["f4"].effective_level, scheduler.requests["e5"].effective_level) == (3.5, 3.5)


def test_reserved_share_is_for_esi_1_and_2_only() -> None:
    scheduler = make_scheduler(kv_capacity_tokens=100, reserved_kv_share=0.2)
    with pytest.raises(RequestTooLargeError, match="at most 80"):
        scheduler.add_request(make_request("big-routine", esi_level=3, prompt_tokens=70, max_output_tokens=20))
    scheduler.add_request(make_request("big-urgent", esi_level=1, prompt_tokens=70, max_output_tokens=20))
    scheduler.abort("big-urgent")
    scheduler.add_request(make_request("routine", esi_level=3, prompt_tokens=75, max_output_tokens=5))
    run_step(scheduler)
    scheduler.add_request(make_request("urgent", esi_level=1, prompt_tokens=15, max_output_tokens=5))
    scheduler.drain_buffer()
    plan = scheduler.schedule()
    # The ESI 1 fits without evicting anyone; the ESI 3 may not grow into the reserved share meanwhile.
    assert (plan.request_ids, plan.blocked, plan.evictions) == (["urgent"], ["routine"], [])
    assert scheduler.kv_used_tokens == 90


def test_limited_preemption_keeps_a_nearly_done_request_running() -> None:
    for share, expected in [(0.5, ["a"]), (None, ["u"])]:
        scheduler = make_scheduler(max_batch_size=1, limited_preemption=share)
        scheduler.add_request(make_request("a", esi_level=4, predicted_output_tokens=4))
        run_step(scheduler)
        run_step(scheduler)  # two tokens out of four predicted
        scheduler.add_request(make_request("u", esi_level=2))
        assert run_step(scheduler) == expected, share


def test_pins_never_hold_against_esi_1() -> None:
    scheduler = make_scheduler(kv_capacity_tokens=300, max_batch_size=1, limited_preemption=0.5)
    scheduler.add_request(make_request("a", esi_level=4, prompt_tokens=250, predicted_output_tokens=4))
    run_step(scheduler)
    run_step(scheduler)  # pinned: two of four tokens
    scheduler.add_request(make_request("cardiac-arrest", esi_level=1, prompt_tokens=60))
    scheduler.drain_buffer()
    plan = scheduler.schedule()
    assert plan.request_ids == ["cardiac-arrest"]
    assert [e.request_id for e in plan.evictions] == ["a"]


def test_pin_window_closes_at_the_predicted_length() -> None:
    scheduler = make_scheduler(max_batch_size=1, limited_preemption=0.5)
    scheduler.add_request(make_request("a", esi_level=4, predicted_output_tokens=2, max_output_tokens=40))
    run_step(scheduler)
    run_step(scheduler)  # two tokens: the prediction is used up, the answer goes on
    scheduler.add_request(make_request("u", esi_level=2))
    assert run_step(scheduler) == ["u"]


def test_preemption_cap_pins_a_request() -> None:
    scheduler = make_scheduler(max_batch_size=1, max_preemptions=1)
    scheduler.add_request(make_request("a", esi_level=4, predicted_output_tokens=40))
    run_step(scheduler)
    scheduler.add_request(make_request("u1", esi_level=1, predicted_output_tokens=1))
    assert run_step(scheduler, finished=("u1",)) == ["u1"]
    assert scheduler.requests["a"].preemption_count == 1
    assert run_step(scheduler) == ["a"]
    scheduler.add_request(make_request("u2", esi_level=2))
    assert run_step(scheduler) == ["a"]  # pinned after one preemption


def test_request_larger_than_the_cache_is_refused_and_nothing_else_changes() -> None:
    scheduler = make_scheduler(kv_capacity_tokens=64)
    with pytest.raises(RequestTooLargeError, match="needs up to 104 tokens"):
        scheduler.add_request(make_request("huge", prompt_tokens=100, max_output_tokens=4))
    assert scheduler.requests == {}
    assert scheduler.stats().waiting == 0


def test_finished_requests_free_their_kv_and_leave() -> None:
    scheduler = make_scheduler()
    scheduler.add_request(make_request("a", prompt_tokens=10, max_output_tokens=2))
    run_step(scheduler)
    assert scheduler.requests["a"].stage is Stage.DECODING
    run_step(scheduler)
    assert scheduler.requests == {}
    assert scheduler.kv_used_tokens == 0
    assert scheduler.stats().finished == 1


def test_abort_frees_kv_wherever_the_request_is() -> None:
    scheduler = make_scheduler()
    scheduler.add_request(make_request("running", prompt_tokens=10))
    run_step(scheduler)
    scheduler.add_request(make_request("buffered"))
    scheduler.abort("running")
    scheduler.abort("buffered")
    assert scheduler.kv_used_tokens == 0
    assert scheduler.running_ids == []
    assert scheduler.waiting_ids() == []


def test_unknown_policy_is_a_clear_error() -> None:
    known = "semantic, semantic-strict, fcfs, sjf, hpjf, vllm-priority"
    with pytest.raises(ValueError, match=f"unknown scheduling policy 'lottery'; known policies: {known}"):
        make_scheduler("lottery")


def test_stats_count_waiting_per_level_and_evictions() -> None:
    scheduler = make_scheduler(kv_capacity_tokens=30, max_batch_size=1)
    scheduler.add_request(make_request("low", esi_level=5, prompt_tokens=20))
    run_step(scheduler)
    scheduler.add_request(make_request("high", esi_level=1, prompt_tokens=20))
    scheduler.add_request(make_request("mid", esi_level=3))
    run_step(scheduler)
    stats = scheduler.stats()
    assert stats.waiting_per_level == {1: 0, 2: 0, 3: 1, 4: 0, 5: 1}
    assert stats.evictions == {"offload": 1, "recompute": 0, "partial": 0}
    assert (stats.running, stats.kv_used_tokens, stats.steps) == (1, 20, 2)


def test_the_overload_mode_serves_esi_2_strictly_first_and_leaving_it_restores_the_weighted_order() -> None:
    scheduler = make_scheduler("semantic", max_batch_size=1, deadline_window_s=0.0)
    scheduler.add_request(make_request("chest-pain-long", esi_level=2, predicted_output_tokens=100))  # 1.01 s / 4
    scheduler.add_request(make_request("abdominal-short", esi_level=3, predicted_output_tokens=10))  # 0.11 s / 2
    assert run_step(scheduler) == ["abdominal-short"]
    assert scheduler.set_overloaded(True) is True
    assert scheduler.options.strict_max_level == 2
    assert run_step(scheduler) == ["chest-pain-long"]  # the waiting ESI 2 displaces the running ESI 3
    assert scheduler.set_overloaded(True) is False  # already on: nothing re-keyed
    assert scheduler.set_overloaded(False) is True
    assert run_step(scheduler) == ["abdominal-short"]


def test_without_an_overload_level_or_for_a_baseline_the_mode_changes_nothing() -> None:
    assert make_scheduler("semantic", overload_strict_max_level=1).set_overloaded(True) is False
    assert make_scheduler("semantic", strict_max_level=2).set_overloaded(True) is False
    fcfs = make_scheduler("fcfs")
    assert fcfs.set_overloaded(True) is False and fcfs.overloaded is False
