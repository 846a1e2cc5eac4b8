"""The GPU engine: vLLM's AsyncLLM with the semantic scheduler as its `scheduler_cls`, behind our `Engine`.

Each request is one or more vLLM requests ("attempts"): the first carries the prompt; an acuity override, or a
restart after the engine core died, aborts the current attempt and submits the prompt plus every token streamed so
far with the new priority. With greedy decoding the continuation is the one the first attempt would have produced,
and prefix caching makes the re-prefill cheap. vLLM has no call to change a queued request's priority, so this is
how an override reaches vLLM's queue at the next step.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import gc
import importlib
import logging
import os
import time
import weakref
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from scheduler.cost_model import CostModel, get_profile
from scheduler.engines.base import (
    Engine,
    EngineError,
    EngineHealth,
    EngineRequest,
    EngineStats,
    RequestRejectedError,
    RequestTiming,
    TokenChunk,
    check_request,
)
from scheduler.policy import DEFAULT_POLICY, ESI_LEVELS, PolicyOptions
from scheduler.scheduling_contract import DEFAULT_COST_PROFILE, SCHEDULING_KEY, Scheduling

log = logging.getLogger(__name__)
SHUTDOWN_TIMEOUT_S = 15.0
"""How long vLLM's engine core gets to stop before it is killed (its default, 5 s, is short on a busy CPU: killed, it
leaves its shared memory to Python's resource tracker)."""

SEMANTIC_SCHEDULER = "scheduler.engines.vllm_scheduler.SemanticVLLMScheduler"
SEMANTIC_ASYNC_SCHEDULER = "scheduler.engines.vllm_scheduler.SemanticVLLMAsyncScheduler"


DEFAULT_CPU_KV_CACHE_GIB = 1.0
"""The KV cache on a machine without a GPU when neither the settings nor `VLLM_CPU_KVCACHE_SPACE` size it (vLLM's
own default there reserves a share of the whole machine's memory)."""


def vllm_executor() -> str:
    """Where this vLLM build executes the model: "cpu" (the `vllm-cpu` build, or no GPU) or "gpu"."""
    from vllm.platforms import current_platform

    return "cpu" if current_platform.is_cpu() else "gpu"


@dataclass(frozen=True, slots=True)
class VLLMEngineConfig:
    """What vLLM serves and how its cache is sized."""

    model: str
    scheduler: str = "semantic"
    """"semantic" (ours) or "stock" (vLLM's own `policy="priority"`, for comparison)."""
    policy: str = DEFAULT_POLICY
    """The policy whose scheduling key each request's `priority` encodes ("semantic" or "semantic-strict")."""
    policy_options: PolicyOptions = field(default_factory=PolicyOptions)
    """Its options: they go into each request's priority here and, through vLLM's config, into our scheduler in the
    engine core (limited preemption, the preemption cap, prefill deferral)."""
    max_model_len: int = 4096
    max_num_seqs: int = 64
    max_num_batched_tokens: int | None = None
    gpu_memory_utilization: float = 0.85
    num_gpu_blocks: int | None = None
    """Explicit KV cache size in blocks (None: vLLM sizes it from memory)."""
    kv_cache_gib: float | None = None
    """KV cache memory; None: on a GPU from `gpu_memory_utilization`, on the CPU from `VLLM_CPU_KVCACHE_SPACE` or
    `DEFAULT_CPU_KV_CACHE_GIB`."""
    kv_offloading_gib: float | None = None
    """CPU memory for offloaded KV blocks through vLLM's OffloadingConnector; None keeps recompute only."""
    async_scheduling: bool | None = None
    """None: vLLM's asynchronous scheduler on a GPU; the CPU platform always runs the synchronous one."""
    enforce_eager: bool | None = None
    """Skip torch.compile: a faster start, slower steps. None: eager on the CPU (measured there: `bench engines`),
    compiled on a GPU."""
    enable_prefix_caching: bool = True
    skip_tokenizer_init: bool = False
    dtype: str = "auto"
    additional_config: dict[str, Any] = field(default_factory=dict)
    cost_model: CostModel = field(default_factory=lambda: get_profile(DEFAULT_COST_PROFILE))
    """The engine worker passes the configured one, and replaces it with the measured one (`use_cost_model`)."""

    @property
    def scheduling(self) -> Scheduling:
        """The policy, its options and the cost model, as they travel to the engine core."""
        return Scheduling(self.policy, self.policy_options, self.cost_model)


