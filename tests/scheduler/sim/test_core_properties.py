"""Property tests: nothing lost or duplicated, KV within capacity, urgency respected at admission."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler.cost_model import PROFILES
from scheduler.policy import POLICIES, PolicyOptions
from scheduler.sim.config import SchedulerConfig
from scheduler.sim.core import RequestTooLargeError, Scheduler
from scheduler.sim.plan import StepPlan
from scheduler.sim.request import Request


@dataclass(frozen=True)
class Arrival:
    esi_level: int
    prompt_tokens: int
    predicted_output_tokens: int
    true_output_tokens: int


arrivals = st.builds(
    Arrival,
    esi_level=st.integers(1, 5),
    prompt_tokens=st.integers(1, 120),
    predicted_output_tokens=st.integers(1, 40),
    true_output_tokens=st.integers(1, 40),
)
operations = st.lists(
    st.one_of(
        st.tuples(st.just("add"), arrivals),
        st.tuples(st.just("step"), st.integers(0, 3)),
        st.tuples(st.just("override"), st.tuples(st.integers(0, 60), st.integers(1, 5))),
        st.tuples(st.just("abort"), st.integers(0, 60)),
    ),
    min_size=1,
    max_size=80,
)
configs = st.builds(
    dict,
    kv_capacity_tokens=st.integers(160, 600),
    max_batch_size=st.integers(1, 6),
    max_step_tokens=st.integers(6, 400),
    block_size=st.sampled_from([1, 4, 16]),
    mixed_steps=st.booleans(),
    offload_enabled=st.booleans(),
)
options_on = PolicyOptions(
    aging_interval_s=0.05,
    limited_preemption=0.8,
    max_preemptions=2,
    reserved_kv_share=0.2,
    level_deadlines_s=(None, 0.2, 0.5, 1.0, 2.0),
    deadline_window_s=0.05,
)
options_off = PolicyOptions(aging_interval_s=None, limited_preemption=None, max_preemptions=None, reserved_kv_share=0.0)


class Harness:
    """Drives a scheduler through operations and checks the invariants after each one."""

    def __init__(self, scheduler: Scheduler) -> None:
        self.scheduler = scheduler
        self.added: list[str] = []
        self.truth: dict[str, int] = {}
        self.generated: dict[str, int] = {}
        self.finished: set[str] = set()
        self.aborted: set[str] = set()
        self.now_s = 0.0

    def add(self, arrival: Arrival) -> None:
        request_id = f"r{len(self.added)}"
        request = Request(
            request_id=request_id,
            esi_level=arrival.esi_level,
            prompt_tokens=arrival.prompt_tokens,
            predicted_output_tokens=arrival.predicted_output_tokens,
            max_output_tokens=max(arrival.true_output_tokens, arrival.predicted_output_tokens),
            arrival_seq=0,
        )
        try:
            self.scheduler.add_request(request, self.now_s)
        except RequestTooLargeError:
            return
        self.added.append(request_id)
        self.truth[request_id] = arrival.true_output_tokens

    def step(self, drain: int) -> StepPlan:
        self.scheduler.drain_buffer(None if drain == 3 else drain)
        plan = self.scheduler.schedule(self.now_s)
        self.apply(plan)
        return plan

    def apply(self, plan: StepPlan) -> None:
        """Execute a plan: count sampled tokens and finish requests that reached their true length."""
        self.now_s += 0.01
        finishing = set()
        for work in plan.work:
            if work.samples_token:
                self.generated[work.request_id] = self.generated.get(work.request_id, 0) + 1
                if self.generated[work.request_id] >= self.truth[work.request_id]:
                    finishing.add(work.request_id)
        for request in self.scheduler.update_from_step(plan, finishing):
            self.finished.add(request.request_id)

    def live(self, index: int) -> str | None:
        request_id = f"r{index}"
        return request_id if request_id in self.scheduler.requests else None

    def check_conservation(self) -> None:
        waiting = self.scheduler.waiting_ids()
        running = self.scheduler.running_ids
        assert len(waiting) == len(set(waiting)), "a request is queued twice"
        assert len(running) == len(set(running)), "a request runs twice in one batch"
        assert not set(waiting) & set(running), "a request is both waiting and running"
        assert set(waiting) | set(running) == set(self.scheduler.requests), "a live request is nowhere"
        accounted = set(self.scheduler.requests) | self.finished | self.aborted
        assert accounted == set(self.added), "a request was lost"
        assert not (set(self.scheduler.requests) & (self.finished | self.aborted))

    def check_kv(self) -> None:
        config = self.scheduler.config
        capacity = config.capacity_blocks * config.block_size
        assert self.scheduler.kv_used_tokens <= capacity
        resident_blocks = sum(config.blocks_for(r.kv_device_tokens) for r in self.scheduler.requests.values())
        assert self.scheduler.kv_used_tokens == resident_blocks * config.block_size
        # White-box: the eviction heap holds exactly the requests with device KV, and waiting keys are current.
        with_kv = {request_id for request_id, r in self.scheduler.requests.items() if r.kv_device_tokens > 0}
        assert set(self.scheduler._resident) == with_kv
        for request_id in self.scheduler._waiting:
            assert self.scheduler._waiting.key_of(request_id) == self.scheduler.order_key(
                self.scheduler.requests[request_id]
            ), f"stale key for {request_id}"


def drive(harness: Harness, ops: list[tuple[str, object]]) -> list[StepPlan]:
    plans = []
    for op, argument in ops:
        if op == "add":
            assert isinstance(argument, Arrival)
            harness.add(argument)
        elif op == "step":
            assert isinstance(argument, int)
            plans.append(harness.step(argument))
        elif op == "override":
            assert isinstance(argument, tuple)
            request_id = harness.live(argument[0])
            if request_id is not None:
                harness.scheduler.override(request_id, argument[1], harness.now_s)
        elif op == "abort":
            assert isinstance(argument, int)
            request_id = harness.live(argument)
            if request_id is not None:
                harness.scheduler.abort(request_id)
                harness.aborted.add(request_id)
        harness.check_conservation()
        harness.check_kv()
    return plans


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(list(POLICIES)), configs, st.booleans(), operations)
def test_no_request_is_lost_or_duplicated_and_kv_stays_within_capacity(
    policy: str, config: dict[str, object], with_options: bool, ops: list[tuple[str, object]]
) -> None:
    scheduler_config = SchedulerConfig(**config, options=options_on if with_options else options_off)  # type: ignore[arg-type]
    harness = Harness(Scheduler(policy, scheduler_config, PROFILES["a100-qwen1.5-7b"]))
    drive(harness, ops)
    # Drain everything that is left: every accepted request finishes.
    for _ in range(5_000):
        if not harness.scheduler.has_unfinished():
            break
        harness.step(3)
        harness.check_conservation()
        harness.check_kv()
    assert not harness.scheduler.has_unfinished(), "requests left unfinished: the scheduler stalled"
    assert harness.finished | harness.aborted == set(harness.added)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs, operations)
def test_no_less_urgent_request_is_admitted_while_a_more_urgent_one_waits_with_room(
    config: dict[str, object], ops: list[tuple[str, object]]
) -> None:
    scheduler_config = SchedulerConfig(**config, options=options_off)  # type: ignore[arg-type]
    scheduler = Scheduler("semantic-strict", scheduler_config, PROFILES["a100-qwen1.5-4b"])
    harness = Harness(scheduler)
    for op, argument in ops:
        drive(harness, [(op, argument)])
        if op != "step":
            continue
        # Re-run the check on a fresh step so that the waiting set is the one this decision saw.
        scheduler.drain_buffer()
        plan = scheduler.schedule(harness.now_s)
        admitted_levels = [scheduler.requests[w.request_id].esi_level for w in plan.work]
        excused = set(plan.blocked) | {e.request_id for e in plan.evictions}
        for request_id in plan.held_for_stage:
            held = scheduler.requests[request_id]
            assert plan.stage_hold_level is not None
            assert held.needs_prefill and held.esi_level > plan.stage_hold_level
        if admitted_levels and not plan.held_for_stage:
            worst_admitted = max(admitted_levels)
            for request_id in scheduler.waiting_ids():
                if request_id in excused:
                    continue
                assert scheduler.requests[request_id].esi_level >= worst_admitted, (
                    f"{request_id} (ESI {scheduler.requests[request_id].esi_level}) waits while an "
                    f"ESI {worst_admitted} request was admitted with room to spare"
                )
        harness.apply(plan)
        harness.check_conservation()
        harness.check_kv()
