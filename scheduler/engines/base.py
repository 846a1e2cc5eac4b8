"""The engine interface the rest of the product uses, and the records that cross it."""

from __future__ import annotations

import abc
import time
from collections.abc import AsyncIterator, Container
from dataclasses import dataclass, field
from typing import Any

from scheduler.cost_model import CostModel
from scheduler.policy import ESI_LEVELS

ENGINE_NAMES = ("hf", "vllm")
MAX_TIMINGS = 10_000
"""Client-side timings kept for the most recent requests."""


class EngineError(RuntimeError):
    """The engine cannot serve a request (not started, failed, or shut down)."""


class RequestRejectedError(ValueError):
    """A request the engine can never serve (e.g. larger than its whole KV cache); the engine itself is fine."""


class RequestInFlightError(RequestRejectedError):
    """A request whose id the engine is still serving: refused now, servable once that one is done."""


@dataclass(frozen=True, slots=True)
class EngineRequest:
    """What to generate and how urgent it is; `predicted_output_tokens` comes from the triage models."""

    request_id: str
    prompt_token_ids: tuple[int, ...]
    esi_level: int
    predicted_output_tokens: int
    max_new_tokens: int


@dataclass(frozen=True, slots=True)
class TokenChunk:
    """New tokens of one request, with client-side times (seconds on the engine's monotonic clock)."""

    request_id: str
    token_ids: tuple[int, ...]
    emitted_s: float
    finished: bool = False


@dataclass(slots=True)
class RequestTiming:
    """Client-side times of one request: kept by the engine because evictions restart the library's own."""

    submitted_s: float
    first_token_s: float | None = None
    finished_s: float | None = None
    tokens: int = 0
    evictions: int = 0
    """Times this request lost its KV cache (evicted, preempted, or resubmitted after an override/restart)."""


@dataclass(slots=True)
class EngineStats:
    """What an operator watches."""

    waiting_per_level: dict[int, int]
    running: int
    evictions: dict[str, int]
    steps: int
    """Engine steps, each one decided by the scheduler."""
    mean_step_s: float
    finished: int


@dataclass(slots=True)
class EngineHealth:
    """Whether the engine can take work, and why not."""

    ok: bool
    detail: str = ""
    restarts: int = 0
    extra: dict[str, str] = field(default_factory=dict)


class Engine(abc.ABC):
    """An LLM engine whose every step is scheduled by the semantic policy."""

    name: str
    timings: dict[str, RequestTiming]
    """Client-side times of the most recent requests, by request id."""

    def _start_timing(self, request_id: str) -> None:
        """Record a submission now, keeping only the most recent `MAX_TIMINGS` (dicts keep insertion order)."""
        self.timings[request_id] = RequestTiming(submitted_s=time.monotonic())
        while len(self.timings) > MAX_TIMINGS:
            del self.timings[next(iter(self.timings))]

    @abc.abstractmethod
    async def start(self) -> None:
        """Load, size the cache, warm up and start stepping."""

    @abc.abstractmethod
    async def stop(self) -> None:
        """Stop stepping and release the model."""

    def abort_start(self) -> None:
        """Make a `start` under way (in another task) end as soon as it can, with an error: called, from a worker
        thread, by whoever was told to stop while the engine was starting, until that start has ended. By default
        nothing: the start runs to its end and `stop` then releases what it made."""
        return None

    @abc.abstractmethod
    def submit(self, request: EngineRequest) -> AsyncIterator[TokenChunk]:
        """Queue a request; iterate its tokens as they are generated. Raises `RequestRejectedError` up front."""

    @abc.abstractmethod
    def abort(self, request_id: str) -> None:
        """Stop a request and free its cache."""

    @abc.abstractmethod
    def override(self, request_id: str, esi_level: int) -> None:
        """Apply an acuity override; it takes effect at the next engine step."""

    @abc.abstractmethod
    def stats(self) -> EngineStats: ...

    @abc.abstractmethod
    def health(self) -> EngineHealth: ...

    overloaded: bool = False
    """The queue's overload mode, as the engine worker last heard it (`set_overloaded`)."""

    def set_overloaded(self, overloaded: bool) -> bool:
        """Enter or leave the overload mode (`PolicyOptions.when_overloaded`: ESI 2 strictly after ESI 1); engines with
        a scheduler of ours re-key their requests from the next step. Whether the mode changed."""
        changed = overloaded != self.overloaded
        self.overloaded = overloaded
        return changed

    async def use_cost_model(self, cost_model: CostModel) -> None:
        """Run `cost_model` from the next step on (measured on this machine after start-up); its scheduler reports
        it back (`scheduling_in_force`). An engine without a cost model of ours refuses."""
        raise EngineError(f"the {self.name} engine runs no cost model of ours; it cannot take a measured one")

    async def scheduling_in_force(self) -> dict[str, Any] | None:
        """The policy, options and cost model the engine's scheduler runs (`Scheduling.to_dict`), read back from
        that scheduler; None when the engine runs none of ours or is not started."""
        return None


def check_request(
    request: EngineRequest, largest_tokens: int, limit_phrase: str, vocab_size: int, in_flight: Container[str]
) -> None:
    """Refuse, up front, a request the engine can never serve: bad level, longer than `largest_tokens` (the
    refusal ends with `limit_phrase`), token ids outside the vocabulary, or an id already in flight."""
    if request.esi_level not in ESI_LEVELS:
        raise RequestRejectedError(f"request {request.request_id}: esi_level must be 1..5")
    largest = len(request.prompt_token_ids) + request.max_new_tokens
    if largest > largest_tokens:
        raise RequestRejectedError(f"request {request.request_id} needs up to {largest} tokens{limit_phrase}")
    if any(not 0 <= token < vocab_size for token in request.prompt_token_ids):
        raise RequestRejectedError(f"request {request.request_id} has token ids outside the model's vocabulary")
    if request.request_id in in_flight:
        raise RequestInFlightError(f"request {request.request_id} is already in the engine")


def check_engine_name(name: str) -> str:
    """The name itself, or a clear error listing the engines."""
    if name not in ENGINE_NAMES:
        raise ValueError(f"unknown engine {name!r}; known engines: {', '.join(ENGINE_NAMES)}")
    return name
