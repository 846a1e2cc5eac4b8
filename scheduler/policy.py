"""The scheduling policy in one place: keys, the integer priority encoding, options, and the pure decisions.

Every scheduler calls this module: the simulator's core (`scheduler.sim.core`), the Redis heap, the transformers and
vLLM schedulers, and the app's pipeline. Nothing here does I/O or reads a clock: the caller passes the time.

A scheduling key is `(band, value_s, esi_level, arrival_seq)`, smaller first. `band` is the coarse class (under
`semantic-strict` the ESI level itself; under `semantic` ESI 1, then requests whose deadline is at risk, then the
rest), `value_s` orders within the band (estimated remaining seconds, divided by the level's weight under
`semantic`). Keys encode to one integer (`encode_priority`), the Redis heap's score and vLLM's `priority` alike.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final

from scheduler.indexed_heap import SortKey

__all__ = [
    "DEFAULT_POLICY",
    "ESI_LEVELS",
    "MAX_ENCODED_MS",
    "POLICIES",
    "PRIORITY_SCALE",
    "UNENCODED_PRIORITY",
    "KeyView",
    "Policy",
    "PolicyOptions",
    "Resident",
    "SortKey",
    "aged_level",
    "band_of_priority",
    "decoded_priority",
    "defers_prefills",
    "encode_priority",
    "eviction_key",
    "eviction_victims",
    "get_policy",
    "is_protected",
    "level_of_priority",
    "next_key_change_s",
    "protection_holds",
]

ESI_LEVELS = (1, 2, 3, 4, 5)

PRIORITY_SCALE = 10**10
"""An encoded priority is `band * PRIORITY_SCALE + milliseconds * 10 + esi_level` (`encode_priority`)."""

MAX_ENCODED_MS = PRIORITY_SCALE // 10 - 1
"""Milliseconds of a key's value the encoding carries (about 11.5 days); longer is capped."""

UNENCODED_PRIORITY = 6 * PRIORITY_SCALE - 5
"""How a priority outside the encoding is read (vLLM's default 0, a client's own scale): ESI 5, after every encoded
key. Such a request was never triaged, so it must never outrank triaged work; among ESI 5 it is the first victim
and the last admitted, so an unknown amount of work never delays ESI 5 work whose estimate is known."""