SMALL_MACHINE_CPUS = 4
"""On a machine with this many CPUs or fewer, vLLM's CPU worker gets them all: by default vLLM keeps one core for
its engine-core process, which halves the model's cores on two (`bench engines`: 37 against 56 tokens/s)."""


def cpu_threads_environment() -> None:
    """Let vLLM's CPU worker use every core of a small machine, unless `VLLM_CPU_NUM_OF_RESERVED_CPU` says otherwise
    (the worker process reads it; it inherits this process's environment)."""
    if (os.cpu_count() or 1) <= SMALL_MACHINE_CPUS:
        os.environ.setdefault("VLLM_CPU_NUM_OF_RESERVED_CPU", "0")


def _kv_cache_bytes(config: VLLMEngineConfig, executor: str) -> int | None:
    """The KV cache size to ask vLLM for, in bytes (None: vLLM's own sizing)."""
    if config.kv_cache_gib is not None:
        return int(config.kv_cache_gib * (1 << 30))
    if executor == "cpu" and not os.environ.get("VLLM_CPU_KVCACHE_SPACE"):
        return int(DEFAULT_CPU_KV_CACHE_GIB * (1 << 30))
    return None


def _asynchronous(config: VLLMEngineConfig, executor: str) -> bool:
    """Whether vLLM schedules asynchronously: on a GPU unless turned off; never on the CPU."""
    return executor == "gpu" and config.async_scheduling is not False


def scheduler_class(config: VLLMEngineConfig, executor: str) -> str | None:
    """Our scheduler class for vLLM's engine core (None: vLLM's stock scheduler)."""
    if config.scheduler not in ("semantic", "stock"):
        raise ValueError(f"unknown vllm scheduler {config.scheduler!r}; choose semantic or stock")
    if config.scheduler == "stock":
        return None
    return SEMANTIC_ASYNC_SCHEDULER if _asynchronous(config, executor) else SEMANTIC_SCHEDULER


def engine_args(config: VLLMEngineConfig, executor: str | None = None) -> Any:
    """vLLM's `AsyncEngineArgs` for this configuration: our scheduler class, priority policy, cache sizing."""
    from vllm.engine.arg_utils import AsyncEngineArgs

    executor = executor or vllm_executor()
    scheduler_cls = scheduler_class(config, executor)
    options: dict[str, Any] = {}
    if config.max_num_batched_tokens is not None:
        options["max_num_batched_tokens"] = config.max_num_batched_tokens
    return AsyncEngineArgs(
        model=config.model,
        scheduler_cls=scheduler_cls,
        scheduling_policy="priority",
        async_scheduling=_asynchronous(config, executor),
        max_model_len=config.max_model_len,
        max_num_seqs=config.max_num_seqs,
        gpu_memory_utilization=config.gpu_memory_utilization,
        num_gpu_blocks_override=config.num_gpu_blocks,
        kv_cache_memory_bytes=_kv_cache_bytes(config, executor),
        kv_offloading_size=config.kv_offloading_gib,
        enable_prefix_caching=config.enable_prefix_caching,
        enforce_eager=config.enforce_eager if config.enforce_eager is not None else executor == "cpu",
        skip_tokenizer_init=config.skip_tokenizer_init,
        dtype=config.dtype,
        additional_config={**config.additional_config, SCHEDULING_KEY: config.scheduling.to_dict()},
        **options,
    )


ASYNC_LLM_MODULE = "vllm.v1.engine.async_llm"
"""Imported by `start` in a worker thread of its own, before any engine is built there: vLLM keeps an import error
at module level (`vllm.multimodal.media.audio._torchcodec_import_exc`, torchcodec missing), and that error's
traceback pins every frame of the stack that first imported it. Imported inside `_build`, that stack held the
AsyncLLM (`_build`'s `llm`, the thread's work item with its result) for the life of the process, so
`AsyncLLM.__del__` ran at interpreter exit, after vLLM's module globals were torn down, and printed
"TypeError: 'NoneType' object is not callable". Imported apart, the pinned stack holds only a module."""


def release_shut_down(collected: weakref.ref[Any]) -> None:
    """Collect an AsyncLLM whose `shutdown` has completed, so its `__del__` (a second shutdown) runs now, while
    vLLM's modules are whole; one still referenced after that is disarmed, never left to interpreter exit."""
    gc.collect()
    llm = collected()
    if llm is None:
        return
    # Something outside this engine still holds it (a new pinned frame, a stored traceback): its shutdown has
    # completed, so the second one in `__del__` has nothing left to do but fail at exit. Only this instance's class
    # changes; every other AsyncLLM keeps vLLM's `__del__`.
    log.warning("vLLM's AsyncLLM is still referenced after its shutdown; its exit-time shutdown is disarmed")
    shut_down: type = type(llm)
    llm.__class__ = _shut_down_class(shut_down)


