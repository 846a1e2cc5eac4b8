"""The embedded CPU engine: transformers continuous batching with the semantic scheduler in its step loop."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from scheduler.cost_model import CPU_DEFAULT_PROFILE, CostModel, get_profile
from scheduler.engines.base import (
    Engine,
    EngineError,
    EngineHealth,
    EngineRequest,
    EngineStats,
    RequestTiming,
    TokenChunk,
    check_request,
)
from scheduler.engines.hf_scheduler import (
    DecisionLog,
    RequestBook,
    make_counting_fifo_class,
    make_semantic_scheduler_class,
    register_scheduler,
)
from scheduler.policy import DEFAULT_POLICY, ESI_LEVELS, PolicyOptions
from scheduler.scheduling_contract import Scheduling

log = logging.getLogger(__name__)

DEFAULT_MODEL = "Qwen/Qwen2.5-0.5B-Instruct"
"""The small instruct model a centre runs on a CPU by default (downloaded once with internet; any local
directory with the same files works). Tests and benchmarks use a tiny locally built Llama instead."""

CPU_DEFAULT_COSTS = get_profile(CPU_DEFAULT_PROFILE)
"""Until the engine worker measures this machine (`TRIAGE_ENGINE_COST_MODEL=measure`) or a profile is named."""
_engine_ids = itertools.count()


@dataclass(frozen=True, slots=True)
class HFEngineConfig:
    """Model and cache sizing; sizes are explicit because the library's defaults take 90 % of RAM."""

    model_path: str
    scheduler: str = "semantic"
    """"semantic" (ours) or "fifo" (the library's FIFOScheduler, for comparison)."""
    num_blocks: int = 256
    block_size: int = 16
    max_batch_tokens: int = 512
    max_requests_per_batch: int = 16
    max_memory_percent: float = 0.2
    attn_implementation: str = "sdpa"
    policy: str = DEFAULT_POLICY
    """The scheduling policy ("semantic" or "semantic-strict"; `scheduler.policy`)."""
    policy_options: PolicyOptions = field(default_factory=PolicyOptions)
    """Its options (limited preemption, aging, deadlines, the share of a step held prefills may use, ...)."""
    cost_model: CostModel = field(default_factory=lambda: CPU_DEFAULT_COSTS)

    @property
    def capacity_tokens(self) -> int:
        return self.num_blocks * self.block_size


@dataclass(slots=True)
class _InFlight:
    """A request the engine owes tokens to: kept so that it can be re-queued after a restart."""

    request: EngineRequest
    queue: asyncio.Queue[TokenChunk | EngineError]
    streamed: int = 0
    chunks: list[int] = field(default_factory=list)

    def tokens_so_far(self) -> list[int]:
        return self.chunks[: self.streamed]