@dataclass(frozen=True, slots=True)
class PolicyOptions:
    """The semantic policies' options, with their defaults; baselines ignore them. Read from `Settings` in the app."""

    limited_preemption: float | None = 0.8
    """TRAIL's C: a request past this share of its predicted output is neither displaced nor evicted. None = off."""
    max_preemptions: int | None = 3
    """After this many preemptions a request is pinned (the production post's cap). None = no cap."""
    aging_interval_s: float | None = 30.0
    """Every this many seconds of waiting, an ESI >= `aging_min_level` request is lifted half a level. None = off."""
    aging_min_level: int = 4
    """The least urgent levels that age (4 and 5 by default)."""
    aging_ceiling: float = 3.5
    """Aging never lifts a request above this effective level: an aged ESI 5 never overtakes an ESI 1-3 request."""
    reserved_kv_share: float = 0.1
    """Share of the KV capacity that only ESI 1..`reserved_max_level` requests may use."""
    reserved_max_level: int = 2
    """The most urgent levels that may use the reserved share."""
    level_weights: tuple[float, float, float, float, float] = (1.0, 4.0, 2.0, 1.5, 1.0)
    """`semantic`: a level's weight divides its estimated remaining work (ESI 1 is strictly first: its weight is
    unused). Chosen from `bench sim` sweeps (docs/scheduling.md)."""
    level_deadlines_s: tuple[float | None, float | None, float | None, float | None, float | None] = (
        None,
        60.0,
        180.0,
        600.0,
        1200.0,
    )
    """`semantic`: seconds from arrival (or override) to finished guidance, per level; None = no deadline."""
    deadline_window_s: float = 5.0
    """`semantic`: a request enters the at-risk band this long before the last moment it could still start and
    meet its deadline, and leaves it at that moment (after it, running it first would not save its deadline)."""
    max_deferred_steps: int = 4
    """Stage awareness: prefills are deferred for at most this many engine steps in a row (no starvation)."""
    held_prefill_share: float = 0.25
    """transformers engine: while the most urgent request decodes, held prefills may use this share of a step."""
    evict_for_levels: int = 2
    """transformers engine: only a waiting request of ESI 1..this level evicts running requests."""
    strict_max_level: int = 1
    """`semantic`: ESI 1..this level go strictly by level before every other request (1: ESI 1 only; 2: ESI 2 too,
    which keeps ESI 2 at its limit under overload at a cost to ESI 3-5: `bench overload`, docs/reliability.md)."""
    overload_strict_max_level: int = 2
    """`semantic`: the `strict_max_level` that holds while the queue is overloaded (`when_overloaded`): some waiting
    ESI 3-5 call is projected to miss its deadline (`scheduler.shedding.projects_miss`). 1 turns the mode off."""

    def __post_init__(self) -> None:
        if self.limited_preemption is not None and not 0 < self.limited_preemption <= 1:
            raise ValueError("limited_preemption must be in (0, 1] or None")
        if self.max_preemptions is not None and self.max_preemptions < 0:
            raise ValueError("max_preemptions must be >= 0 or None")
        if self.aging_interval_s is not None and self.aging_interval_s <= 0:
            raise ValueError("aging_interval_s must be > 0 or None")
        if not 1.0 <= self.aging_ceiling <= 5.0:
            raise ValueError("aging_ceiling must be within 1..5")
        if not 0.0 <= self.reserved_kv_share < 1.0:
            raise ValueError("reserved_kv_share must be in [0, 1)")
        if len(self.level_weights) != 5 or min(self.level_weights) <= 0:
            raise ValueError("level_weights needs five positive weights")
        if len(self.level_deadlines_s) != 5 or any(d is not None and d <= 0 for d in self.level_deadlines_s):
            raise ValueError("level_deadlines_s needs five positive deadlines (or None)")
        if self.deadline_window_s < 0 or self.max_deferred_steps < 0 or not 0 <= self.held_prefill_share <= 1:
            raise ValueError("deadline_window_s and max_deferred_steps must be >= 0, held_prefill_share in [0, 1]")
        if self.strict_max_level not in (1, 2) or self.overload_strict_max_level not in (1, 2):
            raise ValueError("strict_max_level and overload_strict_max_level must be 1 or 2")

    def when_overloaded(self) -> PolicyOptions:
        """The options that hold while the queue is overloaded: ESI 1..`overload_strict_max_level` strictly first."""
        strict = max(self.strict_max_level, self.overload_strict_max_level)
        return self if strict == self.strict_max_level else replace(self, strict_max_level=strict)


@dataclass(frozen=True, slots=True)
class KeyView:
    """What a key is computed from: the request's level, its estimated remaining work, and its clocks."""

    esi_level: int
    est_remaining_s: float
    arrival_seq: int = 0
    arrival_s: float = 0.0
    clock_start_s: float | None = None
    """When aging and the deadline started counting: arrival, or the last override (None: arrival)."""

    def since_s(self) -> float:
        return self.arrival_s if self.clock_start_s is None else self.clock_start_s


KeyFunction = Callable[[KeyView, PolicyOptions, float], SortKey]
"""(view, options, now_s) -> scheduling key."""


def aged_level(options: PolicyOptions, esi_level: int, waited_s: float) -> float:
    """The effective level after `waited_s` of waiting: half a level per interval for ESI >= `aging_min_level`,
    never above `aging_ceiling`."""
    if options.aging_interval_s is None or esi_level < options.aging_min_level or waited_s <= 0:
        return float(esi_level)
    steps = math.floor(waited_s / options.aging_interval_s)
    return max(min(options.aging_ceiling, float(esi_level)), esi_level - 0.5 * steps)


def level_weight(options: PolicyOptions, effective_level: float) -> float:
    """A (possibly aged, fractional) level's weight, interpolated between the whole levels around it."""
    low = int(effective_level)
    high = min(5, low + 1)
    share = effective_level - low
    return options.level_weights[low - 1] * (1 - share) + options.level_weights[high - 1] * share


def deadline_window(options: PolicyOptions, view: KeyView) -> tuple[float, float] | None:
    """When the request is at risk: from `deadline_window_s` before its latest start until that start."""
    deadline = options.level_deadlines_s[view.esi_level - 1]
    if deadline is None:
        return None
    latest_start = view.since_s() + deadline - view.est_remaining_s
    return latest_start - options.deadline_window_s, latest_start


