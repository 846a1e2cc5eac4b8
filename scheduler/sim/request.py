"""The request record the scheduler reasons about: urgency, sizes, progress, and where its KV cache lives."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from scheduler.policy import ESI_LEVELS


class Stage(enum.Enum):
    """Where a request is in its life; a request needing KV (re)computation is prefilling."""

    WAITING = "waiting"
    PREFILLING = "prefilling"
    DECODING = "decoding"
    FINISHED = "finished"


class KVLocation(enum.Enum):
    """Where a request's KV cache is: on the device, offloaded to host memory, or nowhere."""

    DEVICE = "device"
    OFFLOADED = "offloaded"
    NONE = "none"


@dataclass(slots=True)
class Request:
    """One LLM request as the scheduler sees it; lower `esi_level` is more urgent.

    Token bookkeeping: the sequence is `prompt_tokens + tokens_generated` long. `kv_device_tokens`
    of it have KV on the device, `kv_offloaded_tokens` have KV in host memory (reloaded on resume),
    and the rest must be (re)computed by a prefill before the request can decode again.
    """

    request_id: str
    esi_level: int
    prompt_tokens: int
    predicted_output_tokens: int
    max_output_tokens: int
    arrival_seq: int
    arrival_s: float = 0.0
    tokens_generated: int = 0
    stage: Stage = Stage.WAITING
    kv_device_tokens: int = 0
    kv_offloaded_tokens: int = 0
    preemption_count: int = 0
    effective_level: float = 0.0
    """Level after aging (never more urgent than the policy's ceiling), as of the last re-key; esi_level until aged."""
    clock_start_s: float | None = None
    """When aging and the deadline started counting: None from arrival, else the time of the last override."""

    def __post_init__(self) -> None:
        if self.esi_level not in ESI_LEVELS:
            raise ValueError(f"request {self.request_id}: esi_level must be 1..5, got {self.esi_level}")
        if self.prompt_tokens < 1:
            raise ValueError(f"request {self.request_id}: prompt_tokens must be >= 1, got {self.prompt_tokens}")
        if self.predicted_output_tokens < 1:
            raise ValueError(
                f"request {self.request_id}: predicted_output_tokens must be >= 1, got {self.predicted_output_tokens}"
            )
        if self.max_output_tokens < 1:
            raise ValueError(f"request {self.request_id}: max_output_tokens must be >= 1, got {self.max_output_tokens}")
        if not self.effective_level:
            self.effective_level = float(self.esi_level)

    @property
    def since_s(self) -> float:
        """When aging and the deadline started counting."""
        return self.arrival_s if self.clock_start_s is None else self.clock_start_s

    @property
    def sequence_tokens(self) -> int:
        """Tokens whose KV the next decode step needs: the prompt plus everything generated so far."""
        return self.prompt_tokens + self.tokens_generated

    @property
    def tokens_to_compute(self) -> int:
        """Tokens whose KV is neither on the device nor offloaded: the prefill still owed."""
        return self.sequence_tokens - self.kv_device_tokens - self.kv_offloaded_tokens

    @property
    def needs_prefill(self) -> bool:
        """Prefill stage (Algorithm 2): nothing generated yet, KV to recompute, or offloaded KV to reload.

        A decoding request owes exactly one token of compute (the last sampled token) with all its KV on
        the device; anything more is prefill work.
        """
        return self.tokens_generated == 0 or self.tokens_to_compute > 1 or self.kv_offloaded_tokens > 0

    @property
    def kv_location(self) -> KVLocation:
        """Where the bulk of this request's KV lives now."""
        if self.kv_device_tokens > 0:
            return KVLocation.DEVICE
        if self.kv_offloaded_tokens > 0:
            return KVLocation.OFFLOADED
        return KVLocation.NONE

    @property
    def predicted_remaining_tokens(self) -> int:
        """Output tokens still expected; at least one while unfinished (the prediction may be short)."""
        return max(1, self.predicted_output_tokens - self.tokens_generated)
