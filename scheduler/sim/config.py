"""Typed scheduler configuration: one engine's limits, and the policy options it runs with."""

from __future__ import annotations

from dataclasses import dataclass, field

from scheduler.policy import PolicyOptions
from scheduler.sim.eviction import DecodedKVRule


@dataclass(frozen=True, slots=True)
class SchedulerConfig:
    """Limits of one engine and the semantic policy's options. Baseline policies ignore the options."""

    kv_capacity_tokens: int
    """Device KV cache size in tokens (rounded down to whole blocks)."""
    max_batch_size: int = 16
    """b: the most requests in one engine step (the authors' simulator uses 16)."""
    max_step_tokens: int = 8192
    """Token budget of one step: prefill tokens plus one per decoding request (chunked prefill beyond it)."""
    block_size: int = 32
    """KV is allocated in blocks of this many tokens."""
    mixed_steps: bool = True
    """Whether one engine step may prefill some requests and decode others (vLLM v1, transformers). False
    models engines that run a step's prefills alone while its decoders wait (the paper's vLLM v0 engine)."""
    offload_enabled: bool = True
    """Whether evicted KV may go to host memory; False makes every eviction a recompute."""
    decoded_kv_rule: DecodedKVRule = DecodedKVRule.OPTIMAL
    """How many decoded tokens' KV a victim keeps (see `scheduler.sim.eviction`)."""
    options: PolicyOptions = field(default_factory=PolicyOptions)
    """The semantic policy's options (limited preemption, preemption cap, aging, reserved KV, deadlines)."""

    def __post_init__(self) -> None:
        if self.kv_capacity_tokens < self.block_size:
            raise ValueError(f"kv_capacity_tokens must hold at least one block of {self.block_size} tokens")
        if self.max_batch_size < 1:
            raise ValueError("max_batch_size must be >= 1")
        if self.max_step_tokens < self.max_batch_size:
            raise ValueError("max_step_tokens must be at least max_batch_size (one token per decoding request)")
        if self.block_size < 1:
            raise ValueError("block_size must be >= 1")

    @property
    def capacity_blocks(self) -> int:
        """Whole KV blocks on the device."""
        return self.kv_capacity_tokens // self.block_size

    def blocks_for(self, tokens: int) -> int:
        """Blocks needed to hold `tokens` tokens of KV."""
        return -(-tokens // self.block_size)