class HFEngine(Engine):
    """transformers' ContinuousBatchingManager, stepped by our scheduler; async streaming for the product."""

    name = "hf"

    def __init__(self, config: HFEngineConfig) -> None:
        if config.scheduler not in ("semantic", "fifo"):
            raise ValueError(f"unknown hf scheduler {config.scheduler!r}; choose semantic or fifo")
        self.config = config
        self.book = RequestBook()
        self.decisions = DecisionLog()
        self.timings: dict[str, RequestTiming] = {}
        self._manager: Any = None
        self._tokenizer: Any = None
        self._scheduler_name = "fifo"
        self._expected_scheduler: type[Any] | None = None
        self._finished = 0
        self._started_s = 0.0
        self._inflight: dict[str, _InFlight] = {}
        self._restarting = False
        self.restarts = 0
        self._vocab_size = 0
        self._generation = 0

    # ----- lifecycle ----------------------------------------------------------------------------------------

    async def start(self) -> None:
        await asyncio.to_thread(self._start_blocking)

    def _start_blocking(self) -> None:
        from transformers import AutoModelForCausalLM, AutoTokenizer
        from transformers.generation.configuration_utils import ContinuousBatchingConfig, GenerationConfig

        self._tokenizer = AutoTokenizer.from_pretrained(self.config.model_path)
        model = AutoModelForCausalLM.from_pretrained(
            self.config.model_path, attn_implementation=self.config.attn_implementation
        )
        self._vocab_size = int(model.config.vocab_size)
        if self.config.scheduler == "semantic":
            self._expected_scheduler = make_semantic_scheduler_class(
                self.book, self.config.cost_model, self.decisions, self.config.policy, self.options_in_force()
            )
            self._scheduler_name = f"semantic-{next(_engine_ids)}"
            register_scheduler(self._scheduler_name, self._expected_scheduler)
        else:
            self._expected_scheduler = make_counting_fifo_class(self.decisions)
            self._scheduler_name = f"fifo-{next(_engine_ids)}"
            register_scheduler(self._scheduler_name, self._expected_scheduler)
        cb_config = ContinuousBatchingConfig(
            num_blocks=self.config.num_blocks,
            page_size=self.config.block_size,
            max_batch_tokens=self.config.max_batch_tokens,
            max_requests_per_batch=self.config.max_requests_per_batch,
            max_memory_percent=self.config.max_memory_percent,
            scheduler_type=self._scheduler_name,
        )
        generation: Any = GenerationConfig(  # type: ignore[no-untyped-call]
            do_sample=False, eos_token_id=None, pad_token_id=self._tokenizer.pad_token_id
        )
        manager: Any = model.init_continuous_batching(
            generation_config=generation, continuous_batching_config=cb_config
        )
        manager.warmup()
        in_use = type(manager.batch_processor.scheduler)
        # A misspelled scheduler name silently falls back to FIFO in the library: refuse to run like that.
        if in_use is not self._expected_scheduler:
            raise EngineError(f"transformers runs {in_use.__name__}, not {self._expected_scheduler.__name__}")
        manager.start()
        # Published only once running: a submit during a restart never reaches a half-built manager.
        self._manager = manager
        self._started_s = time.monotonic()

    async def stop(self) -> None:
        if self._manager is not None:
            manager, self._manager = self._manager, None
            await asyncio.to_thread(manager.stop, True)

    @property
    def scheduler_in_use(self) -> type[Any]:
        """The scheduler class transformers is actually stepping with."""
        if self._manager is None:
            raise EngineError("the engine is not started")
        return type(self._manager.batch_processor.scheduler)

    # ----- requests ---------------------------------------------------------------------------------------

    def submit(self, request: EngineRequest) -> AsyncIterator[TokenChunk]:
        if self._restarting:
            raise EngineError("the engine is restarting after a failure; submit again in a moment")
        if self._manager is None:
            raise EngineError("the engine is not started")
        capacity = self.config.capacity_tokens
        check_request(request, capacity, f" of KV cache; the engine holds {capacity}", self._vocab_size, self._inflight)
        inflight = _InFlight(request, asyncio.Queue())
        self._start_timing(request.request_id)
        self.book.add(
            request.request_id, request.esi_level, request.predicted_output_tokens, len(request.prompt_token_ids)
        )
        self._inflight[request.request_id] = inflight
        try:
            self._attach(inflight)
        except EngineError:
            self._forget(request.request_id)
            raise

        async def stream() -> AsyncIterator[TokenChunk]:
            try:
                while True:
                    chunk = await inflight.queue.get()
                    if isinstance(chunk, EngineError):
                        raise chunk
                    yield chunk
                    if chunk.finished:
                        self._finished += 1
                        return
            finally:
                self._forget(request.request_id)

        return stream()

    def _attach(self, inflight: _InFlight) -> None:
        """Hand a request to the current manager; after a restart, it continues from the tokens already streamed."""
        request = inflight.request
        base = inflight.streamed
        timing = self.timings[request.request_id]
        generation = self._generation
        seen = 0

        def on_output(output: Any) -> None:
            nonlocal seen
            if generation != self._generation:
                return  # a result of a manager that has since been replaced
            if getattr(output, "error", None):
                if self._manager_crashed():
                    self._schedule_restart()  # the stream goes on once the request is re-queued
                else:
                    inflight.queue.put_nowait(
                        EngineError(f"request {request.request_id} failed in the engine: {output.error}")
                    )
                return
            tokens = list(output.generated_tokens)
            now = time.monotonic()
            finished = bool(output.is_finished())
            fresh = tokens[seen:]
            seen = len(tokens)
            inflight.streamed = base + seen
            self.book.set_generated(request.request_id, inflight.streamed)
            if fresh and timing.first_token_s is None:
                timing.first_token_s = now
            timing.tokens = inflight.streamed
            if finished:
                timing.finished_s = now
                timing.evictions = self.decisions.evicted.pop(request.request_id, 0)
            inflight.chunks.extend(fresh)
            if fresh or finished:
                inflight.queue.put_nowait(TokenChunk(request.request_id, tuple(fresh), now, finished))
            if finished:
                self._forget(request.request_id)  # also when nobody reads the stream

        manager = self._manager
        if manager is None:
            raise EngineError("the engine is not started")
        manager.register_result_handler(request.request_id, on_output)
        accepted = manager.add_request(
            [*request.prompt_token_ids, *inflight.tokens_so_far()],
            request_id=request.request_id,
            max_new_tokens=request.max_new_tokens - base,
            streaming=True,
        )
        if accepted is None:
            raise EngineError(f"the engine refused request {request.request_id} (shutting down or queue full)")

    def _forget(self, request_id: str) -> None:
        self._inflight.pop(request_id, None)
        self.book.remove(request_id)

    # ----- recovery ----------------------------------------------------------------------------------------

    def _manager_crashed(self) -> bool:
        """The generation loop hit a fatal error (the library stops it before failing every request)."""
        status = self._manager.background_thread_status if self._manager is not None else None
        if status is None:
            return False
        return status.fatal_error is not None or getattr(status, "_local_status", 0) >= status.HARD_STOP

    def _schedule_restart(self) -> None:
        if not self._restarting:
            self._restarting = True
            self._generation += 1  # results still coming from the crashed manager are ignored from now on
            asyncio.get_running_loop().create_task(self._restart())

    async def _restart(self) -> None:
        """Replace a crashed manager and re-queue every request in flight where its stream stopped."""
        crashed, self._manager = self._manager, None
        log.error("hf engine generation loop failed; restarting with %d requests in flight", len(self._inflight))
        if crashed is not None:
            try:
                await asyncio.to_thread(crashed.stop, True)
            except Exception as error:  # a crashed loop may refuse a clean stop; it is being replaced anyway
                log.warning("stopping the crashed manager: %s", error)
        try:
            snapshot = list(self._inflight.values())  # new submits are refused while restarting
            await asyncio.to_thread(self._start_blocking)
            self.restarts += 1
            for inflight in snapshot:
                self._attach(inflight)
        except Exception as error:
            for inflight in list(self._inflight.values()):
                inflight.queue.put_nowait(EngineError(f"the engine could not restart: {error}"))
        finally:
            self._restarting = False

    def abort(self, request_id: str) -> None:
        """Cancel a request; its stream ends with a final empty chunk."""
        inflight = self._inflight.get(request_id)
        if self._manager is not None:
            self._manager.cancel_request(request_id)
            with self._manager.output_router._lock:  # the library delivers nothing for a cancelled request
                self._manager.output_router.result_handlers.pop(request_id, None)
        self._forget(request_id)
        self.timings.pop(request_id, None)
        if inflight is not None:
            inflight.queue.put_nowait(TokenChunk(request_id, (), time.monotonic(), finished=True))

    def override(self, request_id: str, esi_level: int) -> None:
        if esi_level not in ESI_LEVELS:
            raise ValueError(f"esi_level must be 1..5, got {esi_level}")
        if self.book.get(request_id) is None:
            raise KeyError(f"request {request_id} is not queued or running in the engine")
        self.book.set_level(request_id, esi_level)

    def options_in_force(self) -> PolicyOptions:
        """The configured options, or (in the overload mode) those that hold while overloaded."""
        options = self.config.policy_options
        return options.when_overloaded() if self.overloaded else options

    def set_overloaded(self, overloaded: bool) -> bool:
        """The step scheduler keys every request with the overload mode's options from its next step (it re-keys
        every step); a restart builds it with them too."""
        changed = super().set_overloaded(overloaded)
        if changed and self._expected_scheduler is not None and self.config.scheduler == "semantic":
            self._expected_scheduler.options = self.options_in_force()
        return changed

    async def use_cost_model(self, cost_model: CostModel) -> None:
        """The step scheduler's estimates use `cost_model` from its next step (a class attribute it reads each step);
        a restart builds the scheduler from the config, which carries it too."""
        self.config = dataclasses.replace(self.config, cost_model=cost_model)
        if self._expected_scheduler is not None and self.config.scheduler == "semantic":
            self._expected_scheduler.cost_model = cost_model

    # ----- observation ------------------------------------------------------------------------------------

    async def scheduling_in_force(self) -> dict[str, Any] | None:
        """The scheduling this engine's step scheduler runs: read from the scheduler class transformers steps with
        (this process) once started, else from the config it will be made from; None under the stock scheduler."""
        if self.config.scheduler != "semantic":
            return None
        running = self._expected_scheduler
        if running is not None and hasattr(running, "options"):
            return Scheduling(running.policy.name, running.options, running.cost_model).to_dict()
        return Scheduling(self.config.policy, self.options_in_force(), self.config.cost_model).to_dict()

    def stats(self) -> EngineStats:
        per_level = dict.fromkeys(ESI_LEVELS, 0)
        running = 0
        if self._manager is not None:
            scheduler = self._manager.batch_processor.scheduler
            for request_id in list(scheduler.waiting_requests):
                entry = self.book.get(request_id)
                if entry is not None:
                    per_level[entry.esi_level] += 1
            running = len(scheduler.active_requests)
        return EngineStats(
            waiting_per_level=per_level,
            running=running,
            evictions={"recompute": self.decisions.evictions},
            steps=self.decisions.decisions,
            mean_step_s=self.decisions.mean_step_s,
            finished=self._finished,
        )

    def health(self) -> EngineHealth:
        if self._manager is None:
            return EngineHealth(ok=False, detail="not started")
        fatal = self._manager.background_thread_status.fatal_error
        if fatal is not None:
            return EngineHealth(ok=False, detail=f"generation loop failed: {fatal}", restarts=self.restarts)
        return EngineHealth(
            ok=bool(self._manager.is_running()), detail="running" if self._manager.is_running() else "stopped"
        )
