"""What one scheduling decision hands the engine: the work of each request this step and the evictions."""

from __future__ import annotations

from dataclasses import dataclass, field

from scheduler.sim.eviction import EvictionKind


@dataclass(frozen=True, slots=True)
class ScheduledWork:
    """One request's share of a step: reload offloaded KV, compute `new_tokens` tokens, maybe sample one."""

    request_id: str
    esi_level: int
    arrival_seq: int
    """Identifies the admission this work belongs to (an id may be aborted and added again)."""
    is_prefill: bool
    """True for a (re)prefill or reload step, False for a plain one-token decode."""
    cached_tokens: int
    """Tokens with KV on the device before this step (after the reload)."""
    new_tokens: int
    """Tokens whose KV this step computes."""
    reload_tokens: int
    """Offloaded tokens brought back to the device before computing."""
    samples_token: bool
    """Whether the step ends with the request's whole sequence computed, so a new token is sampled."""


@dataclass(frozen=True, slots=True)
class Eviction:
    """A victim of priority eviction and what became of its KV."""

    request_id: str
    esi_level: int
    kind: EvictionKind
    offloaded_tokens: int
    recomputed_tokens: int


@dataclass(slots=True)
class StepPlan:
    """The outcome of `Scheduler.schedule()`: work in urgency order, evictions, and displaced requests."""

    work: list[ScheduledWork] = field(default_factory=list)
    evictions: list[Eviction] = field(default_factory=list)
    preempted: list[str] = field(default_factory=list)
    """Requests that ran last step and were displaced from this one (their KV stays unless evicted)."""
    held_for_stage: list[str] = field(default_factory=list)
    """Prefilling candidates kept out of this step because the most urgent request is decoding."""
    blocked: list[str] = field(default_factory=list)
    """Batch members that found no room this step (KV under their tier's limit, or token budget)."""
    stage_hold_level: float | None = None
    """When set, prefilling candidates less urgent than this level were held back for a decoding request."""
    stalled: list[str] = field(default_factory=list)
    """Decoding batch members that wait out a prefill-only step (engines that do not mix stages)."""

    @property
    def request_ids(self) -> list[str]:
        return [item.request_id for item in self.work]

    def __bool__(self) -> bool:
        return bool(self.work)