def _semantic_key(view: KeyView, options: PolicyOptions, now_s: float) -> SortKey:
    if view.esi_level <= options.strict_max_level:  # ESI 1 in band 1; ESI 2, when strict, in band 1.5
        return (1 + (view.esi_level - 1) / 2, view.est_remaining_s, view.esi_level, view.arrival_seq)
    effective = aged_level(options, view.esi_level, now_s - view.since_s())
    value = view.est_remaining_s / level_weight(options, effective)
    window = deadline_window(options, view)
    band = 2 if window is not None and window[0] <= now_s < window[1] else 3
    return (band, value, view.esi_level, view.arrival_seq)


def _semantic_strict_key(view: KeyView, options: PolicyOptions, now_s: float) -> SortKey:
    effective = aged_level(options, view.esi_level, now_s - view.since_s())
    return (effective, view.est_remaining_s, view.esi_level, view.arrival_seq)


def _fcfs_key(view: KeyView, options: PolicyOptions, now_s: float) -> SortKey:
    return (0, 0.0, 0, view.arrival_seq)


def _sjf_key(view: KeyView, options: PolicyOptions, now_s: float) -> SortKey:
    return (0, view.est_remaining_s, 0, view.arrival_seq)


def _hpjf_key(view: KeyView, options: PolicyOptions, now_s: float) -> SortKey:
    return (view.esi_level, 0.0, 0, view.arrival_seq)


def _vllm_priority_key(view: KeyView, options: PolicyOptions, now_s: float) -> SortKey:
    # vLLM's Request.__lt__: (priority, arrival_time, request_id); arrival_seq stands in for the id.
    return (view.esi_level, view.arrival_s, 0, view.arrival_seq)


@dataclass(frozen=True, slots=True)
class Policy:
    """How a policy orders, batches, preempts and evicts; the mechanics live in each scheduler."""

    name: str
    key_function: KeyFunction
    stage_aware: bool
    """Algorithm 2: hold prefills of a later band back while the most urgent request decodes."""
    waiting_preempts_running: bool
    """Whether a better waiting request may take a running request's slot (continuous re-ranking)."""
    waiting_may_evict: bool
    """Whether admitting a waiting request may evict a less urgent request's KV."""
    offload: bool
    """Whether evictions may offload (cost-model choice) or always recompute."""
    semantic_options: bool
    """Whether limited preemption, the preemption cap, aging and the reserved KV share apply."""
    deadlines: bool = False
    """Whether a request whose deadline is at risk moves to the at-risk band (`deadline_window`)."""

    def key(self, view: KeyView, options: PolicyOptions, now_s: float) -> SortKey:
        """The scheduling key of a request as it stands at `now_s`."""
        return self.key_function(view, options, now_s)


DEFAULT_POLICY: Final = "semantic"
POLICIES: dict[str, Policy] = {
    "semantic": Policy("semantic", _semantic_key, True, True, True, True, True, deadlines=True),
    "semantic-strict": Policy("semantic-strict", _semantic_strict_key, True, True, True, True, True),
    "fcfs": Policy("fcfs", _fcfs_key, False, True, True, True, False),
    "sjf": Policy("sjf", _sjf_key, False, True, True, True, False),
    "hpjf": Policy("hpjf", _hpjf_key, False, True, True, True, False),
    # vLLM 0.32 policy="priority": waiting never preempts running (vllm#40004), only a running request
    # that cannot grow preempts the least urgent, latest-arrived running one, and preemption recomputes.
    "vllm-priority": Policy("vllm-priority", _vllm_priority_key, False, False, False, False, False),
}


def get_policy(name: str) -> Policy:
    """The named policy; an unknown name is an error that lists the known ones."""
    try:
        return POLICIES[name]
    except KeyError:
        raise ValueError(f"unknown scheduling policy {name!r}; known policies: {', '.join(POLICIES)}") from None


