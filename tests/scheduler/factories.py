"""Small factories for scheduler tests: requests and schedulers with readable defaults."""

from __future__ import annotations

from scheduler.cost_model import CostModel
from scheduler.policy import PolicyOptions
from scheduler.sim.config import SchedulerConfig
from scheduler.sim.core import Scheduler
from scheduler.sim.request import Request

# Round numbers so expected keys are easy to reason about: prefill 1 ms/token, decode 10 ms/token,
# reload 0.1 ms/token (so offloading prompt KV always beats recomputing it).
SIMPLE_COSTS = CostModel(a1=0.0, a2=1e-3, g1=0.0, g2=1e-2, beta=1e-4)


def make_request(
    request_id: str,
    esi_level: int = 3,
    prompt_tokens: int = 10,
    predicted_output_tokens: int = 10,
    max_output_tokens: int | None = None,
) -> Request:
    return Request(
        request_id=request_id,
        esi_level=esi_level,
        prompt_tokens=prompt_tokens,
        predicted_output_tokens=predicted_output_tokens,
        max_output_tokens=max_output_tokens or predicted_output_tokens,
        arrival_seq=0,
    )


def make_scheduler(
    policy: str = "semantic-strict",
    kv_capacity_tokens: int = 1024,
    max_batch_size: int = 4,
    costs: CostModel = SIMPLE_COSTS,
    **options: object,
) -> Scheduler:
    """A scheduler on round costs, every semantic option off unless passed (engine limits and options alike)."""
    option_names = set(PolicyOptions.__dataclass_fields__)
    policy_options: dict[str, object] = {
        "aging_interval_s": None,
        "limited_preemption": None,
        "max_preemptions": None,
        "reserved_kv_share": 0.0,
    }
    policy_options.update({name: value for name, value in options.items() if name in option_names})
    limits: dict[str, object] = {"block_size": 1}
    limits.update({name: value for name, value in options.items() if name not in option_names})
    config = SchedulerConfig(
        kv_capacity_tokens=kv_capacity_tokens,
        max_batch_size=max_batch_size,
        options=PolicyOptions(**policy_options),  # type: ignore[arg-type]
        **limits,  # type: ignore[arg-type]
    )
    return Scheduler(policy, config, costs)


def run_step(scheduler: Scheduler, now_s: float = 0.0, finished: tuple[str, ...] = ()) -> list[str]:
    """Drain arrivals, schedule one step, apply it; returns the ids that ran, most urgent first."""
    scheduler.drain_buffer()
    plan = scheduler.schedule(now_s)
    scheduler.update_from_step(plan, finished)
    return plan.request_ids
