"""Priority KV eviction (Algorithms 3-4): the eviction key and the offload-or-recompute choice per victim."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from scheduler.cost_model import CostModel


class DecodedKVRule(enum.Enum):
    """How many decoded tokens' KV a victim keeps: the exact minimiser of eq. 5, or eq. 6 as printed."""

    OPTIMAL = "optimal"
    PAPER_EQ6 = "paper-eq6"


class EvictionKind(enum.Enum):
    """What happened to a victim's KV: all offloaded, all discarded for recompute, or split."""

    OFFLOAD = "offload"
    RECOMPUTE = "recompute"
    PARTIAL = "partial"


@dataclass(frozen=True, slots=True)
class EvictionDecision:
    """How much of a victim's device KV goes to host memory; the rest is recomputed on resume."""

    offloaded_tokens: int
    recomputed_tokens: int

    @property
    def kind(self) -> EvictionKind:
        if self.recomputed_tokens == 0:
            return EvictionKind.OFFLOAD
        if self.offloaded_tokens == 0:
            return EvictionKind.RECOMPUTE
        return EvictionKind.PARTIAL


def decide_eviction(
    cost_model: CostModel,
    prompt_tokens: int,
    device_tokens: int,
    *,
    offload_allowed: bool,
    decoded_rule: DecodedKVRule = DecodedKVRule.OPTIMAL,
) -> EvictionDecision:
    """Split a victim's `device_tokens` of KV into offloaded and recomputed parts.

    The prompt part (up to `prompt_tokens`) is offloaded iff eq. 3 says reloading beats recomputing;
    then, of the decoded part, the count chosen by `decoded_rule` is offloaded too. The offloaded part
    is always a prefix. Without offload (no host memory, or a recompute-only policy) everything is
    recomputed.
    """
    if device_tokens <= 0:
        return EvictionDecision(offloaded_tokens=0, recomputed_tokens=0)
    if not offload_allowed:
        return EvictionDecision(offloaded_tokens=0, recomputed_tokens=device_tokens)
    prompt_part = min(device_tokens, prompt_tokens)
    decoded_part = device_tokens - prompt_part
    if not cost_model.should_offload_prompt(prompt_part):
        # Offloaded KV stays a prefix of the sequence (what paged engines can reload), so decoded KV is only
        # kept on top of a kept prompt.
        return EvictionDecision(offloaded_tokens=0, recomputed_tokens=device_tokens)
    saved_prompt = prompt_part
    if decoded_rule is DecodedKVRule.PAPER_EQ6:
        saved_decoded = cost_model.paper_eq6_tokens_to_save(prompt_part, decoded_part)
    else:
        saved_decoded = cost_model.decoded_tokens_to_save(prompt_part, decoded_part)
    offloaded = saved_prompt + saved_decoded
    return EvictionDecision(offloaded_tokens=offloaded, recomputed_tokens=device_tokens - offloaded)