def next_key_change_s(policy: Policy, options: PolicyOptions, view: KeyView, now_s: float) -> float | None:
    """The next time after `now_s` at which the request's key changes with nothing but the clock (None: never):
    the next aging step (options without aging: none), or its deadline window opening or closing."""
    times: list[float] = []
    waited = now_s - view.since_s()
    if options.aging_interval_s is not None and aged_level(options, view.esi_level, waited) > min(
        options.aging_ceiling, view.esi_level
    ):
        times.append(view.since_s() + (math.floor(waited / options.aging_interval_s) + 1) * options.aging_interval_s)
    window = deadline_window(options, view) if policy.deadlines and view.esi_level > 1 else None
    if window is not None:
        times.extend(moment for moment in window if moment > now_s)
    # Never at or before `now_s` (float rounding of the aging step): callers loop until no change is due.
    return max(min(times), math.nextafter(now_s, math.inf)) if times else None


# ----- the integer encoding ----------------------------------------------------------------------------------------


def encode_priority(key: SortKey) -> int:
    """One integer for a semantic key, lower first, for the Redis heap's score and vLLM's `priority`.

    Orders like the key's first three parts; arrival breaks ties in both stores (the member's arrival prefix in
    Redis, `arrival_time` in vLLM). Exact in a double (at most 6e10)."""
    band, value_s, esi_level = key[0], key[1], int(key[2])
    if esi_level not in ESI_LEVELS or not 1 <= band < 6:
        raise ValueError(f"not a semantic key: {key}")
    milliseconds = min(MAX_ENCODED_MS, max(0, int(value_s * 1000)))
    return round(band * PRIORITY_SCALE) + milliseconds * 10 + esi_level


def decoded_priority(priority: int) -> int:
    """The one reading of a priority: ours as it is, anything else as `UNENCODED_PRIORITY`. Idempotent."""
    valid = PRIORITY_SCALE <= priority < 6 * PRIORITY_SCALE and 1 <= priority % 10 <= 5
    return priority if valid else UNENCODED_PRIORITY


def level_of_priority(priority: int) -> int:
    """The ESI level an encoded priority carries (its last digit); ESI 5 for one outside the encoding."""
    return decoded_priority(priority) % 10


def band_of_priority(priority: int) -> float:
    """The band an encoded priority carries (ESI level under `semantic-strict`)."""
    return decoded_priority(priority) // (PRIORITY_SCALE // 2) / 2


# ----- decisions ----------------------------------------------------------------------------------------------------


def eviction_key(order_key: SortKey) -> SortKey:
    """The reverse of a scheduling key: the min-heap on it pops the least urgent, longest-remaining request."""
    return tuple(-part for part in order_key)


def is_protected(
    options: PolicyOptions, tokens_generated: int, predicted_output_tokens: int | None, preemptions: int
) -> bool:
    """Pinned: in the last (1 - C) of its predicted output (limited preemption), or preempted too often. The window
    closes at the predicted length, so an under-predicted answer is not protected for its whole real length."""
    share = options.limited_preemption
    if share is not None and predicted_output_tokens is not None:
        nearly_done = share * predicted_output_tokens <= tokens_generated < predicted_output_tokens
        if nearly_done:
            return True
    return options.max_preemptions is not None and preemptions >= options.max_preemptions


def protection_holds(for_esi_level: int) -> bool:
    """Pins protect work from less urgent arrivals, never from an immediate life threat (ESI 1)."""
    return for_esi_level > 1


def defers_prefills(leader_band: float, leader_decoding: bool, waiting_band: float | None) -> bool:
    """Stage awareness: a step holds prefills back while the most urgent running request decodes and whatever waits
    is of a later band."""
    return leader_decoding and waiting_band is not None and waiting_band > leader_band


@dataclass(frozen=True, slots=True)
class Resident:
    """A running request as victim choice sees it."""

    request_id: str
    key: SortKey
    blocks: int
    protected: bool


def eviction_victims(for_key: SortKey, for_esi_level: int, residents: list[Resident], blocks_needed: int) -> list[str]:
    """Priority eviction (Algorithm 4): least urgent first, only requests of a later key than `for_key`, skipping
    protected ones unless the request is ESI 1, until `blocks_needed` blocks would be free; [] if they cannot be."""
    if blocks_needed <= 0:
        return []
    victims: list[str] = []
    freed = 0
    for resident in sorted(residents, key=lambda item: eviction_key(item.key)):
        if resident.key <= for_key:
            break
        if resident.protected and protection_holds(for_esi_level):
            continue
        victims.append(resident.request_id)
        freed += resident.blocks
        if freed >= blocks_needed:
            return victims
    return []