@functools.cache
def _shut_down_class(cls: type) -> type:
    """`cls` with a `__del__` that does nothing: for an instance already shut down."""
    return type(f"ShutDown{cls.__name__}", (cls,), {"__del__": lambda self: None, "__module__": __name__})


def stop_vllm_processes(timeout_s: float) -> list[int]:
    """End the processes vLLM started from this process through `multiprocessing` (its engine core) and every
    process under them (the model's workers): SIGTERM, then SIGKILL to those still alive after `timeout_s`; their
    pids. Python's own helpers (the resource tracker) are not `multiprocessing` children and are left alone. Only
    for a start under way: a started engine is stopped by `VLLMEngine.stop`, through vLLM."""
    import multiprocessing

    import psutil

    processes = []
    for child in multiprocessing.active_children():
        with contextlib.suppress(psutil.Error):
            top = psutil.Process(child.pid)
            processes += [top, *top.children(recursive=True)]  # listed first: orphaned, they are no one's children
    for process in processes:
        with contextlib.suppress(psutil.Error):
            process.terminate()
    _, alive = psutil.wait_procs(processes, timeout=timeout_s)
    for process in alive:
        with contextlib.suppress(psutil.Error):
            process.kill()
    psutil.wait_procs(alive, timeout=timeout_s)
    multiprocessing.active_children()  # reaps the engine core
    return [process.pid for process in processes]


_RESUBMIT = object()
_DONE = object()


@dataclass(slots=True)
class _InFlight:
    """One of our requests: its current level, the tokens streamed so far, and its current vLLM attempt."""

    request: EngineRequest
    esi_level: int
    tokens: list[int] = field(default_factory=list)
    attempts: int = 0
    outputs: asyncio.Queue[Any] | None = None
    pump: asyncio.Task[None] | None = None
    aborted: bool = False
    running: bool = False
    """An output arrived for the current attempt (it left vLLM's waiting queue)."""
    priority: int = 0
    """The current attempt's priority in vLLM."""


def _predicted_left(inflight: _InFlight) -> int:
    """The predicted answer still to come (at least one token)."""
    return max(1, inflight.request.predicted_output_tokens - len(inflight.tokens))


@dataclass(slots=True)
class _StepCounters:
    """What vLLM's per-step stats told us (recorded by our stat logger)."""

    steps: int = 0
    running: int = 0
    waiting: int = 0
    preemptions: int = 0
    kv_cache_usage: float = 0.0
    busy_s: float = 0.0
    last_record_s: float | None = None


def _check_scheduler(llm: Any, expected: str | None) -> str:
    """The scheduler class vLLM's engine core was built with, checked against the one we asked for."""
    in_use = llm.vllm_config.scheduler_config.get_scheduler_cls()
    name = f"{in_use.__module__}.{in_use.__qualname__}"
    as_asked = name == expected if expected is not None else name.startswith("vllm.")
    if not as_asked:
        raise EngineError(f"vLLM's engine core runs {name}, not {expected or 'its stock scheduler'}")
    return name


def _preemptions(output: Any) -> int:
    """How often vLLM preempted this attempt (its request stats, when vLLM keeps them)."""
    metrics = getattr(output, "metrics", None)
    return int(getattr(metrics, "num_preemptions", 0) or 0)


