"""Seeded synthetic workloads: bursts of requests every `gap` seconds with drawn urgency and lengths."""

from __future__ import annotations

import random
from dataclasses import dataclass

from scheduler.policy import ESI_LEVELS


@dataclass(frozen=True, slots=True)
class WorkloadSpec:
    """The arrival process and size distributions; defaults follow the authors' simulator.

    Burst k arrives at k*gap_s with a size drawn uniformly from 0..max_concurrent (inclusive); each
    request's true ESI level is drawn from `esi_weights` (uniform by default), its prompt and output
    lengths uniformly from 1..max_prompt_tokens-1 and 1..max_output_tokens-1.
    """

    gap_s: float = 0.1
    max_concurrent: int = 100
    bursts: int = 20
    max_prompt_tokens: int = 500
    max_output_tokens: int = 500
    esi_weights: tuple[float, float, float, float, float] = (1.0, 1.0, 1.0, 1.0, 1.0)
    seed: int = 0

    def __post_init__(self) -> None:
        if self.gap_s < 0:
            raise ValueError("gap_s must be >= 0")
        if self.max_concurrent < 1 or self.bursts < 1:
            raise ValueError("max_concurrent and bursts must be >= 1")
        if self.max_prompt_tokens < 2 or self.max_output_tokens < 2:
            raise ValueError("max_prompt_tokens and max_output_tokens must be >= 2")
        if len(self.esi_weights) != 5 or min(self.esi_weights) < 0 or sum(self.esi_weights) <= 0:
            raise ValueError("esi_weights needs five non-negative weights, not all zero")


@dataclass(frozen=True, slots=True)
class SimRequest:
    """A request as it truly is: when it arrives, how urgent it is, and how long its answer will be."""

    request_id: str
    arrival_s: float
    esi_level: int
    prompt_tokens: int
    output_tokens: int


def generate_workload(spec: WorkloadSpec) -> list[SimRequest]:
    """Draw the requests of one run, ordered by arrival; the same spec always gives the same list."""
    rng = random.Random(spec.seed)
    requests: list[SimRequest] = []
    for burst in range(spec.bursts):
        size = rng.randint(0, spec.max_concurrent)
        arrival_s = burst * spec.gap_s
        for _ in range(size):
            esi_level = rng.choices(ESI_LEVELS, weights=spec.esi_weights)[0]
            requests.append(
                SimRequest(
                    request_id=f"r{len(requests):05d}",
                    arrival_s=arrival_s,
                    esi_level=esi_level,
                    prompt_tokens=rng.randint(1, spec.max_prompt_tokens - 1),
                    output_tokens=rng.randint(1, spec.max_output_tokens - 1),
                )
            )
    return requests
