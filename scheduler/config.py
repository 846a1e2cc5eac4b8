"""Typed scheduler configuration: engine limits and the options beyond the paper, with their defaults."""

from __future__ import annotations

from dataclasses import dataclass

from scheduler.eviction import DecodedKVRule


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
    """How many decoded tokens' KV a victim keeps (see `scheduler.eviction`)."""
    limited_preemption: float | None = 0.8
    """TRAIL's C: a request past this share of its predicted output is neither displaced nor evicted. None = off."""
    max_preemptions: int | None = 3
    """After this many preemptions a request is pinned (the production post's cap). None = no cap."""
    aging_interval_s: float | None = 30.0
    """Every this many seconds of waiting, an ESI >= `aging_min_level` request is lifted half a level. None = off."""
    aging_min_level: int = 4
    """The least urgent levels that age (4 and 5 by default)."""
    aging_ceiling: float = 3.5
    """Aging never lifts a request above this effective level: an aged ESI 5 never overtakes any ESI 1-3."""
    reserved_kv_share: float = 0.1
    """Share of the KV capacity that only ESI 1..`reserved_max_level` requests may use."""
    reserved_max_level: int = 2
    """The most urgent levels that may use the reserved share."""

    def __post_init__(self) -> None:
        if self.kv_capacity_tokens < self.block_size:
            raise ValueError(f"kv_capacity_tokens must hold at least one block of {self.block_size} tokens")
        if self.max_batch_size < 1:
            raise ValueError("max_batch_size must be >= 1")
        if self.max_step_tokens < self.max_batch_size:
            raise ValueError("max_step_tokens must be at least max_batch_size (one token per decoding request)")
        if self.block_size < 1:
            raise ValueError("block_size must be >= 1")
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

    @property
    def capacity_blocks(self) -> int:
        """Whole KV blocks on the device."""
        return self.kv_capacity_tokens // self.block_size

    def blocks_for(self, tokens: int) -> int:
        """Blocks needed to hold `tokens` tokens of KV."""
        return -(-tokens // self.block_size)