class VLLMEngine(Engine):
    """AsyncLLM stepped by the semantic vLLM scheduler; async streaming, overrides and restarts for the product."""

    name = "vllm"

    def __init__(self, config: VLLMEngineConfig) -> None:
        self.config = config
        self.timings: dict[str, RequestTiming] = {}
        self.counters = _StepCounters()
        self.restarts = 0
        self.resubmissions = 0
        self._llm: Any = None
        self._vocab_size = 0
        self._inflight: dict[str, _InFlight] = {}
        self._finished = 0
        self._restart_lock = asyncio.Lock()
        self._failure: str = ""
        self._start_aborted = False
        """`abort_start` was called: a start under way fails instead of building the engine."""
        self.executor = ""
        """"cpu" or "gpu", once started."""
        self.scheduler_in_use = ""
        """The scheduler class vLLM's engine core was built with, checked at every (re)start."""

    # ----- lifecycle ----------------------------------------------------------------------------------------

    async def start(self) -> None:
        self._start_aborted = False
        await asyncio.to_thread(importlib.import_module, ASYNC_LLM_MODULE)  # see ASYNC_LLM_MODULE
        self.executor = vllm_executor()
        if self.executor == "cpu":
            cpu_threads_environment()
        self._check_start_not_aborted()
        self._llm = await asyncio.to_thread(self._build)
        self._vocab_size = int(self._llm.model_config.get_vocab_size())
        self._failure = ""

    def _check_start_not_aborted(self) -> None:
        if self._start_aborted:
            raise EngineError("the engine's start was stopped")

    def abort_start(self) -> None:
        """vLLM's start cannot be interrupted: its engine core loads the model (minutes on a GPU, holding its
        memory), and a SIGTERM there only takes effect once it has. So its processes are stopped instead
        (`stop_vllm_processes`), and the start, which watches them, fails at once; one it has not made yet is
        never made (checked before the build), or stopped at the next call."""
        self._start_aborted = True
        stopped = stop_vllm_processes(SHUTDOWN_TIMEOUT_S)
        if stopped:
            log.info("vllm engine: start stopped; %d of its processes ended (%s)", len(stopped), stopped)

    def _build(self) -> Any:
        from vllm.v1.engine.async_llm import AsyncLLM

        llm = AsyncLLM.from_engine_args(
            engine_args(self.config, self.executor), stat_loggers=[self._stat_logger_factory()]
        )
        try:
            self.scheduler_in_use = _check_scheduler(llm, scheduler_class(self.config, self.executor))
        except Exception:
            llm.shutdown()
            raise
        return llm

    def engine_core_pid(self) -> int | None:
        """The process id of vLLM's engine core (it runs our scheduler and spawns the model's worker)."""
        manager = getattr(getattr(getattr(self._llm, "engine_core", None), "resources", None), "engine_manager", None)
        processes = getattr(manager, "processes", None) or []
        return int(processes[0].pid) if processes and processes[0].pid is not None else None

    def _stat_logger_factory(self) -> Callable[..., Any]:
        from vllm.v1.metrics.loggers import StatLoggerBase

        counters = self.counters

        class _Recorder(StatLoggerBase):  # type: ignore[misc]
            def __init__(self, vllm_config: Any, engine_index: int = 0) -> None:
                self.engine_index = engine_index

            def record(
                self,
                scheduler_stats: Any,
                iteration_stats: Any,
                mm_cache_stats: Any = None,
                engine_idx: int = 0,
            ) -> None:
                now = time.monotonic()
                if scheduler_stats is not None:
                    if counters.last_record_s is not None and counters.running:
                        counters.busy_s += now - counters.last_record_s
                    counters.steps += 1
                    counters.running = int(scheduler_stats.num_running_reqs)
                    counters.waiting = int(scheduler_stats.num_waiting_reqs)
                    counters.kv_cache_usage = float(scheduler_stats.kv_cache_usage)
                    counters.last_record_s = now
                if iteration_stats is not None:
                    counters.preemptions += int(iteration_stats.num_preempted_reqs)

            def log_engine_initialized(self) -> None:
                return None

        return _Recorder

    async def stop(self) -> None:
        llm, self._llm = self._llm, None
        for inflight in list(self._inflight.values()):
            self._end(inflight, EngineError("the engine stopped"))
        if llm is not None:
            handler = getattr(llm, "output_handler", None)
            if isinstance(handler, asyncio.Task):
                # It ends before the engine core does: left to shutdown's cancel from its thread, it could read the
                # stopped core first and log "AsyncLLM output_handler failed" with an EngineDeadError traceback.
                handler.cancel()
                await asyncio.wait([handler], timeout=SHUTDOWN_TIMEOUT_S)
            await asyncio.to_thread(llm.shutdown, SHUTDOWN_TIMEOUT_S)
            collected = weakref.ref(llm)
            del llm, handler
            release_shut_down(collected)

    # ----- requests ---------------------------------------------------------------------------------------

    def submit(self, request: EngineRequest) -> AsyncIterator[TokenChunk]:
        if self._llm is None:
            raise EngineError("the engine is not started")
        if not request.prompt_token_ids or request.max_new_tokens < 1:
            raise RequestRejectedError(f"request {request.request_id} needs a prompt and at least one new token")
        limit = self.config.max_model_len
        check_request(request, limit, f"; the model serves {limit}", self._vocab_size, self._inflight)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            raise EngineError("submit() streams on the event loop: call it from a coroutine") from None
        inflight = _InFlight(request, request.esi_level)
        self._inflight[request.request_id] = inflight
        self._start_timing(request.request_id)
        self._launch(inflight)
        return self._stream(inflight)

    def _launch(self, inflight: _InFlight) -> None:
        """Submit the next attempt: the prompt plus the tokens streamed so far, at the current level."""
        inflight.attempts += 1
        inflight.running = False
        inflight.outputs = asyncio.Queue()
        inflight.pump = asyncio.get_running_loop().create_task(self._pump(inflight, inflight.outputs))

    async def _pump(self, inflight: _InFlight, outputs: asyncio.Queue[Any]) -> None:
        """Move one attempt's outputs into its queue; cancelling this task aborts the attempt inside vLLM."""
        from vllm import SamplingParams
        from vllm.inputs import TokensPrompt
        from vllm.sampling_params import RequestOutputKind

        request = inflight.request
        prompt = [*request.prompt_token_ids, *inflight.tokens]
        predicted_left = _predicted_left(inflight)
        params = SamplingParams(
            max_tokens=request.max_new_tokens - len(inflight.tokens),
            temperature=0.0,
            detokenize=False,
            output_kind=RequestOutputKind.DELTA,
            extra_args={"predicted_output_tokens": predicted_left},
        )
        priority = inflight.priority = self._priority(inflight)
        attempt_id = f"{request.request_id}#{inflight.attempts}"
        try:
            async for output in self._llm.generate(
                TokensPrompt(prompt_token_ids=prompt), params, request_id=attempt_id, priority=priority
            ):
                outputs.put_nowait(output)
            outputs.put_nowait(_DONE)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # engine dead, or the request refused: the stream decides
            outputs.put_nowait(error)

    async def _stream(self, inflight: _InFlight) -> AsyncIterator[TokenChunk]:
        request_id = inflight.request.request_id
        timing = self.timings[request_id]
        try:
            while True:
                assert inflight.outputs is not None
                item = await inflight.outputs.get()
                if item is _RESUBMIT:
                    self.resubmissions += 1
                    self._launch(inflight)
                    continue
                if isinstance(item, TokenChunk):  # the final chunk of an abort
                    yield item
                    return
                if isinstance(item, EngineError):
                    raise item
                if isinstance(item, BaseException):
                    await self._recover(item)
                    self._launch(inflight)
                    continue
                now = time.monotonic()
                if item is _DONE:  # vLLM ended the attempt without a finished output (it was aborted there)
                    if inflight.aborted:
                        return
                    raise EngineError(f"request {request_id} ended without finishing in vLLM")
                inflight.running = True
                completion = item.outputs[0]
                fresh = tuple(int(token) for token in completion.token_ids)
                inflight.tokens.extend(fresh)
                if fresh and timing.first_token_s is None:
                    timing.first_token_s = now
                timing.tokens = len(inflight.tokens)
                finished = bool(item.finished) and completion.finish_reason != "abort"
                if finished:
                    timing.finished_s = now
                    timing.evictions = inflight.attempts - 1 + _preemptions(item)
                if fresh or finished:
                    yield TokenChunk(request_id, fresh, now, finished)
                if finished:
                    self._finished += 1
                    return
                if inflight.aborted:
                    return
        finally:
            if inflight.pump is not None and not inflight.pump.done():
                inflight.pump.cancel()
            self._inflight.pop(request_id, None)

    def _priority(self, inflight: _InFlight) -> int:
        """The priority of the request's next attempt: the policy's key of its current level and remaining work,
        under the overload mode's options while that mode holds."""
        from scheduler.engines.vllm_scheduler import semantic_priority

        options = self.config.policy_options
        options = options.when_overloaded() if self.overloaded else options
        prompt_tokens = len(inflight.request.prompt_token_ids) + len(inflight.tokens)
        return semantic_priority(
            inflight.esi_level,
            prompt_tokens,
            _predicted_left(inflight),
            self.config.cost_model,
            self.config.policy,
            options,
        )

    def set_overloaded(self, overloaded: bool) -> bool:
        """New attempts take the overload mode's priorities; a request still waiting in vLLM whose priority changes
        (an ESI 2 request, whose key moves ahead of ESI 3-5 work) is resubmitted with it, as an override is (vLLM
        cannot re-prioritise a queued request). Running requests keep their place."""
        changed = super().set_overloaded(overloaded)
        if changed:
            for inflight in list(self._inflight.values()):
                if not inflight.running and not inflight.aborted and self._priority(inflight) != inflight.priority:
                    self._end(inflight, _RESUBMIT)
        return changed

    def _end(self, inflight: _InFlight, item: Any) -> None:
        """Stop the current attempt and put `item` after whatever it already delivered."""
        if inflight.pump is not None and not inflight.pump.done():
            inflight.pump.cancel()  # vLLM's generate() aborts the request when cancelled
        if inflight.outputs is not None:
            inflight.outputs.put_nowait(item)

    async def _recover(self, error: BaseException) -> None:
        """The engine core died: rebuild it once (other streams wait on the lock), or give up with an error."""
        from vllm.v1.engine.exceptions import EngineDeadError

        if not isinstance(error, EngineDeadError):
            raise EngineError(f"vLLM refused the request: {error}") from error
        async with self._restart_lock:
            if self._llm is not None and not self._llm.errored:
                return  # another stream already restarted it
            log.error("vLLM engine core died (%s); restarting with %d requests in flight", error, len(self._inflight))
            dead, self._llm = self._llm, None
            if dead is not None:
                with contextlib.suppress(Exception):
                    await asyncio.to_thread(dead.shutdown)
            try:
                self._llm = await asyncio.to_thread(self._build)
            except Exception as build_error:
                self._failure = f"restart failed: {build_error}"
                raise EngineError(f"the vLLM engine could not restart: {build_error}") from build_error
            self.restarts += 1

    def abort(self, request_id: str) -> None:
        """Cancel a request; its stream ends with a final empty chunk."""
        inflight = self._inflight.get(request_id)
        self.timings.pop(request_id, None)
        if inflight is None:
            return
        inflight.aborted = True
        self._end(inflight, TokenChunk(request_id, (), time.monotonic(), finished=True))

    def override(self, request_id: str, esi_level: int) -> None:
        if esi_level not in ESI_LEVELS:
            raise ValueError(f"esi_level must be 1..5, got {esi_level}")
        inflight = self._inflight.get(request_id)
        if inflight is None or inflight.aborted:
            raise KeyError(f"request {request_id} is not queued or running in the engine")
        if inflight.esi_level == esi_level:
            return
        inflight.esi_level = esi_level
        self._end(inflight, _RESUBMIT)

    async def use_cost_model(self, cost_model: CostModel) -> None:
        """Priorities of new attempts are computed with `cost_model`, and our scheduler in the engine core holds it
        (vLLM's utility call, `SemanticVLLMScheduler.__call__`), so the read-back reports it; a rebuilt engine core
        gets it through the config."""
        self.config = dataclasses.replace(self.config, cost_model=cost_model)
        if self._llm is not None and self.config.scheduler != "stock":
            await self._llm.engine_core.call_utility_async("scheduler", dataclasses.asdict(cost_model))

    # ----- observation ------------------------------------------------------------------------------------

    async def scheduling_in_force(self) -> dict[str, Any] | None:
        """The scheduling our scheduler runs, read back from it inside the engine-core process (vLLM's utility call
        on the engine core's `scheduler` attribute: `SemanticVLLMScheduler.__call__`). vLLM's stock scheduler runs
        none of our options: None. Not started: None."""
        if self._llm is None or self.config.scheduler == "stock":
            return None
        result: dict[str, Any] = await self._llm.engine_core.call_utility_async("scheduler")
        return result

    def stats(self) -> EngineStats:
        per_level = dict.fromkeys(ESI_LEVELS, 0)
        for inflight in list(self._inflight.values()):
            if not inflight.running:
                per_level[inflight.esi_level] += 1
        counters = self.counters
        return EngineStats(
            waiting_per_level=per_level,
            running=counters.running,
            evictions={"preempted": counters.preemptions, "resubmitted": self.resubmissions},
            steps=counters.steps,
            mean_step_s=counters.busy_s / counters.steps if counters.steps else 0.0,
            finished=self._finished,
        )

    def health(self) -> EngineHealth:
        if self._llm is None:
            return EngineHealth(ok=False, detail=self._failure or "not started", restarts=self.restarts)
        if self._llm.errored:
            return EngineHealth(ok=False, detail=f"engine core failed: {self._llm.dead_error}", restarts=self.restarts)
        return EngineHealth(
            ok=True,
            detail="running",
            restarts=self.restarts,
            extra={
                "kv_cache_usage": f"{self.counters.kv_cache_usage:.3f}",
                "model": self.config.model,
                "executor": self.executor,
                "scheduler": self.scheduler_in_use,
            },
        )
